// The replay view's thread-state tracks as a list of rows: tasks grouped by process (tgid when
// the trace gives it, else each task alone), processes ordered by their threads' time on a CPU
// (busiest first, then by pid), threads likewise inside a process; pinned threads first in a
// group of their own; a filter by name or pid keeps the matching threads (a process's name
// matching keeps all of its threads), `cgroup:<substring>` the threads whose cgroup path holds
// it (the engine's `TraceTask.cgroup`: the trace's cgroup_attach_task, else a layout file's);
// collapsed processes show their header only. The idle
// task (pid 0) has no track. Pure: the component renders these rows and asks the engine for
// the visible threads' states.
import type { TraceTask } from '../../engine/protocol';

export type TrackRow =
  | { kind: 'process'; key: string; proc: string; tgid: number; label: string; threads: number; runningNs: number; collapsed: boolean; pinnedGroup: boolean }
  | { kind: 'thread'; key: string; task: number; label: string; pinned: boolean; depth: number };

export interface TrackOpts {
  /** Name or pid filter (case-insensitive substring of the comm, or a pid prefix), or
   * `cgroup:<substring>` (case-insensitive, of the cgroup path; `cgroup:` alone: any cgroup). */
  filter: string;
  /** Pinned task ids, in the order pinned. */
  pinned: readonly number[];
  /** Collapsed processes (their `processOf` keys). */
  collapsed: ReadonlySet<string>;
}

interface Proc {
  key: string;
  tgid: number;
  tasks: number[];
  runningNs: number;
}

/** A task's process: its tgid, else the task alone (its pid and generation: a reused pid is
 * another process). */
export function processOf(t: TraceTask): string {
  return t.tgid !== null ? String(t.tgid) : `${t.pid}#${t.generation}`;
}

function threadLabel(t: TraceTask): string {
  return t.generation > 0 ? `${t.comm} ${t.pid}#${t.generation}` : `${t.comm} ${t.pid}`;
}

/** The filter prefix that matches cgroup paths instead of names. */
export const CGROUP_FILTER = 'cgroup:';

/** The cgroup part of a (lower-cased, trimmed) filter, or null for a name or pid filter. */
export function cgroupQuery(q: string): string | null {
  return q.startsWith(CGROUP_FILTER) ? q.slice(CGROUP_FILTER.length).trim() : null;
}

function matches(t: TraceTask, q: string): boolean {
  if (!q) return true;
  const cg = cgroupQuery(q);
  if (cg !== null) return t.cgroup !== null && t.cgroup.toLowerCase().includes(cg);
  if (/^\d+$/.test(q)) return String(t.pid).startsWith(q) || String(t.tgid ?? '').startsWith(q);
  return t.comm.toLowerCase().includes(q) || t.comms.toLowerCase().includes(q);
}

/** The rows, top to bottom. */
export function trackRows(tasks: readonly TraceTask[], o: TrackOpts): TrackRow[] {
  const q = o.filter.trim().toLowerCase();
  const pinned = new Set(o.pinned);
  const procs = new Map<string, Proc>();
  // The process's own thread (pid == tgid) names it; else its busiest thread.
  const leader = new Map<string, number>();
  tasks.forEach((t, i) => {
    if (t.pid === 0) return;
    const key = processOf(t);
    let p = procs.get(key);
    if (!p) procs.set(key, (p = { key, tgid: t.tgid ?? t.pid, tasks: [], runningNs: 0 }));
    p.tasks.push(i);
    p.runningNs += t.running_ns;
    if (t.pid === t.tgid) leader.set(key, i);
  });
  const byBusy = (a: number, b: number) => tasks[b].running_ns - tasks[a].running_ns || tasks[a].pid - tasks[b].pid || a - b;
  const rows: TrackRow[] = [];
  const pinnedShown = o.pinned.filter((i) => i < tasks.length && tasks[i].pid !== 0);
  if (pinnedShown.length > 0) {
    rows.push({ kind: 'process', key: 'pinned', proc: '', tgid: -1, label: 'pinned', threads: pinnedShown.length, runningNs: 0, collapsed: false, pinnedGroup: true });
    for (const i of pinnedShown) rows.push({ kind: 'thread', key: `pin-${i}`, task: i, label: threadLabel(tasks[i]), pinned: true, depth: 0 });
  }
  const list = [...procs.values()].sort((a, b) => b.runningNs - a.runningNs || a.tgid - b.tgid || (a.key < b.key ? -1 : 1));
  for (const p of list) {
    p.tasks.sort(byBusy);
    const name = tasks[leader.get(p.key) ?? p.tasks[0]].comm;
    const whole = q !== '' && cgroupQuery(q) === null && (name.toLowerCase().includes(q) || (/^\d+$/.test(q) && String(p.tgid).startsWith(q)));
    const shown = p.tasks.filter((i) => !pinned.has(i) && (whole || matches(tasks[i], q)));
    if (shown.length === 0) continue;
    // A process of one thread is that thread's row alone.
    if (p.tasks.length === 1) {
      rows.push({ kind: 'thread', key: `t-${shown[0]}`, task: shown[0], label: threadLabel(tasks[shown[0]]), pinned: false, depth: 0 });
      continue;
    }
    const collapsed = o.collapsed.has(p.key);
    rows.push({ kind: 'process', key: `p-${p.key}`, proc: p.key, tgid: p.tgid, label: `${name} ${p.tgid}`, threads: p.tasks.length, runningNs: p.runningNs, collapsed, pinnedGroup: false });
    if (collapsed) continue;
    for (const i of shown) rows.push({ kind: 'thread', key: `t-${i}`, task: i, label: threadLabel(tasks[i]), pinned: false, depth: 1 });
  }
  return rows;
}

/** The task ids of the thread rows in `rows[a..b)`. */
export function visibleTasks(rows: readonly TrackRow[], a: number, b: number): number[] {
  const out: number[] = [];
  for (let i = Math.max(0, a); i < Math.min(rows.length, b); i++) {
    const r = rows[i];
    if (r.kind === 'thread') out.push(r.task);
  }
  return out;
}
