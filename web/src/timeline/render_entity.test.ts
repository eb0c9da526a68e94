// Tests of the entity-lane renderer against a recording fake 2D context.
import { describe, expect, it } from 'vitest';
import { fakeCtx } from './fake_ctx';
import { windowData } from './fixtures';
import { ENTITY_LANE_H, GUTTER_W, MIN_HALF_RANGE_NS } from './layout';
import { Flag } from '../engine/protocol';
import { COLOURS } from './palette';
import { laneY, renderEntityLanes } from './render_entity';
import { makeTimeScale } from './time_scale';

const width = GUTTER_W + 1000;
const scale = makeTimeScale(0, 1000, GUTTER_W, width);
const names = ['alpha', 'beta'];
const Q = Flag.onRq;
const R = Flag.onRq | Flag.curr;
// alpha runs and passes V; beta waits below V (eligible) then sleeps.
const data = windowData(0, 1000, [], [
  { t: -50, task: 0, vruntime: 5e6, deadline: 7e6, avg: 5e6, flags: R | Flag.eligible },
  { t: 500, task: 0, vruntime: 6e6, deadline: 7e6, avg: 5.5e6, flags: R },
  { t: 200, task: 1, vruntime: 4e6, deadline: 6e6, avg: 5e6, flags: Q | Flag.eligible },
  { t: 600, task: 1, vruntime: 4e6, deadline: 6e6, avg: 5.6e6, flags: 0 },
]);
const opts = { data, scale, width, top: 100, taskNames: names, selection: null, mode: 'relative' as const };

describe('renderEntityLanes', () => {
  it('puts a sample with vruntime == V on the lane midline', () => {
    const { hit } = renderEntityLanes(fakeCtx(), opts);
    const lane = hit.lanes[0];
    expect(lane.mid).toBe(100 + ENTITY_LANE_H / 2);
    // The first sample has vruntime == V: offset 0.
    expect(laneY(lane, 5e6 - 5e6)).toBe(lane.mid);
    expect(laneY(lane, lane.halfRange)).toBeCloseTo(lane.mid - lane.halfPx);
    expect(laneY(lane, -lane.halfRange)).toBeCloseTo(lane.mid + lane.halfPx);
  });

  it('fits a symmetric y-scale to the largest offset, at least one slice', () => {
    const { hit } = renderEntityLanes(fakeCtx(), opts);
    // alpha: max |deadline − V| = 2e6; beta: |vruntime − V| and |deadline − V| up to 1.6e6.
    expect(hit.lanes[0].halfRange).toBeGreaterThanOrEqual(2e6);
    expect(hit.lanes[0].centre).toBe(0);
    expect(hit.lanes[1].halfRange).toBeGreaterThanOrEqual(1.6e6);
    const empty = renderEntityLanes(fakeCtx(), { ...opts, data: windowData(0, 1000, []) });
    expect(empty.hit.lanes[0].halfRange).toBe(MIN_HALF_RANGE_NS);
  });

  it('counts the samples it drew and one lane per task', () => {
    const r = renderEntityLanes(fakeCtx(), opts);
    expect(r.samplesDrawn).toBe(4);
    expect(r.lanes).toBe(2);
  });

  it('starts the vruntime line at the midline and shades both lag colours', () => {
    const ctx = fakeCtx();
    renderEntityLanes(ctx, opts);
    const mid = 100 + ENTITY_LANE_H / 2;
    // The first vruntime − V point of alpha sits on V at the view's left edge.
    const moves = ctx.of('moveTo').filter((c) => c.args[1] === mid && Math.abs((c.args[0] as number) - (GUTTER_W - 2)) < 1e-6);
    expect(moves.length).toBeGreaterThan(0);
    const fills = ctx.of('fill').map((c) => c.fillStyle);
    expect(fills).toContain(COLOURS.eligible);
    expect(fills).toContain(COLOURS.ineligible);
    expect(ctx.of('fillText').map((c) => c.args[0])).toEqual(expect.arrayContaining(['alpha', 'beta', 'V']));
  });

  it('hit-tests lanes to tasks', () => {
    const { hit } = renderEntityLanes(fakeCtx(), opts);
    expect(hit.taskAt(500, 100 + 10)).toBe(0);
    expect(hit.taskAt(20, 100 + ENTITY_LANE_H + 10)).toBe(1);
    expect(hit.taskAt(500, 99)).toBeNull();
    expect(hit.taskAt(500, 100 + 2 * ENTITY_LANE_H)).toBeNull();
  });

  it('centres the absolute mode on the values in the window', () => {
    const { hit } = renderEntityLanes(fakeCtx(), { ...opts, mode: 'absolute' });
    const lane = hit.lanes[0];
    expect(lane.centre).toBe(6e6);
    expect(laneY(lane, 6e6)).toBe(lane.mid);
    expect(laneY(lane, 7e6)).toBeLessThan(lane.mid);
  });
});
