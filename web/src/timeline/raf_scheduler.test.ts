// Tests of the redraw scheduler: requests coalesce per key into one call per frame.
import { describe, expect, it, vi } from 'vitest';
import { cancelRedraw, pendingFrames, scheduleRedraw } from './raf_scheduler';

const nextFrame = () => new Promise((r) => setTimeout(r, 40));

describe('scheduleRedraw', () => {
  it('coalesces requests per key and reports pending frames', async () => {
    const calls: string[] = [];
    const key = {};
    scheduleRedraw(() => calls.push('old'), key);
    scheduleRedraw(() => calls.push('new'), key);
    scheduleRedraw(() => calls.push('other'));
    expect(pendingFrames()).toBe(1);
    await nextFrame();
    expect(calls.sort()).toEqual(['new', 'other']);
    expect(pendingFrames()).toBe(0);
  });

  it('drops cancelled requests', async () => {
    const calls: number[] = [];
    const key = {};
    scheduleRedraw(() => calls.push(1), key);
    cancelRedraw(key);
    expect(pendingFrames()).toBe(0);
    await nextFrame();
    expect(calls).toEqual([]);
  });
});

describe('scheduleRedraw within a frame', () => {
  it('runs a job scheduled by a job in the same frame, unless its key already ran', () => {
    vi.useFakeTimers();
    const frame = () => vi.advanceTimersByTime(16); // a frame without requestAnimationFrame (Node)
    const calls: string[] = [];
    const paint = {};
    const publish = {};
    scheduleRedraw(() => {
      calls.push('publish');
      // What a store publication does: the render it causes schedules a paint, and a write
      // made during it waits for the next frame.
      scheduleRedraw(() => calls.push('paint'), paint);
      scheduleRedraw(() => calls.push('publish again'), publish);
    }, publish);
    frame();
    expect(calls).toEqual(['publish', 'paint']);
    expect(pendingFrames()).toBe(1);
    frame();
    expect(calls).toEqual(['publish', 'paint', 'publish again']);
    expect(pendingFrames()).toBe(0);
    vi.useRealTimers();
  });
});

describe('scheduleRedraw superseded within a frame', () => {
  it('runs only the newer of two requests for a key when the newer comes from an earlier job', () => {
    vi.useFakeTimers();
    const calls: string[] = [];
    const canvas = {};
    // The store's publication first (it renders, and the render asks for a new paint), then
    // the paint that was asked for before the frame: the new paint wins, once.
    scheduleRedraw(() => {
      calls.push('publish');
      scheduleRedraw(() => calls.push('new paint'), canvas);
    }, 'hub');
    scheduleRedraw(() => calls.push('old paint'), canvas);
    vi.advanceTimersByTime(16);
    expect(calls).toEqual(['publish', 'new paint']);
    expect(pendingFrames()).toBe(0);
    vi.useRealTimers();
  });
});
