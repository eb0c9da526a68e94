// Tests of the redraw scheduler: requests coalesce per key into one call per frame.
import { describe, expect, it } from 'vitest';
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
