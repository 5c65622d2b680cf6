// Runs in Node and again inside Chromium (browser project): the store, its crypto and the memory storage.
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createResultHandleStore,
  MemoryStorage,
  ResultHandlesConfigurationError,
  ResultHandleStore,
} from "mcp-result-handles";
import { DEFAULT_MEMORY_MAX_BYTES } from "../../src/defaults.js";
import { StorageDouble } from "../helpers/storage-double.js";

const alice = { session: "session-alice-7d1e", caller: "alice@example.test" };
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function forms(secret: string): Uint8Array[] {
  const utf8 = new TextEncoder().encode(secret);
  const base64 = btoa(String.fromCharCode(...utf8));
  const base64url = base64.replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  const hex = Array.from(utf8, (b) => b.toString(16).padStart(2, "0")).join("");
  return [utf8, base64, base64url, hex, secret.replace(/-/g, "")].map((f) =>
    typeof f === "string" ? new TextEncoder().encode(f) : f,
  );
}

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return true;
  }
  return false;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("S8.2 handles", () => {
  it("are random UUID v4s, never derived from the answer", () => {
    const store = new ResultHandleStore(new StorageDouble(), 60);
    const handles = new Set(Array.from({ length: 100 }, () => store.newHandle()));
    expect(handles.size).toBe(100);
    for (const handle of handles) expect(handle).toMatch(UUID_V4);
  });

  it(
    "read back only for the same session and caller; anything else is exactly like a handle " + "never issued",
    async () => {
      const store = new ResultHandleStore(new StorageDouble(), 60);
      const handle = store.newHandle();
      await store.save(handle, { rows: [1, 2, 3] }, alice);
      expect(await store.read(handle, alice)).toEqual({ value: { rows: [1, 2, 3] } });
      for (const other of [
        { session: alice.session },
        { caller: alice.caller },
        { session: "other", caller: alice.caller },
        { session: alice.session, caller: "bob" },
        {},
        { session: alice.caller, caller: alice.session },
      ]) {
        expect(await store.read(handle, other)).toBeUndefined();
      }
      expect(await store.read(store.newHandle(), alice)).toBeUndefined();
      expect(await store.read("not-a-uuid", alice)).toBeUndefined();
    },
  );
});

describe("S8.3 what the store sees", () => {
  it("never a handle, session, caller or plaintext answer, in raw, UTF-8, hex or base64 form", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const marker = "MARKER-4f9a-plaintext-should-never-be-stored";
    const handles: string[] = [];
    for (let i = 0; i < 5; i++) {
      const handle = store.newHandle();
      handles.push(handle);
      await store.save(handle, { marker, i, text: marker.repeat(3) }, alice);
      await store.read(handle, alice);
    }
    const secrets = [...handles, alice.session, alice.caller, marker];
    const seen = spy.seen();
    for (const secret of secrets)
      for (const form of forms(secret)) for (const blob of seen) expect(contains(blob, form)).toBe(false);
    for (const { key } of spy.sets) expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a record with any one byte flipped reads as not found", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const handle = store.newHandle();
    await store.save(handle, { a: "secret" }, alice);
    const { key, value } = spy.sets[0]!;
    for (const position of [0, 1, 5, 9, 15, 21, value.length - 17, value.length - 1]) {
      const tampered = value.slice();
      tampered[position]! ^= 0x01;
      spy.data.set(key, tampered);
      expect(await store.read(handle, alice)).toBeUndefined();
    }
    spy.data.set(key, value);
    expect(await store.read(handle, alice)).toEqual({ value: { a: "secret" } });
  });

  it("a record moved under another key does not decrypt there", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const [h1, h2] = [store.newHandle(), store.newHandle()];
    await store.save(h1, "one", alice);
    await store.save(h2, "two", alice);
    const [first, second] = [spy.sets[0]!, spy.sets[1]!];
    spy.data.set(second.key, first.value);
    expect(await store.read(h2, alice)).toBeUndefined();
  });

  it("encrypts each save with a fresh IV", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const handle = store.newHandle();
    await store.save(handle, "same", alice);
    await store.save(handle, "same", alice);
    // Record v2 ends with IV (12 bytes) and header (18 bytes).
    const [a, b] = spy.sets.map((s) => Array.from(s.value.slice(-30, -18)).join(","));
    expect(a).not.toBe(b);
  });

  it("an expired record never reads back, even from a storage that still holds it", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-01-01T00:00:00Z"));
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 2);
    const handle = store.newHandle();
    await store.save(handle, [1], alice);
    // S16.5: the storage keeps it a little longer (1 to 59 s, drawn per record); the sealed expiry ends reads at the
    // TTL.
    expect(spy.sets[0]!.ttlSeconds).toBeGreaterThan(2);
    expect(spy.sets[0]!.ttlSeconds).toBeLessThanOrEqual(2 + 60);
    vi.setSystemTime(new Date("2026-01-01T00:00:01.999Z"));
    expect(await store.read(handle, alice)).toEqual({ value: [1] });
    vi.setSystemTime(new Date("2026-01-01T00:00:02.000Z"));
    expect(await store.read(handle, alice)).toBeUndefined();
  });
});

