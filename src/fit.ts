import { buildPreview, type PreviewLimits } from "./preview.js";
import { buildShape, SHAPE_LIMITS, type Shape } from "./shape.js";
import { jsonSize } from "./size.js";
import { isPlainObject } from "./json.js";

/** What a folded answer's `structuredContent` is (S5.1). */
export interface FoldedAnswer {
  preview: unknown;
  shape: Shape;
  handle: string;
}

/**
 * Builds `{ preview, shape, handle }` no larger than `budgetBytes` as JSON (S5.4): the preview shrinks
 * first (fewer items and shorter strings, then shallower), then the shape is cut shallower.
 */
export function fitFoldedAnswer(value: unknown, handle: string, preview: { items: number; chars: number }, budgetBytes: number): FoldedAnswer {
  const shape = buildShape(value);
  let smallest: unknown;
  for (const limits of previewSteps(value, preview)) {
    smallest = buildPreview(value, limits);
    const candidate = { preview: smallest, shape, handle };
    if (jsonSize(candidate) <= budgetBytes) return candidate;
  }
  let candidate: FoldedAnswer = { preview: smallest, shape, handle };
  for (let depth = SHAPE_LIMITS.depth - 1; depth >= 0; depth--) {
    candidate = { preview: smallest, shape: buildShape(value, { ...SHAPE_LIMITS, depth }), handle };
    if (jsonSize(candidate) <= budgetBytes) return candidate;
  }
  return candidate; // depth 0: `{ preview: {} | [] | "", shape: { type, length | keyCount }, handle }`
}

function* previewSteps(value: unknown, start: { items: number; chars: number }): Generator<PreviewLimits> {
  let { items, chars } = start;
  yield { items, chars };
  while (items > 1 || chars > 1) {
    items = Math.max(1, Math.ceil(items / 2));
    chars = Math.max(1, Math.ceil(chars / 2));
    yield { items, chars };
  }
  for (let depth = containerDepth(buildPreview(value, { items, chars })) - 1; depth >= 0; depth--) {
    yield { items, chars, depth };
  }
  yield { items: 0, chars: 0, depth: 0 };
}

function containerDepth(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(containerDepth));
  if (isPlainObject(value)) return 1 + Math.max(0, ...Object.values(value).map(containerDepth));
  return 0;
}
