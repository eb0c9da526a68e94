// The per-CPU PELT tracks: series from the counters, step geometry, and what gets drawn.
import { describe, expect, it } from 'vitest';
import { CounterKind } from '../engine/protocol';
import { fakeCtx } from './fake_ctx';
import { windowData } from './fixtures';
import { GUTTER_W } from './layout';
import { CPU_TRACK_COMPACT_H, CPU_TRACK_H, cpuTrackData, cpuTrackHeight, renderCpuTracks, stepPoints, TRACK_STYLE, valueAt } from './cpu_tracks';
import { makeTimeScale } from './time_scale';

const K = CounterKind;
// CPU 0: load 300 then 1500, util 200 then 900, nr 1 then 3; CPU 1: util 512 only. The first
// rows are the prior values (timed at the window's start, 100). A bandwidth counter with key
// 0 must be ignored.
const counters = [
  { t: 100, kind: K.cpuLoad, key: 0, value: 300 },
  { t: 100, kind: K.cpuUtil, key: 0, value: 200 },
  { t: 100, kind: K.cpuNrRunning, key: 0, value: 1 },
  { t: 100, kind: K.cpuUtil, key: 1, value: 512 },
  { t: 100, kind: K.runtimeRemaining, key: 0, value: 5_000_000 },
  { t: 400, kind: K.cpuLoad, key: 0, value: 1500 },
  { t: 400, kind: K.cpuNrRunning, key: 0, value: 3 },
  { t: 600, kind: K.cpuUtil, key: 0, value: 900 },
  { t: 700, kind: K.cpuLoad, key: 5, value: 9999 },
];
const data = windowData(100, 1100, [], [], [], counters);

describe('cpuTrackData', () => {
  it('splits the counters per CPU and kind, with shared scales', () => {
    const d = cpuTrackData(data, 2);
    expect(d.load[0]).toEqual({ t: [100, 400], v: [300, 1500] });
    expect(d.util[0]).toEqual({ t: [100, 600], v: [200, 900] });
    expect(d.nr[0]).toEqual({ t: [100, 400], v: [1, 3] });
    expect(d.util[1]).toEqual({ t: [100], v: [512] });
    expect(d.load[1].t).toEqual([]);
    // CPU 5 is not drawn: its 9999 does not set the scale.
    expect(d.maxLoad).toBe(1500);
    expect(d.maxNr).toBe(3);
  });

  it('keeps the scales at the capacity and 2 tasks at least', () => {
    const d = cpuTrackData(windowData(0, 10, [], [], [], [{ t: 0, kind: K.cpuLoad, key: 0, value: 10 }]), 1);
    expect(d.maxLoad).toBe(1024);
    expect(d.maxNr).toBe(2);
  });

  it('reads a value at a time', () => {
    const d = cpuTrackData(data, 2);
    expect(valueAt(d.load[0], 50)).toBeNull();
    expect(valueAt(d.load[0], 100)).toBe(300);
    expect(valueAt(d.load[0], 399)).toBe(300);
    expect(valueAt(d.load[0], 400)).toBe(1500);
  });
});

describe('stepPoints', () => {
  const x = (t: number) => t;
  const y = (v: number) => 100 - v;
  it('draws a step function held to the end', () => {
    expect(stepPoints({ t: [0, 10], v: [1, 3] }, 30, x, y, 0, 100)).toEqual([0, 99, 10, 99, 10, 97, 30, 97]);
  });
  it('merges equal values and clips to the plot', () => {
    expect(stepPoints({ t: [0, 10, 20], v: [1, 1, 2] }, 200, x, y, 5, 50)).toEqual([5, 99, 20, 99, 20, 98, 50, 98]);
  });
});

describe('renderCpuTracks', () => {
  const width = GUTTER_W + 1000;
  const scale = makeTimeScale(100, 1100, GUTTER_W, width);
  it('draws one track per CPU with util filled and load and nr_running stroked', () => {
    const ctx = fakeCtx();
    const r = renderCpuTracks(ctx, { data, cpus: 2, scale, width, top: 50, end: 1e9, gutter: GUTTER_W });
    expect(r.tracks).toBe(2);
    expect(r.points).toBeGreaterThan(0);
    // CPU 0: a util area and two lines; CPU 1: a util area only.
    expect(ctx.of('fill').map((c) => c.fillStyle)).toEqual([TRACK_STYLE.util, TRACK_STYLE.util]);
    expect(ctx.count('stroke')).toBe(2);
    expect(ctx.of('fillText').filter((c) => String(c.args[0]).startsWith('CPU')).map((c) => c.args[0])).toEqual(['CPU 0 PELT', 'CPU 1 PELT']);
    // The second track starts one track height lower.
    const labels = ctx.of('fillText').filter((c) => String(c.args[0]).startsWith('CPU'));
    expect((labels[1].args[2] as number) - (labels[0].args[2] as number)).toBe(CPU_TRACK_H);
    // The scales, in the gutter: 1500 is the window's highest load, 3 its most tasks.
    const scaleChip = ctx.of('fillText').find((c) => c.args[0] === 'load ≤ 1500 · nr ≤ 3');
    expect(scaleChip).toBeDefined();
  });

  it('draws compact tracks on a host with many CPUs', () => {
    expect(cpuTrackHeight(4)).toBe(CPU_TRACK_H);
    expect(cpuTrackHeight(16)).toBe(CPU_TRACK_COMPACT_H);
    const ctx = fakeCtx();
    const r = renderCpuTracks(ctx, { data, cpus: 16, scale, width, top: 0, end: 1e9, gutter: GUTTER_W });
    expect(r.tracks).toBe(16);
    const labels = ctx.of('fillText').filter((c) => /^CPU \d+$/.test(String(c.args[0])));
    expect(labels).toHaveLength(16);
    expect((labels[15].args[2] as number) - (labels[0].args[2] as number)).toBe(15 * CPU_TRACK_COMPACT_H);
  });

  it('draws empty tracks before the window arrives', () => {
    const ctx = fakeCtx();
    const r = renderCpuTracks(ctx, { data: null, cpus: 3, scale, width, top: 0, end: 1e9, gutter: GUTTER_W });
    expect(r).toEqual({ tracks: 3, points: 0 });
    expect(ctx.count('stroke')).toBe(0);
  });
});
