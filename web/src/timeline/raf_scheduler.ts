// The timeline's single requestAnimationFrame scheduler: every canvas paint goes through
// scheduleRedraw, which coalesces requests per key into at most one call per frame.
// pendingFrames() tells a test hook whether a paint is still to come.

type Job = () => void;

const jobs = new Map<unknown, Job>();
let requested = false;

const request: (cb: () => void) => void =
  typeof requestAnimationFrame === 'function'
    ? (cb) => requestAnimationFrame(() => cb())
    : (cb) => setTimeout(cb, 16);

function flush() {
  requested = false;
  const batch = [...jobs.values()];
  jobs.clear();
  for (const job of batch) {
    try {
      job();
    } catch (e) {
      // One failing paint must not stop the others; report it and carry on.
      console.error('timeline redraw failed', e);
    }
  }
}

/**
 * Runs `fn` on the next animation frame. Requests with the same `key` (the function itself by
 * default) made before that frame collapse into one call of the latest function.
 */
export function scheduleRedraw(fn: Job, key: unknown = fn): void {
  jobs.set(key, fn);
  if (!requested) {
    requested = true;
    request(flush);
  }
}

/** Drops a pending request (for example when its canvas unmounts). */
export function cancelRedraw(key: unknown): void {
  jobs.delete(key);
}

/** How many frames are requested and not yet painted: 0 or 1. */
export function pendingFrames(): number {
  return requested && jobs.size > 0 ? 1 : 0;
}
