/**
 * Yielding to the event loop (S21.4): a macrotask, so timers and I/O run, then the caller goes on. Long
 * work on the calling thread awaits this between its pieces (the reads in parts; `CostMeter.yieldToLoop` lets
 * the parts of one call take turns).
 */
export function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0)); // every runtime has it (Node, pages, workers, edge)
}
