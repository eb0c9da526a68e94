// The window cache: what it fetches, when it reuses what it has, and what it does with late,
// stale and failed replies.
import { describe, expect, it } from 'vitest';
import { fetchCovers, fetchRange, WindowCache, type Fetched, type WindowCacheState } from './window_cache';

/** A fetch whose replies the test settles by hand. */
function harness() {
  const calls: { range: Fetched; resolve: (d: string) => void; reject: (e: Error) => void }[] = [];
  const states: WindowCacheState<string>[] = [];
  const cache = new WindowCache<string>((s) => states.push(s));
  const fetch = (range: Fetched) => new Promise<string>((resolve, reject) => calls.push({ range, resolve, reject }));
  const want = (t0: number, t1: number, bucket = 1, key = 'k') => cache.want({ key, view: { t0, t1 }, bucket, end: 1000 }, fetch);
  const tick = () => new Promise((r) => setTimeout(r, 0));
  return { cache, calls, states, want, tick };
}

describe('fetchRange and fetchCovers', () => {
  it('fetches half a window more on each side, inside [0, end]', () => {
    expect(fetchRange({ t0: 100, t1: 200 }, 1000)).toEqual({ t0: 50, t1: 250 });
    expect(fetchRange({ t0: 10, t1: 110 }, 140)).toEqual({ t0: 0, t1: 140 });
  });

  it('covers a view inside the range at a bucket within ×1.5, for the same key', () => {
    const f = { ...fetchRange({ t0: 100, t1: 200 }, 1000), bucket: 1, key: 'a' };
    expect(fetchCovers(f, { key: 'a', view: { t0: 120, t1: 220 }, bucket: 1.2 })).toBe(true);
    expect(fetchCovers(f, { key: 'a', view: { t0: 120, t1: 260 }, bucket: 1 })).toBe(false);
    expect(fetchCovers(f, { key: 'a', view: { t0: 120, t1: 220 }, bucket: 2 })).toBe(false);
    expect(fetchCovers(f, { key: 'a', view: { t0: 120, t1: 220 }, bucket: 0.5 })).toBe(false);
    expect(fetchCovers(f, { key: 'b', view: { t0: 120, t1: 220 }, bucket: 1 })).toBe(false);
    expect(fetchCovers(null, { key: 'a', view: { t0: 0, t1: 1 }, bucket: 1 })).toBe(false);
  });
});

describe('WindowCache', () => {
  it('fetches the over-fetched range, then reuses it while the view stays inside', async () => {
    const h = harness();
    h.want(100, 200);
    expect(h.calls.map((c) => [c.range.t0, c.range.t1, c.range.bucket, c.range.key])).toEqual([[50, 250, 1, 'k']]);
    expect(h.cache.state).toMatchObject({ data: null, loading: true });
    h.calls[0].resolve('A');
    await h.tick();
    expect(h.cache.state).toMatchObject({ data: 'A', loading: false, error: null, fetched: { t0: 50, t1: 250 } });
    h.want(60, 160);
    h.want(140, 240, 1.4);
    expect(h.calls).toHaveLength(1);
    h.want(200, 300);
    expect(h.calls).toHaveLength(2);
  });

  it('refetches for another resolution or another key', async () => {
    const h = harness();
    h.want(100, 200);
    h.calls[0].resolve('A');
    await h.tick();
    h.want(100, 200, 2);
    h.calls[1].resolve('B');
    await h.tick();
    h.want(100, 200, 2, 'other');
    expect(h.calls.map((c) => [c.range.bucket, c.range.key])).toEqual([
      [1, 'k'],
      [2, 'k'],
      [2, 'other'],
    ]);
  });

  it('keeps the previous data while a new fetch is in flight', async () => {
    const h = harness();
    h.want(100, 200);
    h.calls[0].resolve('A');
    await h.tick();
    h.want(500, 600);
    expect(h.cache.state).toMatchObject({ data: 'A', loading: true });
    h.calls[1].resolve('B');
    await h.tick();
    expect(h.cache.state).toMatchObject({ data: 'B', loading: false, fetched: { t0: 450, t1: 650 } });
  });

  it('has one fetch in flight; of the views wanted meanwhile only the latest is fetched next', async () => {
    const h = harness();
    h.want(100, 200);
    h.want(300, 400);
    h.want(500, 600);
    h.want(120, 220); // inside what is being fetched: nothing more to fetch
    expect(h.calls).toHaveLength(1);
    h.want(700, 800);
    h.calls[0].resolve('A');
    await h.tick();
    expect(h.calls.map((c) => c.range.t0)).toEqual([50, 650]);
    expect(h.cache.state).toMatchObject({ data: 'A', loading: true });
    h.calls[1].resolve('B');
    await h.tick();
    expect(h.cache.state).toMatchObject({ data: 'B', loading: false });
  });

  it('drops a reply for a key no longer wanted', async () => {
    const h = harness();
    h.want(100, 200, 1, 'run1');
    h.want(100, 200, 1, 'run2');
    h.calls[0].resolve('old');
    await h.tick();
    expect(h.cache.state.data).toBeNull();
    expect(h.calls.map((c) => c.range.key)).toEqual(['run1', 'run2']);
    h.calls[1].resolve('new');
    await h.tick();
    expect(h.cache.state).toMatchObject({ data: 'new', fetched: { key: 'run2' }, loading: false });
  });

  it('drops replies from before a reset', async () => {
    const h = harness();
    h.want(100, 200);
    h.calls[0].resolve('A');
    await h.tick();
    h.want(500, 600);
    h.cache.reset();
    expect(h.cache.state).toMatchObject({ data: null, fetched: null, loading: false });
    h.calls[1].resolve('late');
    await h.tick();
    expect(h.cache.state.data).toBeNull();
    h.want(500, 600);
    expect(h.calls).toHaveLength(3);
  });

  it('keeps an error beside the previous data until a fetch succeeds', async () => {
    const h = harness();
    h.want(100, 200);
    h.calls[0].resolve('A');
    await h.tick();
    h.want(500, 600);
    h.calls[1].reject(new Error('no such run'));
    await h.tick();
    expect(h.cache.state).toMatchObject({ data: 'A', error: 'no such run', loading: false, fetched: { t0: 50 } });
    h.want(500, 600);
    h.calls[2].resolve('B');
    await h.tick();
    expect(h.cache.state).toMatchObject({ data: 'B', error: null });
  });

  it('turns a fetch that throws into an error', async () => {
    const states: WindowCacheState<string>[] = [];
    const cache = new WindowCache<string>((s) => states.push(s));
    cache.want({ key: 'k', view: { t0: 0, t1: 10 }, bucket: 1, end: 100 }, () => {
      throw new Error('worker gone');
    });
    await new Promise((r) => setTimeout(r, 0));
    expect(cache.state).toMatchObject({ data: null, error: 'worker gone', loading: false });
    expect(states.at(-1)).toBe(cache.state);
  });
});
