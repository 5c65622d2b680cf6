import { KeyLists } from "../util/json.js";
import { deepestCutWithin, previewTry, previewWithin, type PreviewLimits } from "./preview.js";
import { SHAPE_LIMITS } from "../defaults.js";
import { FOLDED_KEYS, type FoldedAnswer } from "./folded-answer.js";
import { Outline } from "./shape.js";
import { jsonSize, jsonStringSize } from "../util/size.js";

/** `{"preview":` `,"shape":` `,"handle":` `}` around the three values: 31 bytes. */
const FRAME_BYTES = FOLDED_KEYS.reduce((bytes, key) => bytes + key.length + 3, 0) + FOLDED_KEYS.length + 1;

/**
 * Builds `{ preview, shape, handle }` no larger than `allowanceBytes` as JSON (S5.4): the preview shrinks
 * first (fewer items and shorter strings, then shallower), then the shape is cut shallower.
 *
 * Linear in the answer whatever its depth or width (S4.8): the shape's outline is built once and rendered
 * at each depth; every try of a preview or shape stops as soon as it passes its share of the allowance, so a
 * try costs about the allowance; a try that would walk the same values as a failed one is skipped, and the
 * depth that fits is measured in one walk (`deepestCutWithin`) rather than one try per level.
 */
export function fitFoldedAnswer(
  value: unknown,
  handle: string,
  preview: { items: number; chars: number },
  allowanceBytes: number,
  keyLists = new KeyLists(),
): FoldedAnswer {
  const outline = Outline.of(value, SHAPE_LIMITS, keyLists);
  const frame = FRAME_BYTES + jsonStringSize(handle);
  const smallest = previewWithin(value, { items: 0, chars: 0, depth: 0 }, Infinity, keyLists)!;
  const fitting = (candidate: FoldedAnswer) => (jsonSize(candidate) <= allowanceBytes ? candidate : undefined);

  // Every preview is at least the smallest one: a shape with no room for it cannot go with any preview.
  const full = outline.render(SHAPE_LIMITS.depth, allowanceBytes - frame - smallest.bytes);
  if (full) {
    const previewAllowance = allowanceBytes - frame - full.bytes;
    const within = (limits: PreviewLimits): FoldedAnswer | undefined => {
      const built = previewWithin(value, limits, previewAllowance, keyLists);
      return built && fitting({ preview: built.preview, shape: full.shape, handle });
    };

    let { items, chars } = preview;
    search: for (;;) {
      const tried = previewTry(value, { items, chars }, previewAllowance, keyLists);
      const candidate = tried.built && fitting({ preview: tried.built.preview, shape: full.shape, handle });
      if (candidate) return candidate;
      // Halved limits that still keep every list and string the failed try saw whole would walk the same
      // values to the same failure: not tried again (a deep chain of numbers failed all ten tries alike).
      do {
        if (items <= 1 && chars <= 1) break search;
        items = Math.max(1, Math.ceil(items / 2));
        chars = Math.max(1, Math.ceil(chars / 2));
      } while (tried.keptItems <= items && tried.keptChars <= chars);
    }

    // Shallower: the deepest cut that fits (a deeper cut is never smaller), measured in one walk.
    const best = within({ items, chars, depth: 0 });
    if (best) {
      const depth = deepestCutWithin(value, { items, chars }, previewAllowance, keyLists);
      return (depth > 0 && within({ items, chars, depth })) || best;
    }
    const candidate = fitting({ preview: smallest.preview, shape: full.shape, handle });
    if (candidate) return candidate;
  }

  for (let depth = SHAPE_LIMITS.depth - 1; depth > 0; depth--) {
    const cut = outline.render(depth, allowanceBytes - frame - smallest.bytes);
    const candidate = cut && fitting({ preview: smallest.preview, shape: cut.shape, handle });
    if (candidate) return candidate;
  }
  // Depth 0: `{ preview: {} | [] | "" | scalar, shape: { type, length | keyCount }, handle }`
  return { preview: smallest.preview, shape: outline.render(0, Infinity)!.shape, handle };
}
