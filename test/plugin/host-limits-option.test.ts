// S23.1, S3.1: the hostLimits option: "auto" by default (the known table), false (none), an object that adds
// or replaces entries; every bad entry refused by init with its own path, nothing else changed.
import { describe, expect, it } from "vitest";
import { ResultHandlesConfigurationError, ResultHandlesPlugin } from "mcp-result-handles";

function issuesOf(options: unknown): { path: string; message: string }[] {
  try {
    ResultHandlesPlugin.init(options as never);
  } catch (error) {
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    return [...(error as ResultHandlesConfigurationError).issues];
  }
  throw new Error("init accepted invalid options");
}

describe("S23.1 hostLimits", () => {
  it("auto (the default) knows the hosts by the names their sources send", () => {
    const table = ResultHandlesPlugin.init().config.hostLimits;
    expect(ResultHandlesPlugin.init({ hostLimits: "auto" }).config.hostLimits).toEqual(table);
    expect(Object.keys(table).sort()).toEqual(
      ["Cline", "Zed", "claude-code", "codex-mcp-client", "gemini-cli-mcp-client", "goose"].sort(),
    );
    expect(table["codex-mcp-client"]).toEqual({ host: "Codex", bytes: 10240, lines: 256 });
    expect(table["gemini-cli-mcp-client"]).toEqual({ host: "Gemini CLI", chars: 40000 });
    expect(table["claude-code"]).toEqual({ host: "Claude Code", tokens: 25000 });
  });

  it("false knows none; an object adds hosts and replaces known entries whole", () => {
    expect(ResultHandlesPlugin.init({ hostLimits: false }).config.hostLimits).toEqual({});
    const table = ResultHandlesPlugin.init({
      hostLimits: {
        "my-agent": { chars: 5000, lines: 100 },
        "codex-mcp-client": { lines: 1000 },
        __proto__: { bytes: 2000 },
      } as never,
    }).config.hostLimits;
    expect(table["my-agent"]).toEqual({ host: "my-agent", chars: 5000, lines: 100 });
    expect(table["codex-mcp-client"]).toEqual({ host: "Codex", lines: 1000 });
    expect(table.Zed).toEqual({ host: "Zed", bytes: 65536 });
    expect(Object.getPrototypeOf(table)).toBe(Object.prototype);
  });

  it("a name like constructor or toString is no host unless the option names it", () => {
    const table = ResultHandlesPlugin.init().config.hostLimits;
    expect(Object.hasOwn(table, "constructor")).toBe(false);
    expect(
      Object.hasOwn(
        ResultHandlesPlugin.init({ hostLimits: { constructor: { bytes: 4000 } } }).config.hostLimits,
        "constructor",
      ),
    ).toBe(true);
  });

  it("refuses every bad entry at once, each by its path", () => {
    const issues = issuesOf({
      thresholdBytes: 10,
      hostLimits: {
        a: { bytes: 0 },
        b: {},
        c: { lines: 2.5, chars: "many" },
        d: { byte: 100 },
        e: 12,
        "": { bytes: 100 },
      },
    });
    const paths = issues.map((issue) => issue.path).sort();
    expect(paths).toEqual(
      [
        "thresholdBytes",
        "hostLimits.a.bytes",
        "hostLimits.b",
        "hostLimits.c.lines",
        "hostLimits.c.chars",
        "hostLimits.d.byte",
        "hostLimits.d",
        "hostLimits.e",
        "hostLimits",
      ].sort(),
    );
    const message = (path: string) => issues.find((issue) => issue.path === path)!.message;
    expect(message("hostLimits.a.bytes")).toBe("must be a positive whole number");
    expect(message("hostLimits.b")).toBe("give at least one of bytes, chars, lines, tokens");
    expect(message("hostLimits.d.byte")).toContain("did you mean bytes?");
    expect(message("hostLimits.e")).toContain("must be an object");
    expect(message("hostLimits")).toContain("must not be empty");
  });

  it("refuses a Map, a Set or a Date (no entries a table would give), and reads units as own members", () => {
    const table = 'must be "auto", false, or an object of { bytes?, chars?, lines?, tokens? } by clientInfo.name';
    // A Map of hosts was taken as an empty table: init accepted it and nothing folded for them.
    expect(issuesOf({ hostLimits: new Map([["my-agent", { bytes: 4000 }]]) })).toEqual([
      { path: "hostLimits", message: table },
    ]);
    expect(issuesOf({ hostLimits: new Set(["my-agent"]) })).toEqual([{ path: "hostLimits", message: table }]);
    const entry = "must be an object with bytes, chars, lines or tokens (positive whole numbers)";
    expect(issuesOf({ hostLimits: { "my-agent": new Date(0) } })).toEqual([
      { path: "hostLimits.my-agent", message: entry },
    ]);
    // A unit inherited from a prototype was used without its check (-1 here): only own units count.
    expect(issuesOf({ hostLimits: { "my-agent": Object.create({ bytes: -1 }) } })).toEqual([
      { path: "hostLimits.my-agent", message: "give at least one of bytes, chars, lines, tokens" },
    ]);
    const bare = Object.assign(Object.create(null), { "my-agent": Object.assign(Object.create(null), { lines: 9 }) });
    expect(ResultHandlesPlugin.init({ hostLimits: bare }).config.hostLimits["my-agent"]).toEqual({
      host: "my-agent",
      lines: 9,
    });
  });

  it.each([["yes"], [true], [[{ bytes: 1 }]], [null], [7]])("refuses hostLimits: %j", (hostLimits) => {
    expect(issuesOf({ hostLimits })).toEqual([
      {
        path: "hostLimits",
        message: 'must be "auto", false, or an object of { bytes?, chars?, lines?, tokens? } by clientInfo.name',
      },
    ]);
  });
});
