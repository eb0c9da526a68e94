// Per-CPU PELT tracks of the simulated view, one small track per CPU under the CPU lanes (when
// the run logs them: `meta.cpu_counters`, smp = "fair" with a task that may move): the root
// cfs_rq's util_avg as a filled area over the CPU's capacity (1024), its load_avg as a line
// and rq->nr_running as a dashed stepped line, both on scales shared by every CPU of the window so the
// tracks compare. The values come from the counters query (CounterKind cpu_load, cpu_util,
// cpu_nr_running keyed by CPU, each series' last value before the window first); each is a
// step function held until its next row.
import { CounterKind, type WindowData } from '../engine/protocol';
import type { Ctx2D } from './layout';
import { COLOURS } from './palette';
import { affineOf, type TimeScale } from './time_scale';

/** Height of one CPU's PELT track, CSS px (gutter: name, legend, scales on three lines). */
export const CPU_TRACK_H = 36;
/** Height of one track on hosts with more than COMPACT_FROM CPUs (name and legend on one
 * line, the scales on the second), so that 16 CPUs do not push the task lanes a screen down. */
export const CPU_TRACK_COMPACT_H = 22;
export const COMPACT_FROM = 4;

/** The height of each PELT track on a host of `cpus` CPUs. */
export function cpuTrackHeight(cpus: number): number {
  return cpus > COMPACT_FROM ? CPU_TRACK_COMPACT_H : CPU_TRACK_H;
}
/** The util scale: a CPU's capacity (SCHED_CAPACITY_SCALE). */
export const CAPACITY = 1024;

/** nr_running's dash pattern (the legend draws its word the same way). */
export const NR_DASH = [4, 3];

export const TRACK_STYLE = {
  util: '#64b5f6',
  load: '#e65100',
  nr: '#263238',
} as const;

/** One step series: values `v[i]` from `t[i]` until `t[i + 1]`. */
export interface StepSeries {
  t: number[];
  v: number[];
}

export interface CpuTrackData {
  load: StepSeries[];
  util: StepSeries[];
  nr: StepSeries[];
  /** The load scale's top: at least the capacity, else the window's highest load. */
  maxLoad: number;
  /** The nr_running scale's top: at least 2. */
  maxNr: number;
}

/** Each CPU's series of the window, in one pass over the counters. */
export function cpuTrackData(data: WindowData, cpus: number): CpuTrackData {
  const mk = () => Array.from({ length: cpus }, (): StepSeries => ({ t: [], v: [] }));
  const out: CpuTrackData = { load: mk(), util: mk(), nr: mk(), maxLoad: CAPACITY, maxNr: 2 };
  const c = data.counters;
  for (let i = 0; i < c.t.length; i++) {
    const cpu = c.key[i];
    if (cpu >= cpus) continue;
    const kind = c.kind[i];
    const s = kind === CounterKind.cpuLoad ? out.load : kind === CounterKind.cpuUtil ? out.util : kind === CounterKind.cpuNrRunning ? out.nr : null;
    if (!s) continue;
    // Prior rows (timed at the window's start) come first; rows are otherwise in time order.
    const ser = s[cpu];
    const t = Math.max(c.t[i], data.t0);
    if (ser.t.length && ser.t[ser.t.length - 1] === t) ser.v[ser.v.length - 1] = c.value[i];
    else {
      ser.t.push(t);
      ser.v.push(c.value[i]);
    }
    if (kind === CounterKind.cpuLoad) out.maxLoad = Math.max(out.maxLoad, c.value[i]);
    if (kind === CounterKind.cpuNrRunning) out.maxNr = Math.max(out.maxNr, c.value[i]);
  }
  return out;
}

