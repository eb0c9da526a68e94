// A small store for the app's state, read by React through useSyncExternalStore. Writes land at
// once (actions and queries read the latest state with get()), but React sees a store's state
// only when the frame hub publishes it: every store written since the last frame is published
// together, inside one batch, so a frame renders at most once however many events and worker
// replies arrived in it. Controlled form inputs publish at once (set(patch, { now: true })).

import { useRef, useSyncExternalStore } from 'react';

/** How the hub reaches the frame loop and React (the app passes its rAF scheduler and flushSync). */
export interface FrameDriver {
  /** Runs `flush` on the next animation frame (requests made before it collapse into one). */
  request(flush: () => void, key: unknown): void;
  /** Runs `fn`, committing every React update made inside it once, before it returns. */
  batch(fn: () => void): void;
}

/** Publishes the stores written since the last frame, all at once. */
export class FrameHub {
  private dirty = new Set<() => void>();
  private requested = false;
  /** Publications so far, each of every store written before it (sim_queries.ts asks once per publication). */
  publishes = 0;

  constructor(private readonly driver: FrameDriver) {}

  /** A publication is waiting for its frame. */
  get pending(): boolean {
    return this.dirty.size > 0;
  }

  mark(publish: () => void): void {
    this.dirty.add(publish);
    if (this.requested) return;
    this.requested = true;
    this.driver.request(() => this.flush(), this);
  }

  /** Publishes now (the frame's request, when one is pending, then finds nothing to do). */
  flush(): void {
    this.requested = false;
    if (this.dirty.size === 0) return;
    const all = [...this.dirty];
    this.dirty.clear();
    this.publishes++;
    this.driver.batch(() => all.forEach((p) => p()));
  }
}

export interface Store<T extends object> {
  /** The latest state (what actions and queries read). */
  get: () => T;
  /** The state as last published (what React renders). */
  published: () => T;
  /** Shallow-merges `patch`; publishes on the next frame, or at once with `now`. */
  set: (patch: Partial<T> | ((s: T) => Partial<T>), opts?: { now?: boolean }) => void;
  /** Called after each publication. */
  subscribe: (listener: () => void) => () => void;
}

export function createStore<T extends object>(initial: T, hub: FrameHub): Store<T> {
  let state = initial;
  let shown = initial;
  const listeners = new Set<() => void>();
  const publish = () => {
    if (shown === state) return;
    shown = state;
    listeners.forEach((l) => l());
  };
  return {
    get: () => state,
    published: () => shown,
    set: (patch, opts) => {
      const p = typeof patch === 'function' ? patch(state) : patch;
      const changed = (Object.keys(p) as (keyof T)[]).some((k) => !Object.is(p[k], state[k]));
      if (changed) {
        state = { ...state, ...p };
        hub.mark(publish);
      }
      if (opts?.now) hub.flush();
    },
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** Two values with the same own keys and Object.is-equal values (or Object.is-equal). */
export function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.length === kb.length && ka.every((k) => Object.is(ra[k], rb[k]));
}

/** The part of a store's published state a component renders; it re-renders only when that
 * part changes (shallowly), at most once per frame. */
export function useStore<T extends object, U>(store: Store<T>, select: (s: T) => U): U {
  const memo = useRef<{ state: T; select: (s: T) => U; value: U } | null>(null);
  const read = () => {
    const state = store.published();
    const m = memo.current;
    if (m && m.state === state && m.select === select) return m.value;
    const value = select(state);
    memo.current = { state, select, value: m && shallowEqual(m.value, value) ? m.value : value };
    return memo.current.value;
  };
  return useSyncExternalStore(store.subscribe, read, read);
}