describe("recent answers for result_query", () => {
  it("serves a repeated read from memory, but only while the storage holds that very record", async () => {
    const spy = new StorageDouble();
    const store = new ResultHandleStore(spy, 60);
    const handle = store.newHandle();
    await store.save(handle, { rows: [1, 2] }, alice);
    const first = await store.readShared(handle, alice);
    const second = await store.readShared(handle, alice);
    expect(second!.value).toBe(first!.value); // shared, not decrypted and parsed again
    expect(await store.readShared(handle, { caller: alice.caller })).toBeUndefined();
    expect((await store.read(handle, alice))!.value).not.toBe(first!.value); // read() always parses afresh

    await store.save(handle, { rows: [3] }, alice);
    expect(await store.readShared(handle, alice)).toEqual({ value: { rows: [3] } });
    spy.data.clear(); // evicted or deleted behind the store's back
    expect(await store.readShared(handle, alice)).toBeUndefined();
  });

  it(
    "S8.5 a record changed anywhere, even mid-ciphertext with its " +
      "trailer intact, reads as not found from memory too",
    async () => {
      const spy = new StorageDouble();
      const store = new ResultHandleStore(spy, 60);
      const handle = store.newHandle();
      await store.save(handle, { rows: Array.from({ length: 200 }, (_, i) => `row ${i}`) }, alice);
      const { key, value } = spy.sets[0]!;
      expect(value.length).toBeGreaterThan(1000);
      await store.readShared(handle, alice); // now cached
      for (const position of [0, 100, value.length >> 1, value.length - 47]) {
        const tampered = value.slice();
        tampered[position]! ^= 0x01;
        spy.data.set(key, tampered);
        expect(await store.read(handle, alice)).toBeUndefined();
        expect(await store.readShared(handle, alice)).toBeUndefined();
        spy.data.set(key, value);
        expect((await store.readShared(handle, alice))!.value).toHaveProperty("rows.199", "row 199");
      }
    },
  );

  it("never serves an expired answer", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(0);
    const store = new ResultHandleStore(new StorageDouble(), 1);
    const handle = store.newHandle();
    await store.save(handle, "v", alice);
    expect(await store.readShared(handle, alice)).toEqual({ value: "v" });
    vi.setSystemTime(1000);
    expect(await store.readShared(handle, alice)).toBeUndefined();
  });
});

