// The A/B diff (TraceDiff, from the engine's import::diff) as the replay view shows it: which
// figures make the columns of the task and CPU tables, a figure's value in its unit (as
// `schedlab diff` prints it: shares with two decimals, latencies in µs, rates per second), the
// table as CSV, each task row's wakeup latencies (DiffLatencyCols) split by side, and a
// latency distribution as CDF points.

import type { CpuDiff, DiffLatencyCols, Figure, TaskDiff, TraceDiff, Unit } from '../../engine/protocol';
import { toCsv } from '../../base/csv';

/** A column of a diff table: the engine's figure name and its heading. */
export interface FigureColumn {
  name: string;
  label: string;
  title: string;
}

export const TASK_COLUMNS: FigureColumn[] = [
  { name: 'cpu', label: 'CPU %', title: "CPU time as a share of the trace's window (100 % = one CPU)" },
  { name: 'latency_p50', label: 'lat p50 µs', title: 'wakeup latency (wakeup to switch-in), median' },
  { name: 'latency_p90', label: 'p90 µs', title: 'wakeup latency, 90th percentile' },
  { name: 'latency_p99', label: 'p99 µs', title: 'wakeup latency, 99th percentile' },
  { name: 'latency_max', label: 'max µs', title: 'wakeup latency, maximum (one sample: never flagged)' },
  { name: 'wakeups', label: 'wakeups/s', title: 'wakeups (the latencies’ samples), per second of the window' },
  { name: 'switches', label: 'switches/s', title: 'times switched out, per second of the window' },
  { name: 'involuntary', label: 'invol./s', title: 'switched out still runnable (preempted), per second' },
  { name: 'migrations', label: 'migr./s', title: 'migrations per second' },
];

export const CPU_COLUMNS: FigureColumn[] = [
  { name: 'busy', label: 'busy %', title: 'time running a task, % of the window' },
  { name: 'depth_0', label: 'depth 0 %', title: "time with no runnable task, % of the CPU's known time" },
  { name: 'depth_1', label: '1 %', title: 'time with one runnable task (the running one)' },
  { name: 'depth_2', label: '2 %', title: 'time with two runnable tasks' },
  { name: 'depth_3', label: '3 %', title: 'time with three runnable tasks' },
  { name: 'depth_4+', label: '≥4 %', title: 'time with four or more runnable tasks' },
  { name: 'mean_depth', label: 'mean depth', title: 'mean runqueue depth (tasks)' },
  { name: 'idle_while_overloaded', label: 'idle·ovl %', title: 'idle while another CPU had more than one runnable task, % of the window' },
  { name: 'switches', label: 'switches/s', title: 'context switches per second' },
];

export const UNIT_NAMES: Record<Unit, string> = { percent: '%', ns: 'µs', per_second: '/s', depth: 'tasks' };

/** A value in its unit, as `schedlab diff` prints it ('-' when missing). */
export function formatFigure(unit: Unit, v: number | null, signed = false): string {
  if (v === null || !Number.isFinite(v)) return '-';
  const sign = signed && v >= 0 ? '+' : '';
  switch (unit) {
    case 'percent':
      return `${sign}${v.toFixed(2)}`;
    case 'ns':
      return `${sign}${(v / 1000).toFixed(1)}`;
    case 'per_second':
      return `${sign}${v.toFixed(1)}`;
    case 'depth':
      return `${sign}${v.toFixed(3)}`;
  }
}

/** The relative difference, `+12.3 %` ('' when A is zero or missing). */
export function formatRelative(f: Figure): string {
  return f.relative_pct === null ? '' : `${f.relative_pct >= 0 ? '+' : ''}${f.relative_pct.toFixed(1)} %`;
}

/** A row's figure by name. */
export function figureOf(row: TaskDiff | CpuDiff, name: string): Figure | undefined {
  return row.figures.find((f) => f.name === name);
}

/** The task's name in the table: `comm` or `comm → comm_b` for a renamed one. */
export function taskLabel(t: TaskDiff): string {
  return t.comm_b ? `${t.comm} → ${t.comm_b}` : t.comm;
}

