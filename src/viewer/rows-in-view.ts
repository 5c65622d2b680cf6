/**
 * What the table and the numbered lines share: only the rows in view (and five more each side) are in the
 * DOM, so a 10 MB answer scrolls as fast as a small one (S19.3), and a redraw is asked at most once a frame.
 */
export function rowsInView(scroller: HTMLElement, rowHeight: number, count: number): { from: number; to: number } {
  const { scrollTop, clientHeight } = scroller;
  return {
    from: Math.max(0, Math.floor(scrollTop / rowHeight) - 5),
    to: Math.min(count, Math.ceil((scrollTop + clientHeight) / rowHeight) + 5),
  };
}

/** `draw` on the next animation frame, once however often it is asked for before then. */
export function drawOncePerFrame(draw: () => void): () => void {
  let asked = false;
  return () => {
    if (asked) return;
    asked = true;
    requestAnimationFrame(() => {
      asked = false;
      draw();
    });
  };
}
