// The replay overlay and EEVDF lanes against a recording fake 2D context.
import { describe, expect, it } from 'vitest';
import { SPAN_LOST, SPAN_OPEN, type EevdfWindowData, type ReplayWindowData } from '../../engine/protocol';
import { fakeCtx } from '../fake_ctx';
import { CPU_LANE_H, GUTTER_W } from '../layout';
import { makeTimeScale } from '../time_scale';
import { asWindowData, CAP_W, renderReplayOverlay, WAKE_COLOUR } from './render_replay';
import { DEPTH_MORE_COLOUR, DEPTH_ONE_COLOUR, renderDepthTracks } from './render_depth';
import { eevdfLanes, renderEevdfLanes } from './render_eevdf';
import { replayRows, spanRowAt } from './ReplayTimeline';
import { spanState } from './states';

// 1 ns per px over [0, 1000] ns.
const width = GUTTER_W + 1000;
const scale = makeTimeScale(0, 1000, GUTTER_W, width);

interface Span {
  cpu: number;
  task: number;
  start: number;
  end: number;
  state: number;
  count?: number;
}

interface Depth {
  cpu: number;
  start: number;
  end: number;
  n: number;
}

function replayData(
  spans: Span[],
  wakes: { t: number; cpu: number; run: number; runCpu: number; kind?: number }[] = [],
  migs: { t: number; from: number; to: number }[] = [],
  depths: Depth[] = [],
): ReplayWindowData {
  return {
    t0: 0,
    t1: 1000,
    bucket: 1,
    span_cpu: Uint32Array.from(spans.map((s) => s.cpu)),
    span_task: Uint32Array.from(spans.map((s) => s.task)),
    span_start: Float64Array.from(spans.map((s) => s.start)),
    span_end: Float64Array.from(spans.map((s) => s.end)),
    span_state: Uint32Array.from(spans.map((s) => s.state)),
    span_count: Uint32Array.from(spans.map((s) => s.count ?? 1)),
    span_index: Uint32Array.from(spans.map((_, i) => i)),
    wake_t: Float64Array.from(wakes.map((w) => w.t)),
    wake_cpu: Uint32Array.from(wakes.map((w) => w.cpu)),
    wake_waker: Uint32Array.from(wakes.map(() => 0)),
    wake_wakee: Uint32Array.from(wakes.map(() => 1)),
    wake_target: Int32Array.from(wakes.map((w) => w.runCpu)),
    wake_kind: Uint32Array.from(wakes.map((w) => w.kind ?? 1)),
    wake_run_t: Float64Array.from(wakes.map((w) => w.run)),
    wake_run_cpu: Uint32Array.from(wakes.map((w) => w.runCpu)),
    mig_t: Float64Array.from(migs.map((m) => m.t)),
    mig_cpu: Uint32Array.from(migs.map((m) => m.to)),
    mig_task: Uint32Array.from(migs.map(() => 1)),
    mig_orig: Int32Array.from(migs.map((m) => m.from)),
    mig_dest: Int32Array.from(migs.map((m) => m.to)),
    depth_cpu: Uint32Array.from(depths.map((d) => d.cpu)),
    depth_start: Float64Array.from(depths.map((d) => d.start)),
    depth_end: Float64Array.from(depths.map((d) => d.end)),
    depth_n: Uint32Array.from(depths.map((d) => d.n)),
    depth_count: Uint32Array.from(depths.map(() => 1)),
    omitted: Uint32Array.from([0, 0]),
  };
}

const opts = (data: ReplayWindowData) => ({ data, scale, width, top: 0, cpus: 2, wakeKinds: new Set([1, 2]) });

