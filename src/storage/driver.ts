import type { z } from "zod";
import type { NamespacedStorage } from "./types.js";

/** Where a build runs: Node (also Deno and Bun), a web page, or an edge runtime such as Cloudflare Workers (S17.1). */
export type RuntimeKind = "node" | "browser" | "edge";

/** What resolving a storage config needs to know of its build. */
export interface StorageEnvironment {
  readonly kind: RuntimeKind;
  /** Reads an environment variable; pages have none. */
  readonly env: (name: string) => string | undefined;
}

/**
 * One storage backend, described by itself (as unstorage's drivers are): its `type`, the builds it runs
 * in, its config block's zod shape, the environment that can stand in for that block, how a given config
 * resolves and how it opens. The storage config (`storageSchema`, `resolveStorage`) builds the `storage` option's
 * schema, `auto` and the
 * messages from the list of drivers a runtime hands it; nothing else names a backend.
 */
export interface StorageDriver<
  Type extends string = string,
  Shape extends z.ZodRawShape = z.ZodRawShape,
  Resolved extends object = object,
> {
  readonly type: Type;
  /** The builds that can open it (S9.4, S17.1): a runtime lists only drivers that run there. */
  readonly runsIn: readonly RuntimeKind[];
  /**
   * Its config block(s), beside `type`, `timeoutMs` (S9.1) and `deadlineMs` (S26.3), each field `.optional()` where it
   * may be left out.
   */
  readonly options: Shape;
  /**
   * The environment that can stand in for a left-out `block` (S9.1): any one of `alternatives`, with all
   * of its names set. `auto` picks the first driver of a runtime's list whose environment is set (S9.2).
   */
  readonly env?: { readonly block: keyof Shape & string; readonly alternatives: readonly (readonly string[])[] };
  /** Applies defaults and fills a left-out block from the environment: what `plugin.config.storage` shows. */
  resolve(given: z.output<z.ZodObject<Shape>>, environment: StorageEnvironment): Resolved;
  /**
   * Opens it, lazily, on first use (S9.5). Keys reach it as they are: the namespace is applied once, by
   * one wrapper (`withNamespace`), for every driver.
   */
  open(config: Resolved & { readonly timeoutMs: number }): Promise<NamespacedStorage>;
}

/** Any driver, as a runtime's list holds them. */
export type AnyStorageDriver = StorageDriver<string, any, any>;

/** Declares a driver with its types inferred from its schema. */
export function defineDriver<Type extends string, Shape extends z.ZodRawShape, Resolved extends object>(
  driver: StorageDriver<Type, Shape, Resolved>,
): StorageDriver<Type, Shape, Resolved> {
  return driver;
}

type Prettify<T> = { [K in keyof T]: T[K] } & {};

/** A driver's config as a user writes it. */
export type GivenConfigOf<D> =
  D extends StorageDriver<infer Type, infer Shape, any>
    ? Prettify<{ type: Type; timeoutMs?: number; deadlineMs?: number } & z.input<z.ZodObject<Shape>>>
    : never;

/** A driver's config with `auto` decided, the environment read and every default applied. */
export type ResolvedConfigOf<D> =
  D extends StorageDriver<infer Type, any, infer Resolved>
    ? Prettify<{ readonly type: Type; readonly timeoutMs: number; readonly deadlineMs: number } & Resolved>
    : never;

/** Whether one of a driver's environment alternatives is fully set (an empty variable counts as unset). */
export function envReady(driver: AnyStorageDriver, environment: StorageEnvironment): boolean {
  return (driver.env?.alternatives ?? []).some((names) => names.every((name) => environment.env(name)));
}
