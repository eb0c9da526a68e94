// Tests of the CPU-lane renderer against a recording fake 2D context.
import { describe, expect, it } from 'vitest';
import { fakeCtx } from './fake_ctx';
import { windowData } from './fixtures';
import { CPU_LANE_H, GUTTER_W } from './layout';
import { EventKind, SwitchReason } from '../engine/protocol';
import { taskColour, taskColourMerged } from './palette';
import { renderCpuLanes } from './render_cpu';
import { makeTimeScale } from './time_scale';

// 1 ns per px over [0, 1000] ns with the plot right of the gutter.
const width = GUTTER_W + 1000;
const scale = makeTimeScale(0, 1000, GUTTER_W, width);
const names = ['alpha', 'beta', 'gamma'];
const data = windowData(0, 1000, [
  { cpu: 0, task: 0, start: 0, end: 300 },
  { cpu: 0, task: 1, start: 400, end: 600, count: 5 },
  { cpu: 1, task: 2, start: 100, end: 900 },
]);
const opts = { data, scale, width, top: 0, cpus: 2, taskNames: names, selection: null };
const sliceRects = (ctx: ReturnType<typeof fakeCtx>) => ctx.of('fillRect').filter((c) => c.args[0] !== GUTTER_W || c.args[2] !== 1000);

describe('renderCpuLanes', () => {
  it('draws one rect per slice', () => {
    const ctx = fakeCtx();
    const r = renderCpuLanes(ctx, opts);
    expect(r.rects).toBe(3);
    // Two lane backgrounds plus the three slices.
    expect(ctx.count('fillRect')).toBe(5);
    expect(sliceRects(ctx).map((c) => c.args[0])).toEqual([GUTTER_W, GUTTER_W + 400, GUTTER_W + 100]);
  });

  it('still draws merged slices, in the darker colour', () => {
    const ctx = fakeCtx();
    renderCpuLanes(ctx, opts);
    const merged = sliceRects(ctx)[1];
    expect(merged.fillStyle).toBe(taskColourMerged(1));
    expect(sliceRects(ctx)[0].fillStyle).toBe(taskColour(0));
  });

  it('writes task names only where they fit', () => {
    const ctx = fakeCtx();
    renderCpuLanes(ctx, opts);
    const texts = ctx.of('fillText').map((c) => c.args[0]);
    expect(texts).toEqual(expect.arrayContaining(['CPU 0', 'CPU 1', 'alpha', 'beta', 'gamma']));
    const narrow = fakeCtx();
    renderCpuLanes(narrow, { ...opts, scale: makeTimeScale(0, 100000, GUTTER_W, width) });
    expect(narrow.of('fillText').map((c) => c.args[0])).toEqual(['CPU 0', 'CPU 1']);
  });

  it('skips slices outside the view', () => {
    const ctx = fakeCtx();
    const r = renderCpuLanes(ctx, { ...opts, scale: makeTimeScale(350, 1000, GUTTER_W, width) });
    expect(r.rects).toBe(2);
  });

  it('hit-tests the task under a point', () => {
    const { hit } = renderCpuLanes(fakeCtx(), opts);
    const mid0 = CPU_LANE_H / 2;
    const mid1 = CPU_LANE_H + CPU_LANE_H / 2;
    expect(hit.taskAt(GUTTER_W + 150, mid0)).toBe(0);
    expect(hit.taskAt(GUTTER_W + 500, mid0)).toBe(1);
    expect(hit.taskAt(GUTTER_W + 500, mid1)).toBe(2);
    expect(hit.taskAt(GUTTER_W + 350, mid0)).toBeNull();
    expect(hit.taskAt(GUTTER_W + 50, mid1)).toBeNull();
    expect(hit.taskAt(GUTTER_W + 150, 2 * CPU_LANE_H + 3)).toBeNull();
    expect(hit.taskAt(GUTTER_W - 10, mid0)).toBeNull();
    expect(hit.laneAt(mid1)).toBe(1);
  });

  it('outlines the selected task and draws markers', () => {
    const withMarkers = windowData(0, 1000, [{ cpu: 0, task: 0, start: 0, end: 300 }], [], [
      { t: 10, kind: EventKind.wakeup, cpu: 0 },
      { t: 300, kind: EventKind.sleep, cpu: 0, val: 1e6 },
      { t: 500, kind: EventKind.yield, cpu: 1 },
      { t: 600, kind: EventKind.switch, cpu: 1, task: 1, arg: 2, val: SwitchReason.wakeupPreempt },
      { t: 700, kind: EventKind.switch, cpu: 1, task: 2, arg: 1, val: SwitchReason.tick },
    ]);
    const ctx = fakeCtx();
    const r = renderCpuLanes(ctx, { ...opts, data: withMarkers, selection: 0 });
    expect(r.markers).toBe(4);
    expect(ctx.of('fillText').map((c) => c.args[0])).toContain('Y');
    expect(ctx.count('rect')).toBeGreaterThanOrEqual(2); // the clip and the selection outline
  });

  it('draws empty lanes without data', () => {
    const ctx = fakeCtx();
    const r = renderCpuLanes(ctx, { ...opts, data: null });
    expect(r.rects).toBe(0);
    expect(r.hit.taskAt(GUTTER_W + 10, 5)).toBeNull();
  });
});
