// S21.6: search compares under full Unicode case folding, the same for the text and the needle: what
// `toLowerCase` of the whole text finds, search finds (Greek final sigma, Turkish İ, German ß, decomposed
// text), over an answer in memory and over one read batch by batch from a real store.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { searchHitsYielding } from "../../../src/query/search/search-query.js";
import { CostMeter } from "../../../src/query/cost.js";
import { fold, findFolded } from "../../../src/query/search/case-fold.js";
import { textMayHold } from "../../../src/query/search/text.js";

const hitsOf = (value: unknown, needle: string) =>
  searchHitsYielding([{ value, steps: [] }], needle, {
    offset: 0,
    limit: 100,
    previewChars: 500,
    meter: new CostMeter(),
  });

describe("S21.6 search folds text and needle alike", () => {
  it("Greek: a word-final Σ (ς once lower-cased whole) is found by Σ, σ and ς, and ΟΔΟΣ by οδοσ", async () => {
    const text = "ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ";
    expect(text.toLowerCase()).toContain("οδος"); // the whole text's lower case has a final ς
    for (const needle of ["Σ", "σ", "ς", "οδοσ", "ΟΔΟΣ", "οδος", "ος κ"])
      expect((await hitsOf({ t: text }, needle)).total, needle).toBe(1);
    expect((await hitsOf({ t: "σοφία" }, "ΣΟΦΊΑ")).total).toBe(1);
  });

  it("Turkish: İ and a word beside it; the hit's text is the original's", async () => {
    const text = "İstanbul ve İzmir";
    for (const needle of ["İzmir", "İZMIR", "zmir", "ve i̇z", "stanbul ve"])
      // missed before: the text, folded char by char, kept İ as it was
      expect((await hitsOf({ t: text }, needle)).total, needle).toBe(1);
    expect((await hitsOf({ t: "ΟΔΟΣ İ" }, "οδος")).total).toBe(1); // a final Σ beside İ
    expect((await hitsOf({ t: text }, "İSTANBUL")).hits[0]).toMatchObject({ text });
    expect((await hitsOf({ t: text }, "i̇stanbul")).total).toBe(1); // i + U+0307, as toLowerCase writes İ
    expect((await hitsOf({ t: "ısı" }, "ısı")).total).toBe(1);
    // ı has no case folding (toLowerCase finds no "isi" either)
    expect((await hitsOf({ t: "ısı" }, "ISI")).total).toBe(0);
  });

  it("German: ß and ẞ fold to ss, so Straße, STRASSE and strasse find each other", async () => {
    for (const text of ["Straße", "STRASSE", "strasse", "STRAẞE"]) {
      for (const needle of ["straße", "STRASSE", "Strasse", "ß", "ss"])
        expect((await hitsOf({ t: `Die ${text} 5` }, needle)).total, `${needle} in ${text}`).toBe(1);
    }
    const hit = (await hitsOf({ t: "Große Straße" }, "STRASSE")).hits[0]!;
    expect(hit.text).toBe("Große Straße");
  });

  it("decomposed text: i + U+0307 is found by İ, and İ by the decomposed needle", async () => {
    expect((await hitsOf({ t: "bi\u0307r" }, "İ")).total).toBe(1);
    expect((await hitsOf({ t: "bİr" }, "i\u0307")).total).toBe(1);
    expect((await hitsOf({ t: "e\u0301te" }, "E\u0301TE")).total).toBe(1);
  });

  it("keys, multi-line strings and a batch's JSON text fold the same way", async () => {
    expect((await hitsOf({ Straße: 1 }, "strasse")).hits[0]).toMatchObject({ key: true });
    const lines = await hitsOf({ log: "eins\nGROẞE Straße\ndrei straße" }, "STRASSE");
    expect(lines.hits.map((hit) => hit.line)).toEqual([2, 3]);
    expect(textMayHold("strasse")!('{"a":"Straße"}')).toBe(true); // a batch holding ß is parsed for the needle ss
  });

  it(
    "what toLowerCase of the whole text finds, search finds " + "(random text over Greek, Turkish, German letters)",
    async () => {
      const letters = fc.constantFrom(..."aisSßẞΣσςİıIiΟοΔδ \u0307KkK".split(""));
      await fc.assert(
        fc.asyncProperty(
          fc.array(letters, { maxLength: 20 }).map((a) => a.join("")),
          fc.integer({ min: 0, max: 20 }),
          fc.integer({ min: 1, max: 4 }),
          async (text, from, length) => {
            const lower = text.toLowerCase();
            const needle = lower.slice(from, from + length);
            fc.pre(needle.length > 0);
            expect((await hitsOf({ t: text }, needle)).total).toBe(1);
            const match = findFolded(fold(text), fold(needle).text)!;
            expect(match.at + match.length).toBeLessThanOrEqual(text.length);
          },
        ),
        { numRuns: 3000 },
      );
    },
  );
});
