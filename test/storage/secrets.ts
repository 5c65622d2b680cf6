// S8.3 from the outside: fold answers carrying a known marker through a real MCP exchange, then search
// whatever a backend holds (raw keys, values, files, records) for anything that names them.
import { expect } from "vitest";
import { McpServer } from "@modelcontextprotocol/server";
import { type ResultHandlesPluginCore } from "mcp-result-handles";
import { linkInMemory } from "../helpers/in-memory.js";
import { metaHandleOf } from "../helpers/fold-meta.js";

export interface FoldedSecrets {
  handles: string[];
  session: string;
  caller: string;
  marker: string;
}

/** Folds `count` answers full of a marker for one session and caller, and reads each back once. */
export async function foldMarkedAnswers(plugin: ResultHandlesPluginCore, count = 3): Promise<FoldedSecrets> {
  const tag = crypto.randomUUID().slice(0, 8);
  const secrets = {
    handles: [] as string[],
    session: `session-s83-${tag}`,
    caller: `caller-s83-${tag}`,
    marker: `MARKER-S83-${tag}-plaintext`,
  };
  const server = new McpServer({ name: "s83", version: "1" });
  plugin.install(server, {
    owner: (ctx) => ({ session: ctx.sessionId, caller: secrets.caller }),
    logger: { warn: (m) => expect.fail(`unexpected warning: ${m}`) },
  });
  server.registerTool("marked", { description: "answers with the marker" }, async () => ({
    content: [
      {
        type: "text",
        text: JSON.stringify({
          rows: Array.from({ length: 200 }, (_, i) => ({ i, note: `${secrets.marker} row ${i}` })),
        }),
      },
    ],
  }));
  const client = await linkInMemory(server, secrets.session);
  try {
    for (let i = 0; i < count; i++) {
      const result = await client.callTool({ name: "marked", arguments: {} });
      const handle = metaHandleOf(result);
      expect(handle, "the answer folded").toBeTypeOf("string");
      secrets.handles.push(handle!);
      const read = await client.callTool({ name: "result_query", arguments: { handle, path: "$.rows[3].note" } });
      expect(read.structuredContent).toMatchObject({ value: `${secrets.marker} row 3` });
    }
  } finally {
    await client.close();
  }
  return secrets;
}

/** Each secret as raw UTF-8, base64, base64url, hex and without dashes: any of them would leak it. */
function forms(secret: string): Uint8Array[] {
  const utf8 = new TextEncoder().encode(secret);
  const base64 = btoa(String.fromCharCode(...utf8));
  const base64url = base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const hex = Array.from(utf8, (b) => b.toString(16).padStart(2, "0")).join("");
  return [secret, base64.replace(/=+$/, ""), base64url, hex, secret.replace(/-/g, "")].map((form) =>
    new TextEncoder().encode(form),
  );
}

function indexOf(haystack: Uint8Array, needle: Uint8Array): number {
  const first = needle[0];
  for (
    let i = haystack.indexOf(first!);
    i !== -1 && i + needle.length <= haystack.length;
    i = haystack.indexOf(first!, i + 1)
  ) {
    let j = 1;
    while (j < needle.length && haystack[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}

/** Fails naming the secret and where it was found when any blob holds any form of any secret. */
export function expectNoSecrets(blobs: { where: string; bytes: Uint8Array }[], secrets: FoldedSecrets): void {
  expect(blobs.length).toBeGreaterThan(0);
  const all = [...secrets.handles, secrets.session, secrets.caller, secrets.marker];
  for (const secret of all) {
    for (const form of forms(secret)) {
      for (const blob of blobs) expect(indexOf(blob.bytes, form), `${secret} found in ${blob.where}`).toBe(-1);
    }
  }
}
