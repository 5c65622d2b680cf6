/**
 * A timer that never keeps a Node process alive (its `unref`): a sweep, a watchdog or an idle pause is never a reason
 * for a server's process to stay up. Other runtimes have no such thing; there the timer is left as it is.
 */
export function unref<Timer extends ReturnType<typeof setTimeout> | ReturnType<typeof setInterval>>(
  timer: Timer,
): Timer {
  (timer as { unref?: () => void }).unref?.();
  return timer;
}
