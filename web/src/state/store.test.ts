// The store and its frame hub: writes are read at once, published together once per frame.
import { describe, expect, it } from 'vitest';
import { createStore, FrameHub, shallowEqual } from './store';

/** A hub whose frames the test runs by hand, counting frame requests and batches. */
function manualHub() {
  const frames: (() => void)[] = [];
  const counts = { requests: 0, batches: 0 };
  const hub = new FrameHub({
    request: (flush) => {
      counts.requests++;
      frames.push(flush);
    },
    batch: (fn) => {
      counts.batches++;
      fn();
    },
  });
  const frame = () => frames.splice(0).forEach((f) => f());
  return { hub, counts, frame };
}

describe('createStore with a FrameHub', () => {
  it('reads writes at once and publishes them on the next frame', () => {
    const { hub, frame } = manualHub();
    const s = createStore({ view: 0, cursor: 0 }, hub);
    const seen: number[] = [];
    s.subscribe(() => seen.push(s.published().view));
    s.set({ view: 1 });
    s.set((st) => ({ view: st.view + 1 }));
    expect(s.get().view).toBe(2);
    expect(s.published().view).toBe(0);
    expect(hub.pending).toBe(true);
    frame();
    expect(s.published().view).toBe(2);
    expect(seen).toEqual([2]);
    expect(hub.pending).toBe(false);
  });

  it('publishes every store written in a frame in one batch, with one frame request', () => {
    const { hub, counts, frame } = manualHub();
    const fast = createStore({ view: 0 }, hub);
    const slow = createStore({ notice: '' }, hub);
    let notified = 0;
    fast.subscribe(() => notified++);
    slow.subscribe(() => notified++);
    for (let i = 1; i <= 10; i++) fast.set({ view: i });
    slow.set({ notice: 'hi' });
    expect(counts.requests).toBe(1);
    frame();
    expect(counts.batches).toBe(1);
    expect(notified).toBe(2);
    expect(hub.publishes).toBe(1);
  });

  it('does not publish a write that changes nothing', () => {
    const { hub, counts, frame } = manualHub();
    const set = new Set([1]);
    const s = createStore({ view: 1, groups: set }, hub);
    s.set({ view: 1, groups: set });
    expect(hub.pending).toBe(false);
    frame();
    expect(counts.batches).toBe(0);
  });

  it('publishes at once when asked (controlled inputs), and the frame then has nothing to do', () => {
    const { hub, counts, frame } = manualHub();
    const s = createStore({ text: '' }, hub);
    let notified = 0;
    s.subscribe(() => notified++);
    s.set({ text: 'a' }, { now: true });
    expect(s.published().text).toBe('a');
    expect(notified).toBe(1);
    frame();
    expect(counts.batches).toBe(1);
    expect(notified).toBe(1);
  });

  it('stops notifying after unsubscribe', () => {
    const { hub, frame } = manualHub();
    const s = createStore({ n: 0 }, hub);
    let notified = 0;
    const off = s.subscribe(() => notified++);
    off();
    s.set({ n: 1 });
    frame();
    expect(notified).toBe(0);
  });
});

describe('shallowEqual', () => {
  it('compares own keys by Object.is', () => {
    const a = { x: 1 };
    expect(shallowEqual({ a, b: 2 }, { a, b: 2 })).toBe(true);
    expect(shallowEqual({ a, b: 2 }, { a: { x: 1 }, b: 2 })).toBe(false);
    expect(shallowEqual({ a }, { a, b: undefined })).toBe(false);
    expect(shallowEqual(NaN, NaN)).toBe(true);
    expect(shallowEqual(null, {})).toBe(false);
  });
});