describe('renderReplayOverlay', () => {
  it('caps each run with the state it left in, lettered where it fits', () => {
    const data = replayData([
      { cpu: 0, task: 0, start: 0, end: 100, state: 0x100 }, // R+
      { cpu: 0, task: 1, start: 100, end: 300, state: 0 }, // R
      { cpu: 1, task: 2, start: 0, end: 400, state: 0x01 }, // S
      { cpu: 1, task: 3, start: 400, end: 405, state: 0x02 }, // D, too narrow for a cap
      { cpu: 1, task: 4, start: 405, end: 600, state: 0x02, count: 3 }, // merged: no state
      { cpu: 0, task: 5, start: 300, end: 1000, state: SPAN_OPEN }, // still running
      { cpu: 1, task: 6, start: 600, end: 700, state: SPAN_LOST },
    ]);
    const ctx = fakeCtx();
    const r = renderReplayOverlay(ctx, opts(data));
    expect(r.caps).toMatchObject({ preempted: 1, runnable: 1, sleeping: 1, disk: 0, lost: 1, open: 0 });
    expect(r.letters).toBe(4);
    // The R+ cap: CAP_W wide at the run's end, in the R+ colour.
    const cap = ctx.of('fillRect').find((c) => c.fillStyle === spanState(0x100).colour)!;
    expect(cap.args).toEqual([GUTTER_W + 100 - CAP_W, 1, CAP_W, CPU_LANE_H - 2]);
    const letters = ctx.of('fillText').map((c) => c.args[0]);
    expect(letters).toEqual(expect.arrayContaining(['R+', 'R', 'S', '?']));
  });

  it('links wakeups to where the wakee ran, unless too dense; draws migrations', () => {
    const data = replayData(
      [],
      [
        { t: 100, cpu: 0, run: 150, runCpu: 1 },
        { t: 200, cpu: 1, run: -1, runCpu: 0xffffffff },
        { t: 300, cpu: 1, run: 320, runCpu: 1, kind: 0 }, // sched_waking: not linked
      ],
      [{ t: 500, from: 0, to: 1 }],
    );
    const ctx = fakeCtx();
    const r = renderReplayOverlay(ctx, opts(data));
    expect(r.wakePoints).toBe(2);
    expect(r.wakeLinks).toBe(1);
    expect(r.migrations).toBe(1);
    // The link starts at the waker's lane middle and ends at the wakee's lane top (CPU 1 is below).
    const moves = ctx.of('moveTo').map((c) => c.args);
    expect(moves).toContainEqual([GUTTER_W + 100, CPU_LANE_H / 2]);
    const dense = replayData([], Array.from({ length: 400 }, (_, i) => ({ t: i * 2, cpu: 0, run: i * 2 + 1, runCpu: 1 })));
    const r2 = renderReplayOverlay(fakeCtx(), opts(dense));
    expect(r2.wakePoints).toBe(400);
    expect(r2.wakeLinks).toBe(0);
    expect(WAKE_COLOUR).toMatch(/^#/);
  });

  it('puts each CPU on its own row when the rows have a pitch', () => {
    const data = replayData([{ cpu: 1, task: 0, start: 0, end: 100, state: 0x100 }], [], [{ t: 500, from: 0, to: 1 }]);
    const ctx = fakeCtx();
    renderReplayOverlay(ctx, { ...opts(data), laneHeight: 40, pitch: 90 });
    const cap = ctx.of('fillRect').find((c) => c.fillStyle === spanState(0x100).colour)!;
    expect(cap.args).toEqual([GUTTER_W + 100 - CAP_W, 90 + 1, CAP_W, 40 - 2]);
    // The migration arrow runs from CPU 0's lane middle to CPU 1's.
    expect(ctx.of('moveTo').map((c) => c.args)).toContainEqual([GUTTER_W + 500, 20]);
    expect(ctx.of('lineTo').map((c) => c.args)).toContainEqual([GUTTER_W + 500, 90 + 20]);
    const rows = replayRows(2);
    expect(rows.laneH).toBeGreaterThan(CPU_LANE_H);
    expect(rows.pitch).toBeGreaterThan(rows.laneH + rows.depthH);
  });

  it('gives one CPU its spans as lane 0', () => {
    const data = replayData([
      { cpu: 0, task: 0, start: 0, end: 100, state: 0 },
      { cpu: 1, task: 1, start: 50, end: 60, state: 0 },
      { cpu: 1, task: 2, start: 60, end: 90, state: 0 },
    ]);
    const one = asWindowData(data, 1);
    expect(Array.from(one.slices.cpu)).toEqual([0, 0]);
    expect(Array.from(one.slices.task)).toEqual([1, 2]);
    expect(asWindowData(data, 1)).toBe(one);
    expect(asWindowData(data, 3).slices.task.length).toBe(0);
  });

  it('finds the run under a time on a CPU', () => {
    const data = replayData([
      { cpu: 0, task: 0, start: 0, end: 100, state: 0 },
      { cpu: 1, task: 1, start: 50, end: 60, state: 0 },
    ]);
    expect(spanRowAt(data, 0, 50, 0)).toBe(0);
    expect(spanRowAt(data, 1, 62, 1)).toBeNull();
    expect(spanRowAt(data, 1, 62, 3)).toBe(1);
  });
});

describe('renderDepthTracks', () => {
  it('draws each CPU\'s depth as steps under its lane, more than one runnable in its own colour', () => {
    const data = replayData(
      [],
      [],
      [],
      [
        { cpu: 0, start: 0, end: 100, n: 1 },
        { cpu: 0, start: 100, end: 300, n: 3 },
        { cpu: 0, start: 300, end: 400, n: 0 }, // idle: nothing drawn
        { cpu: 1, start: 200, end: 2000, n: 2 }, // cut at the plot's end
      ],
    );
    const ctx = fakeCtx();
    const top = (c: number) => 50 + c * 100;
    const r = renderDepthTracks(ctx, { data, scale, width, cpus: 2, trackTop: top, trackHeight: 44, maxDepth: 4, labels: ['runnable\nidle·ovl 1 µs', 'runnable'] });
    expect(r).toEqual({ segments: 3, overloaded: 2 });
    const unit = (44 - 4) / 4;
    const bars = ctx.of('fillRect').filter((c) => c.fillStyle === DEPTH_ONE_COLOUR || c.fillStyle === DEPTH_MORE_COLOUR);
    expect(bars.map((c) => [c.fillStyle, ...c.args])).toEqual([
      [DEPTH_ONE_COLOUR, GUTTER_W, 50 + 44 - 1 - unit, 100, unit],
      [DEPTH_MORE_COLOUR, GUTTER_W + 100, 50 + 44 - 1 - 3 * unit, 200, 3 * unit],
      [DEPTH_MORE_COLOUR, GUTTER_W + 200, 150 + 44 - 1 - 2 * unit, width + 1 - (GUTTER_W + 200), 2 * unit],
    ]);
    // Two-line gutter label, and the scale's top.
    const texts = ctx.of('fillText').map((c) => c.args[0]);
    expect(texts).toEqual(expect.arrayContaining(['runnable', 'idle·ovl 1 µs', '4', '0']));
    // No data: the tracks and labels only.
    expect(renderDepthTracks(fakeCtx(), { data: null, scale, width, cpus: 2, trackTop: top, trackHeight: 44, maxDepth: 1 })).toEqual({ segments: 0, overloaded: 0 });
  });
});

function eevdfData(rows: { t: number; pid: number; kind: number; v: number; d: number }[]): EevdfWindowData {
  const f = (k: 'v' | 'd' | 't') => Float64Array.from(rows.map((r) => r[k]));
  return {
    t0: 0,
    t1: 1000,
    t: f('t'),
    pid: Int32Array.from(rows.map((r) => r.pid)),
    cpu: Uint32Array.from(rows.map(() => 1)),
    kind: Uint32Array.from(rows.map((r) => r.kind)),
    v: f('v'),
    d: f('d'),
    lag: new Float64Array(rows.length),
    slice: Float64Array.from(rows.map(() => 1.4e6)),
    weight: Float64Array.from(rows.map(() => 1048576)),
    state: Int32Array.from(rows.map(() => 0)),
    nr: Uint32Array.from(rows.map(() => 2)),
    omitted: Uint32Array.from([0]),
  };
}

describe('EEVDF lanes', () => {
  it('orders lanes by samples and draws one dot per task sample, coloured by eligibility', () => {
    const lanes = eevdfLanes([
      { pid: 23, comm: 'kworker/1:0', samples: 3 },
      { pid: 22695, comm: 'k_a', samples: 150 },
      { pid: 9, comm: 'idle', samples: 0 },
    ]);
    expect(lanes.map((l) => l.pid)).toEqual([22695, 23]);
    const data = eevdfData([
      { t: 100, pid: 22695, kind: 0, v: -200_000, d: 1_200_000 }, // eligible
      { t: 200, pid: 22695, kind: 0, v: 800_000, d: 2_200_000 }, // not
      { t: 200, pid: 22695, kind: 1, v: 0, d: 1_400_000 }, // its group
      { t: 300, pid: 23, kind: 0, v: 0, d: 1_000 },
      { t: 300, pid: 4242, kind: 0, v: 0, d: 1_000 }, // no lane
    ]);
    const ctx = fakeCtx();
    const r = renderEevdfLanes(ctx, { data, lanes, scale, width, top: 0 });
    expect(r.lanes).toBe(2);
    expect(r.points).toBe(3);
    expect(r.groupPoints).toBe(1);
    // The hit test finds the sample nearest the pointer in its lane.
    expect(r.hit.sampleAt(GUTTER_W + 201, 20)).toBe(1);
    expect(r.hit.sampleAt(GUTTER_W + 300, 56 + 20)).toBe(3);
    expect(r.hit.sampleAt(GUTTER_W + 600, 20)).toBeNull();
  });
});
