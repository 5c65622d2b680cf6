// S21.1 with S9.1: a call's cost limit met while a list is read batch by batch (the pieces' decryption is
// charged as each is opened) is the meter's refusal, naming a narrower call: not RESULT_STORE_UNAVAILABLE,
// which would tell the model to try the same call again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAttackBench, textOf, type AttackBench } from "../../helpers/attack-bench.js";
import { foldAs } from "../../helpers/second-caller.js";

describe("S21.1 a cost limit met between two batches of a streamed read", () => {
  let bench: AttackBench;
  let handle: string;
  beforeAll(async () => {
    bench = await startAttackBench({ costLimit: 4_000_000 });
    handle = await foldAs(bench, bench.alice, {
      rows: Array.from({ length: 100_000 }, (_, i) => ({ id: i, a: i % 10, title: `Row ${i} of a long list` })),
    });
  });
  afterAll(async () => bench.close());

  it(
    "a filter past the limit in decrypted bytes, its batches skipped by their text, is refused " + "as costly",
    async () => {
      const answer = await bench.alice("result_query", { handle, path: "$.rows[?@.title == 'no such title']" });
      const text = textOf(answer);
      expect(text).not.toMatch(/RESULT_STORE_UNAVAILABLE/);
      expect(text).toMatch(
        /^INVALID_INPUT: The call would cost more than its limit \(cost over 4000000 units, costLimit/,
      );
      // and the store still answers the next call
      expect((await bench.alice("result_query", { handle, path: "$.rows[0].id" })).structuredContent).toMatchObject({
        value: 0,
      });
    },
  );
});