/** The value of a step series at `t` (null before its first row). */
export function valueAt(s: StepSeries, t: number): number | null {
  let lo = 0;
  let hi = s.t.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (s.t[mid] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : s.v[lo - 1];
}

/** A step series as polyline points [x, y, x, y, …] over [x0, x1], held to `tEnd`; runs
 * of rows inside one pixel collapse to their first and last values. */
export function stepPoints(s: StepSeries, tEnd: number, x: (t: number) => number, y: (v: number) => number, x0: number, x1: number): number[] {
  const pts: number[] = [];
  const n = s.t.length;
  for (let i = 0; i < n; i++) {
    const xa = Math.max(x(s.t[i]), x0);
    const xb = Math.min(x(i + 1 < n ? s.t[i + 1] : tEnd), x1);
    if (xb < x0 || xa > x1) continue;
    const yv = y(s.v[i]);
    const last = pts.length - 2;
    if (last >= 0 && pts[last + 1] === yv) {
      pts[last] = xb;
      continue;
    }
    if (last >= 0 && pts[last] !== xa) pts.push(xa, pts[last + 1]);
    pts.push(xa, yv, Math.max(xb, xa), yv);
  }
  return pts;
}

export interface CpuTracksOpts {
  data: WindowData | null;
  cpus: number;
  scale: TimeScale;
  width: number;
  /** y of CPU 0's track. */
  top: number;
  /** Where the run ends (series are held to min(window end, this)). */
  end: number;
  gutter: number;
}

export interface CpuTracksResult {
  tracks: number;
  /** Polyline points drawn (load + util + nr). */
  points: number;
}

/** Draws the tracks; see the file comment. */
export function renderCpuTracks(ctx: Ctx2D, o: CpuTracksOpts): CpuTracksResult {
  const h = cpuTrackHeight(o.cpus);
  const compact = h === CPU_TRACK_COMPACT_H;
  const res: CpuTracksResult = { tracks: 0, points: 0 };
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  const plotX0 = o.gutter;
  const plotX1 = o.width;
  const d = o.data ? cpuTrackData(o.data, o.cpus) : null;
  const tEnd = o.data ? Math.min(o.data.t1, o.end) : 0;
  const pad = 3;
  for (let c = 0; c < o.cpus; c++) {
    const top = o.top + c * h;
    ctx.fillStyle = COLOURS.laneBg;
    ctx.fillRect(0, top, o.width, h);
    ctx.fillStyle = COLOURS.laneSep;
    ctx.fillRect(0, top + h - 0.5, o.width, 0.5);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.font = compact ? '9px system-ui, sans-serif' : '10px system-ui, sans-serif';
    ctx.fillStyle = COLOURS.mutedText;
    const name = compact ? `CPU ${c}` : `CPU ${c} PELT`;
    ctx.fillText(name, 6, top + (compact ? 7 : 8));
    // The legend, each word in its series' colour (beside the name when compact).
    let lx = compact ? 6 + ctx.measureText(name).width + 5 : 6;
    ctx.font = compact ? '8px system-ui, sans-serif' : '9px system-ui, sans-serif';
    for (const [word, colour] of [['util', TRACK_STYLE.util], ['load', TRACK_STYLE.load], [compact ? 'nr' : 'nr_running', TRACK_STYLE.nr]] as const) {
      ctx.fillStyle = colour;
      ctx.fillText(word, lx, top + (compact ? 7 : 19));
      lx += ctx.measureText(word).width + 4;
    }
    res.tracks++;
    if (!d) continue;
    ctx.save();
    ctx.beginPath();
    ctx.rect(plotX0, top, plotX1 - plotX0, h);
    ctx.clip();
    const yOf = (max: number) => (v: number) => top + pad + (1 - Math.min(1, Math.max(0, v / max))) * (h - 2 * pad);
    const base = top + h - pad;
    // util_avg: a filled area.
    const util = stepPoints(d.util[c], tEnd, x, yOf(CAPACITY), plotX0, plotX1);
    if (util.length) {
      ctx.beginPath();
      ctx.moveTo(util[0], base);
      for (let i = 0; i < util.length; i += 2) ctx.lineTo(util[i], util[i + 1]);
      ctx.lineTo(util[util.length - 2], base);
      ctx.closePath();
      ctx.globalAlpha = 0.55;
      ctx.fillStyle = TRACK_STYLE.util;
      ctx.fill();
      ctx.globalAlpha = 1;
    }
    const line = (pts: number[], colour: string, width: number, dash: number[]) => {
      if (!pts.length) return;
      ctx.beginPath();
      ctx.moveTo(pts[0], pts[1]);
      for (let i = 2; i < pts.length; i += 2) ctx.lineTo(pts[i], pts[i + 1]);
      ctx.strokeStyle = colour;
      ctx.lineWidth = width;
      ctx.setLineDash(dash);
      ctx.stroke();
      ctx.setLineDash([]);
    };
    const load = stepPoints(d.load[c], tEnd, x, yOf(d.maxLoad), plotX0, plotX1);
    line(load, TRACK_STYLE.load, 1.5, []);
    const nr = stepPoints(d.nr[c], tEnd, x, yOf(d.maxNr), plotX0, plotX1);
    // Dashed: for nice-0 hogs load ≈ 1024 × nr_running, and the two lines coincide.
    line(nr, TRACK_STYLE.nr, 1, NR_DASH);
    res.points += (util.length + load.length + nr.length) / 2;
    ctx.restore();
    // The scales, in the gutter under the legend (util's is the capacity, 1024).
    ctx.font = '8px system-ui, sans-serif';
    ctx.fillStyle = COLOURS.mutedText;
    ctx.textBaseline = 'middle';
    ctx.fillText(`load ≤ ${Math.round(d.maxLoad)} · nr ≤ ${d.maxNr}`, 6, top + (compact ? 16 : 29));
  }
  return res;
}