describe("S9.3 memory storage", () => {
  const bytes = (n: number) => new Uint8Array(n).fill(7);

  it("keeps at most maxEntries, dropping the oldest", async () => {
    const memory = new MemoryStorage("ns", { maxEntries: 3 });
    for (const key of ["a", "b", "c", "d"]) await memory.set(key, bytes(1), 60);
    expect(await memory.get("a")).toBeUndefined();
    expect(await memory.get("d")).toEqual(bytes(1));
    expect(memory.size).toBe(3);
    await memory.close();
  });

  it("counts answers, not records: an answer in pieces counts once and is dropped whole, oldest first", async () => {
    const memory = new MemoryStorage("ns", { maxEntries: 2 });
    const store = new ResultHandleStore(memory, 60, { pieceBytes: 4096 });
    const answer = (n: number) => ({
      n,
      rows: Array.from({ length: 400 }, (_, i) => ({ i, note: `answer ${n} row ${i}` })),
    });
    const handles: string[] = [];
    for (let n = 0; n < 3; n++) {
      handles.push(store.newHandle());
      await store.save(handles[n]!, answer(n), alice);
    }
    expect(memory.answerCount).toBe(2);
    expect(await store.read(handles[0]!, alice)).toBeUndefined();
    expect(await store.read(handles[1]!, alice)).toEqual({ value: answer(1) });
    expect(await store.read(handles[2]!, alice)).toEqual({ value: answer(2) });
    // Nothing of the dropped answer is left behind: the records kept are those of the two answers read back.
    const recordsOfOne = memory.size / 2;
    expect(recordsOfOne).toBeGreaterThan(2);
    expect(Number.isInteger(recordsOfOne)).toBe(true);
    await memory.close();
  });

  it("drops whole answers for maxBytes too, and refuses an answer whose records together exceed it", async () => {
    const answer = (n: number) => ({
      n,
      rows: Array.from({ length: 400 }, (_, i) => ({ i, note: `answer ${n} row ${i}` })),
    });
    const probe = new MemoryStorage("ns", { maxBytes: 0 });
    await new ResultHandleStore(probe, 60, { pieceBytes: 4096 }).save(crypto.randomUUID(), answer(0), alice);
    const one = probe.storedBytes; // what one answer takes, encrypted
    await probe.close();
    const memory = new MemoryStorage("ns", { maxBytes: Math.floor(one * 2.5) });
    const store = new ResultHandleStore(memory, 60, { pieceBytes: 4096 });
    const handles = [0, 1, 2].map(() => store.newHandle());
    for (const [n, handle] of handles.entries()) await store.save(handle, answer(n), alice);
    expect(memory.answerCount).toBe(2);
    expect(await store.read(handles[0]!, alice)).toBeUndefined();
    expect(await store.read(handles[1]!, alice)).toEqual({ value: answer(1) });
    expect(memory.storedBytes).toBeLessThanOrEqual(Math.floor(one * 2.5));
    const small = new MemoryStorage("ns", { maxBytes: Math.floor(one / 2) }); // every piece fits, the answer does not
    await expect(
      new ResultHandleStore(small, 60, { pieceBytes: 4096 }).save(crypto.randomUUID(), answer(0), alice),
    ).rejects.toMatchObject({ code: "STORE_FULL" });
    expect(small.size).toBe(0);
    await small.close();
    await memory.close();
  });

  it(
    "keeps its counts exact when records are replaced: inside one " + "answer, or an older answer's (which goes whole)",
    async () => {
      const memory = new MemoryStorage("ns", { maxEntries: 10 });
      await memory.setTogether(
        [
          { key: "a", value: bytes(10) },
          { key: "b", value: bytes(20) },
          { key: "a", value: bytes(5) },
        ],
        60,
      );
      expect([memory.size, memory.answerCount, memory.storedBytes]).toEqual([2, 1, 25]);
      expect(await memory.get("a")).toEqual(bytes(5));
      await memory.set("c", bytes(3), 60);
      await memory.set("b", bytes(7), 60); // the first answer cannot be read without its b: it goes whole (S8.5)
      expect(await memory.get("a")).toBeUndefined();
      expect([memory.size, memory.answerCount, memory.storedBytes]).toEqual([2, 2, 10]);
      await memory.delete("c");
      expect([memory.size, memory.answerCount, memory.storedBytes]).toEqual([1, 1, 7]);
      await memory.setTogether([], 60); // nothing to keep: not an answer
      expect([memory.size, memory.answerCount, memory.storedBytes]).toEqual([1, 1, 7]);
      await memory.close();
    },
  );

  it("defaults to 1000 entries, and 0 means no limit", async () => {
    const bounded = new MemoryStorage("ns");
    const unbounded = new MemoryStorage("ns", { maxEntries: 0 });
    for (let i = 0; i < 1200; i++) {
      await bounded.set(`k${i}`, bytes(1), 60);
      await unbounded.set(`k${i}`, bytes(1), 60);
    }
    expect(bounded.size).toBe(1000);
    expect(await bounded.get("k199")).toBeUndefined();
    expect(await bounded.get("k200")).toBeDefined();
    expect(unbounded.size).toBe(1200);
    await Promise.all([bounded.close(), unbounded.close()]);
  });

  it(
    "used bare (new MemoryStorage(ns)), it keeps the S9.3 default of " +
      "where it runs: 256 MiB in Node, 64 MiB in a page",
    async () => {
      // A Worker isolate has 128 MB in all: the edge build (S17.1) keeps a quarter of it.
      expect(DEFAULT_MEMORY_MAX_BYTES).toEqual({
        node: 256 * 1024 * 1024,
        browser: 64 * 1024 * 1024,
        edge: 32 * 1024 * 1024,
      });
      const MiB = 1024 * 1024;
      const cap =
        typeof (globalThis as { process?: { versions?: { node?: string } } }).process?.versions?.node === "string"
          ? 256 * MiB
          : 64 * MiB;
      const memory = new MemoryStorage("ns");
      await expect(memory.set("huge", new Uint8Array(cap + 1), 60)).rejects.toMatchObject({ code: "STORE_FULL" });
      await memory.set("a", new Uint8Array(cap / 2 + MiB), 60);
      await memory.set("b", new Uint8Array(cap / 4), 60);
      await memory.set("c", new Uint8Array(cap / 4), 60);
      expect(await memory.get("a")).toBeUndefined();
      expect(memory.storedBytes).toBe(cap / 2);
      await memory.close();
    },
  );

  it("keeps at most maxBytes, dropping the oldest, and refuses a value larger than maxBytes", async () => {
    const memory = new MemoryStorage("ns", { maxBytes: 100 });
    await memory.set("a", bytes(40), 60);
    await memory.set("b", bytes(40), 60);
    await memory.set("c", bytes(40), 60);
    expect(await memory.get("a")).toBeUndefined();
    expect(memory.storedBytes).toBe(80);
    await expect(memory.set("huge", bytes(101), 60)).rejects.toThrow(/maxBytes/);
    expect(memory.storedBytes).toBe(80);
    await memory.close();
  });

  it("honours the TTL to the millisecond", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(1_000_000);
    const memory = new MemoryStorage("ns");
    await memory.set("k", bytes(2), 1);
    vi.setSystemTime(1_000_999);
    expect(await memory.get("k")).toBeDefined();
    vi.setSystemTime(1_001_000);
    expect(await memory.get("k")).toBeUndefined();
    await memory.close();
  });

  it("applies the namespace inside: two namespaces never see each other's keys", async () => {
    const a = new MemoryStorage("a");
    await a.set("k", bytes(1), 60);
    expect(await a.get("k")).toBeDefined();
    await a.delete("k");
    expect(await a.get("k")).toBeUndefined();
    await a.close();
  });
});

describe("S2 createResultHandleStore", () => {
  it("requires storage, namespace and ttlSeconds", async () => {
    const error = await createResultHandleStore({} as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    expect((error as ResultHandlesConfigurationError).issues.map((i) => i.path)).toEqual([
      "storage",
      "namespace",
      "ttlSeconds",
    ]);
  });

  it("S3.1 takes no other option: an init option given here is named as unknown, with a missing one", async () => {
    const error = await createResultHandleStore({
      storage: { type: "memory" },
      namespace: "t",
      thresholdBytes: 4096,
      preview: { items: 2 },
    } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ResultHandlesConfigurationError);
    const issues = (error as ResultHandlesConfigurationError).issues;
    expect(issues.map((i) => i.path)).toEqual(["ttlSeconds", "thresholdBytes", "preview"]);
    expect(issues[1]!.message).toMatch(/unknown option/);
  });

  it("opens a working memory store", async () => {
    const store = await createResultHandleStore({ storage: { type: "memory" }, namespace: "t", ttlSeconds: 30 });
    const handle = store.newHandle();
    await store.save(handle, { ok: true }, { caller: "c" });
    expect(await store.read(handle, { caller: "c" })).toEqual({ value: { ok: true } });
    await store.onShutdown();
  });
});