/** In A only, in B only, or in both. */
export function presence(t: TaskDiff): 'both' | 'a' | 'b' {
  return t.tasks_a > 0 && t.tasks_b > 0 ? 'both' : t.tasks_a > 0 ? 'a' : 'b';
}

/** A row with nothing to compare: every figure zero or missing on both sides (a task that
 * only appears as a wakee of the traced CPUs). The table leaves it out, the CSV keeps it. */
export function emptyRow(row: TaskDiff | CpuDiff): boolean {
  return row.figures.every((f) => !f.a && !f.b);
}

/** Every figure of every row, one CSV line each (raw values: ns, %, per second). */
export function diffCsv(d: TraceDiff): string {
  const header = ['row', 'name', 'name_b', 'figure', 'unit', 'a', 'b', 'delta', 'relative_pct', 'count_a', 'count_b', 'flagged'];
  const line = (kind: string, name: string, nameB: string | null, f: Figure) => [
    kind,
    name,
    nameB,
    f.name,
    f.unit,
    f.a,
    f.b,
    f.delta,
    f.relative_pct,
    f.counts?.[0],
    f.counts?.[1],
    f.flagged ? 1 : 0,
  ];
  const rows = [
    ...d.tasks.flatMap((t) => t.figures.map((f) => line('task', t.comm, t.comm_b, f))),
    ...d.cpus.flatMap((c) => c.figures.map((f) => line('cpu', String(c.cpu), null, f))),
  ];
  return toCsv(header, rows);
}

/** Each task row's latencies (ns, ascending) in A and in B, from the columns (grouped by row,
 * A before B, as the worker sends them). */
export function splitLatencies(cols: DiffLatencyCols, rows: number): { a: Float64Array<ArrayBufferLike>; b: Float64Array<ArrayBufferLike> }[] {
  const out = Array.from({ length: rows }, (): { a: Float64Array<ArrayBufferLike>; b: Float64Array<ArrayBufferLike> } => ({ a: new Float64Array(0), b: new Float64Array(0) }));
  let i = 0;
  const n = cols.ns.length;
  while (i < n) {
    const row = cols.row[i];
    const side = cols.side[i];
    let j = i;
    while (j < n && cols.row[j] === row && cols.side[j] === side) j++;
    if (row < rows) out[row][side === 0 ? 'a' : 'b'] = cols.ns.subarray(i, j);
    i = j;
  }
  return out;
}

/** A CDF point: the share `p` (0..1] of samples at or below `ns`. */
export interface CdfPoint {
  ns: number;
  p: number;
}

/** The empirical CDF of ascending samples as at most `maxPoints` steps: the last sample of each
 * run of equal values (where the CDF reaches its level), thinned to evenly spaced ranks when
 * there are more; the first and the last sample are always kept. */
export function cdfPoints(sorted: ArrayLike<number>, maxPoints = 400): CdfPoint[] {
  const n = sorted.length;
  if (n === 0) return [];
  const ranks: number[] = [];
  for (let i = 0; i < n; i++) if (i === n - 1 || sorted[i + 1] !== sorted[i]) ranks.push(i);
  let keep = ranks;
  if (ranks.length > maxPoints) {
    const m = Math.max(2, maxPoints);
    keep = Array.from({ length: m }, (_, k) => ranks[Math.round((k * (ranks.length - 1)) / (m - 1))]);
  }
  return keep.map((i) => ({ ns: sorted[i], p: (i + 1) / n }));
}

/** `OLD=NEW, OLD2=NEW2` (as `schedlab diff --match OLD=NEW` takes them; commas or line breaks
 * between pairs) as `(comm in A, comm in B)` pairs, or what is wrong with it. */
export function parseMatches(text: string): { matches: [string, string][] } | { error: string } {
  const matches: [string, string][] = [];
  for (const part of text.split(/[,\n]/)) {
    const p = part.trim();
    if (!p) continue;
    const eq = p.indexOf('=');
    const [old, neu] = eq < 0 ? ['', ''] : [p.slice(0, eq).trim(), p.slice(eq + 1).trim()];
    if (!old || !neu) return { error: `"${p}": expected OLD=NEW (a comm of A = a comm of B)` };
    matches.push([old, neu]);
  }
  return { matches };
}
