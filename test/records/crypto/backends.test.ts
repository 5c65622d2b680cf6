// S8.4: the Node build's node:crypto and WebCrypto run the same algorithms and write the same records.
import { describe, expect, it } from "vitest";
import { MemoryStorage, ResultHandleStore } from "mcp-result-handles";
import { AnswerKeys } from "../../../src/records/crypto/keys.js";
import { nodeCryptoBackend } from "../../../src/runtimes/node/crypto.js";
import { webCryptoBackend } from "../../../src/records/crypto/webcrypto.js";
import { openRecord, sealRecord } from "../../../src/records/format/format.js";

const owner = { session: "s-1", caller: "c-1" };
const node = nodeCryptoBackend()!;

describe("S8.4 node:crypto and WebCrypto", () => {
  it("the Node build finds node:crypto", () => {
    expect(node?.name).toBe("node");
  });

  it("derive the same storage keys, and each opens what the other sealed", async () => {
    const handle = crypto.randomUUID();
    const [a, b] = await Promise.all([
      AnswerKeys.derive(handle, owner, node),
      AnswerKeys.derive(handle, owner, webCryptoBackend),
    ]);
    expect(a.storageKey).toBe(b.storageKey);
    expect(await a.pieceKey(3)).toBe(await b.pieceKey(3));
    expect(await a.pieceKey(3)).not.toBe(await a.pieceKey(4));
    const plaintext = new TextEncoder().encode(JSON.stringify({ text: "ünïcødé".repeat(50_000) }));
    const header = {
      kind: "whole",
      ascii: false,
      expiresAt: Date.now() + 60_000,
      pieceIndex: 0,
      pieceCount: 1,
    } as const;
    for (const [sealer, opener] of [
      [a, b],
      [b, a],
    ] as const) {
      const record = await sealRecord(sealer, sealer.storageKey, header, plaintext);
      const opened = await openRecord(opener, opener.storageKey, record, Date.now());
      expect(opened?.header).toEqual(header);
      expect(Buffer.from(opened!.plaintext).equals(plaintext)).toBe(true);
      const tampered = record.slice();
      tampered[100]! ^= 1;
      expect(await openRecord(opener, opener.storageKey, tampered, Date.now())).toBeUndefined();
    }
  });

  it("write byte-identical records: the same key and IV give the same ciphertext and tag", async () => {
    const rawKey = crypto.getRandomValues(new Uint8Array(32));
    const iv = crypto.getRandomValues(new Uint8Array(12));
    const ad = new TextEncoder().encode("storage-key|header");
    const webKey = await crypto.subtle.importKey("raw", rawKey, "AES-GCM", false, ["encrypt", "decrypt"]);
    for (const size of [0, 1, 100_000, 600_000]) {
      const plaintext = new Uint8Array(size).map((_, i) => (i * 7919) & 0xff);
      const fromNode = await node.encrypt(rawKey, iv, ad, plaintext);
      const fromWeb = await webCryptoBackend.encrypt(webKey, iv, ad, plaintext);
      expect(fromNode.ciphertext.byteLength).toBe(size);
      expect(fromNode.tag.byteLength).toBe(16);
      expect(Buffer.from(fromNode.ciphertext).equals(Buffer.from(fromWeb.ciphertext))).toBe(true);
      expect(Buffer.from(fromNode.tag).equals(Buffer.from(fromWeb.tag))).toBe(true);
      // Each opens the other's, the tag beside the ciphertext or apart from it.
      const apart = { ciphertext: fromNode.ciphertext.slice(), tag: fromNode.tag.slice() };
      for (const { ciphertext, tag } of [fromWeb, apart]) {
        expect(Buffer.from((await node.decrypt(rawKey, iv, ad, ciphertext, tag))!).equals(plaintext)).toBe(true);
        expect(Buffer.from((await webCryptoBackend.decrypt(webKey, iv, ad, ciphertext, tag))!).equals(plaintext)).toBe(
          true,
        );
      }
      // A tag of any other length is refused, however the bytes are split between ciphertext and tag.
      const joinedBytes = new Uint8Array([...apart.ciphertext, ...apart.tag]);
      for (const cut of [0, 8]) {
        const ct = joinedBytes.subarray(0, joinedBytes.byteLength - cut);
        const shortTag = joinedBytes.subarray(joinedBytes.byteLength - cut);
        expect(await node.decrypt(rawKey, iv, ad, ct, shortTag)).toBeUndefined();
        expect(await webCryptoBackend.decrypt(webKey, iv, ad, ct, shortTag)).toBeUndefined();
      }
      const forged = apart.tag.slice();
      forged[0]! ^= 1;
      expect(await node.decrypt(rawKey, iv, ad, apart.ciphertext, forged)).toBeUndefined();
      expect(await webCryptoBackend.decrypt(webKey, iv, ad, apart.ciphertext, forged)).toBeUndefined();
    }
  });

  it("a store on one backend reads a pieced answer another store sealed on the other", async () => {
    const storage = new MemoryStorage("x");
    const writer = new ResultHandleStore(storage, 60, { crypto: node, pieceBytes: 4096 });
    const reader = new ResultHandleStore(storage, 60, { crypto: webCryptoBackend, pieceBytes: 4096 });
    const value = { rows: Array.from({ length: 3000 }, (_, i) => ({ i, s: "é".repeat(i % 5) })) };
    const handle = writer.newHandle();
    await writer.save(handle, value, owner);
    expect(await reader.read(handle, owner)).toEqual({ value });
    await storage.close();
  });
});
