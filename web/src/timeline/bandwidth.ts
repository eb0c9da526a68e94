// CFS bandwidth data derived from a window: the intervals during which a group's cfs_rq on a
// CPU is throttled, and the runtime_remaining / pool counter series of bandwidth-limited groups.
// Throttled intervals come from the throttle / unthrottle markers when the window has any;
// otherwise (markers are only sent for zoomed-in windows) they are read off the counters: a
// cfs_rq whose runtime_remaining stays ≤ 0 past an instant is counted as throttled until it
// turns positive again (at the next refill or period refresh).
import { CounterKind, EventKind, GROUP_NODE, type ScenarioMeta, type WindowData } from '../engine/protocol';

export interface ThrottleInterval {
  tg: number;
  cpu: number;
  t0: number;
  t1: number;
}

export interface ThrottleData {
  intervals: ThrottleInterval[];
  /** Unthrottle instants (markers, or the ends of counter-derived intervals inside the window). */
  unthrottles: { t: number; cpu: number; tg: number }[];
  source: 'markers' | 'counters' | 'none';
}

/** Task groups with a quota, root excluded. */
export function bandwidthGroups(meta: ScenarioMeta) {
  return (meta.groups ?? []).filter((g) => g.quota_ns !== null && g.parent !== null);
}

/** (tg, cpu) of each cfs_rq id. */
function cfsRqIndex(meta: ScenarioMeta): Map<number, { tg: number; cpu: number }> {
  const m = new Map<number, { tg: number; cpu: number }>();
  for (const g of meta.groups ?? []) g.cfs_rq.forEach((q, cpu) => m.set(q, { tg: g.tg, cpu }));
  return m;
}

/** One counter series in time order: runtime_remaining keyed by cfs_rq id, the pool by tg. */
export function counterSeries(data: WindowData, kind: number, key: number): { t: number[]; v: number[] } {
  const c = data.counters;
  const idx: number[] = [];
  for (let i = 0; i < c.t.length; i++) if (c.kind[i] === kind && c.key[i] === key) idx.push(i);
  idx.sort((a, b) => c.t[a] - c.t[b] || a - b);
  return { t: idx.map((i) => c.t[i]), v: idx.map((i) => c.value[i]) };
}

/** Throttled intervals and unthrottle instants of the window; see the file comment. */
export function throttleData(meta: ScenarioMeta, data: WindowData | null): ThrottleData {
  if (!data) return { intervals: [], unthrottles: [], source: 'none' };
  const fromMarkers = markerThrottles(data);
  if (fromMarkers) return fromMarkers;
  const intervals: ThrottleInterval[] = [];
  const unthrottles: ThrottleData['unthrottles'] = [];
  for (const [q, { tg, cpu }] of cfsRqIndex(meta)) {
    const { t, v } = counterSeries(data, CounterKind.runtimeRemaining, q);
    let start: number | null = null;
    for (let i = 0; i < t.length; i++) {
      // Only the last value at each instant counts (a refill follows an overrun at once).
      if (i + 1 < t.length && t[i + 1] === t[i]) continue;
      if (v[i] <= 0 && start === null) start = t[i];
      else if (v[i] > 0 && start !== null) {
        intervals.push({ tg, cpu, t0: start, t1: t[i] });
        if (t[i] >= data.t0) unthrottles.push({ t: t[i], cpu, tg });
        start = null;
      }
    }
    if (start !== null) intervals.push({ tg, cpu, t0: start, t1: data.t1 });
  }
  return { intervals, unthrottles, source: intervals.length ? 'counters' : 'none' };
}

function markerThrottles(data: WindowData): ThrottleData | null {
  const { t, kind, cpu, task } = data.markers;
  const open = new Map<string, number>();
  const intervals: ThrottleInterval[] = [];
  const unthrottles: ThrottleData['unthrottles'] = [];
  let any = false;
  for (let i = 0; i < t.length; i++) {
    if (kind[i] !== EventKind.throttle && kind[i] !== EventKind.unthrottle) continue;
    any = true;
    const tg = task[i] - GROUP_NODE;
    const key = `${tg}:${cpu[i]}`;
    if (kind[i] === EventKind.throttle) {
      if (!open.has(key)) open.set(key, t[i]);
    } else {
      // An unthrottle without its throttle in the window: throttled since the window start.
      intervals.push({ tg, cpu: cpu[i], t0: open.get(key) ?? data.t0, t1: t[i] });
      unthrottles.push({ t: t[i], cpu: cpu[i], tg });
      open.delete(key);
    }
  }
  if (!any) return null;
  for (const [key, t0] of open) {
    const [tg, c] = key.split(':').map(Number);
    intervals.push({ tg, cpu: c, t0, t1: data.t1 });
  }
  return { intervals, unthrottles, source: 'markers' };
}

/** Whether the cfs_rq of `tg` on `cpu` is throttled at `t`. */
export function throttledAt(d: ThrottleData, tg: number, cpu: number, t: number): boolean {
  return d.intervals.some((iv) => iv.tg === tg && iv.cpu === cpu && iv.t0 <= t && t < iv.t1);
}

export interface CounterTrack {
  tg: number;
  cpu: number;
  label: string;
  cfsRq: number;
  quota: number;
}

/** At most this many counter tracks per block. */
export const MAX_COUNTER_TRACKS = 8;

/**
 * One track per bandwidth-limited group and CPU its tasks may run on (the union of their
 * affinities; an empty affinity is every CPU), at most MAX_COUNTER_TRACKS in all. Fixed by the
 * scenario, so the block's height does not change with the data.
 */
export function counterTracks(meta: ScenarioMeta): CounterTrack[] {
  const out: CounterTrack[] = [];
  for (const g of bandwidthGroups(meta)) {
    const cpus = new Set<number>();
    for (const t of meta.tasks) {
      if ((t.tg ?? 0) !== g.tg) continue;
      const aff = t.affinity.length ? t.affinity : Array.from({ length: meta.cpus }, (_, c) => c);
      aff.forEach((c) => c < meta.cpus && cpus.add(c));
    }
    for (const cpu of [...cpus].sort((a, b) => a - b)) {
      if (out.length >= MAX_COUNTER_TRACKS) return out;
      out.push({ tg: g.tg, cpu, label: `${g.path} runtime`, cfsRq: g.cfs_rq[cpu], quota: g.quota_ns ?? 0 });
    }
  }
  return out;
}
