/**
 * The members of `@frontmcp/sdk` 1.5.2 this entry uses, for the repository's own type check: the package is
 * not among its dev dependencies (its tarballs carry zod pins of their own; test/fixtures/frontmcp/). The
 * published declarations import the real module, and the FrontMCP test project compiles against it.
 */
declare module "@frontmcp/sdk" {
  export const FrontMcpConfig: symbol;
  /** FrontMCP's provider token (a class, a symbol or a string), typed by what it provides. */
  export type Token<T = unknown> = symbol | string | (abstract new (...args: never[]) => T);

  export abstract class DynamicPlugin<TOptions extends object, TInput extends object = TOptions> {
    __options_brand: TOptions;
    __options_input_brand: TInput;
    get<T>(token: unknown): T;
    static init(options: never): { provide: unknown; providers?: readonly unknown[] };
  }

  export abstract class ToolContext {
    readonly authInfo: { user?: { sub?: unknown } } & Record<string, unknown>;
    readonly context: { sessionId?: string };
    readonly scope: { notifications?: { getClientInfo?(sessionId: string): { name?: unknown } | undefined } };
    get<T>(token: unknown): T;
    abstract execute(input: unknown): Promise<unknown>;
  }

  export function Plugin(metadata: Record<string, unknown>): ClassDecorator;
  export function Tool(metadata: Record<string, unknown>): ClassDecorator;
  export const ToolHook: {
    Will(stage: string, options?: { priority?: number }): MethodDecorator;
  };
}
