// The app's single requestAnimationFrame scheduler: every canvas paint and every store
// publication goes through scheduleRedraw, which coalesces requests per key into at most one
// call per frame. A request made while a frame runs (a paint scheduled by the render that a
// store publication caused) runs in the same frame, unless its key already ran in it.
// pendingFrames() tells a test hook whether a paint is still to come.

type Job = () => void;

const jobs = new Map<unknown, Job>();
let requested = false;
let flushing = false;
/** Passes over jobs added during a frame, before the rest waits for the next one. */
const MAX_PASSES = 4;

const request: (cb: () => void) => void =
  typeof requestAnimationFrame === 'function'
    ? (cb) => requestAnimationFrame(() => cb())
    : (cb) => setTimeout(cb, 16);

function flush() {
  requested = false;
  flushing = true;
  const ran = new Set<unknown>();
  try {
    for (let pass = 0; pass < MAX_PASSES; pass++) {
      const batch = [...jobs].filter(([key]) => !ran.has(key));
      if (batch.length === 0) break;
      for (const [key] of batch) jobs.delete(key);
      for (const [key, job] of batch) {
        // A request made for the same key earlier in this frame supersedes this one: it runs
        // in the next pass instead.
        if (jobs.has(key)) continue;
        ran.add(key);
        try {
          job();
        } catch (e) {
          // One failing job must not stop the others; report it and carry on.
          console.error('frame job failed', e);
        }
      }
    }
  } finally {
    flushing = false;
  }
  if (jobs.size > 0 && !requested) {
    requested = true;
    request(flush);
  }
}

/**
 * Runs `fn` on the next animation frame. Requests with the same `key` (the function itself by
 * default) made before that frame collapse into one call of the latest function.
 */
export function scheduleRedraw(fn: Job, key: unknown = fn): void {
  jobs.set(key, fn);
  if (!requested && !flushing) {
    requested = true;
    request(flush);
  }
}

/** Drops a pending request (for example when its canvas unmounts). */
export function cancelRedraw(key: unknown): void {
  jobs.delete(key);
}

/** How many frames are requested and not yet run: 0 or 1. */
export function pendingFrames(): number {
  return jobs.size > 0 ? 1 : 0;
}
