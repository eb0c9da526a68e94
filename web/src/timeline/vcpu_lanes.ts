// The vCPU lanes under the pCPU lanes, as pure functions: which rows a block shows (a header
// row per VM, then one thin lane per vCPU in vCPU index order), and each vCPU's state over
// the window — running on a pCPU (from the run slices), runnable but preempted (waiting for a
// pCPU), halted (blocked in HLT), spinning in the guest, holding a guest lock — derived from
// the window's marker columns. Markers are only sent for windows that are zoomed in far
// enough (MARKER_LIMIT in the worker); without them only the running segments are known.
import { EventKind, Flag, NO_TASK, SwitchReason, type ScenarioMeta, type WindowData } from '../engine/protocol';
import { matchLocks, matchSpins } from './render_kvm';

/** Height of a VM header row, CSS px. */
export const VM_HEADER_H = 15;
/** Height of a vCPU lane while at most VCPU_ROOMY_LANES lanes are shown, CSS px. */
export const VCPU_LANE_H = 14;
/** Height of a vCPU lane beyond that (e.g. a 16-vCPU VM), CSS px. */
export const VCPU_LANE_H_DENSE = 10;
export const VCPU_ROOMY_LANES = 8;
/** Gap between the pCPU lanes and the first VM header, CSS px. */
export const VCPU_BLOCK_GAP = 4;
/** Beyond this many vCPUs in all, every VM starts collapsed (its header row only). */
export const VCPU_AUTO_COLLAPSE = 32;
/** At most this many vCPU lanes are drawn; the rest of an expanded VM is left out. */
export const MAX_VCPU_LANES = 64;

export interface VcpuRow {
  kind: 'vm' | 'vcpu';
  vm: number;
  /** Top of the row relative to the block's top, CSS px. */
  y: number;
  h: number;
  label: string;
  /** The vCPU's task id (vCPU rows), else -1. */
  task: number;
  /** The vCPU index within its VM (vCPU rows), else -1. */
  vcpu: number;
  /** The VM's vCPU count (header rows). */
  vcpus: number;
  /** Header rows: whether the VM's lanes are hidden. */
  collapsed: boolean;
  /** Header rows: lanes left out by the MAX_VCPU_LANES cap. */
  hidden: number;
}

export interface VcpuLayout {
  rows: VcpuRow[];
  /** Total height including the gap above, CSS px; 0 without VMs. */
  height: number;
  lanes: number;
  headers: number;
  /** The task ids of each VM's vCPUs, in vCPU index order. */
  vcpusOf: number[][];
}

/** Each VM's vCPU tasks in vCPU index order (a task's rank among its VM's tasks in file order). */
export function vcpusByVm(meta: ScenarioMeta): number[][] {
  const vms = meta.vms ?? [];
  const out: number[][] = vms.map(() => []);
  meta.tasks.forEach((t, id) => {
    const vm = t.vm ?? null;
    if (vm !== null && vm >= 0 && vm < out.length) out[vm].push(id);
  });
  return out;
}

/** Whether VM `vm` is collapsed: the user's choice, else collapsed beyond VCPU_AUTO_COLLAPSE. */
export function vmCollapsed(meta: ScenarioMeta, overrides: ReadonlyMap<number, boolean>, vm: number): boolean {
  const o = overrides.get(vm);
  if (o !== undefined) return o;
  return vcpusByVm(meta).reduce((n, l) => n + l.length, 0) > VCPU_AUTO_COLLAPSE;
}

/** The rows of the vCPU block; `overrides` maps a VM to collapsed (true) or expanded (false). */
export function vcpuLayout(meta: ScenarioMeta, overrides: ReadonlyMap<number, boolean>): VcpuLayout {
  const vms = meta.vms ?? [];
  const vcpusOf = vcpusByVm(meta);
  const total = vcpusOf.reduce((n, l) => n + l.length, 0);
  if (vms.length === 0) return { rows: [], height: 0, lanes: 0, headers: 0, vcpusOf };
  const auto = total > VCPU_AUTO_COLLAPSE;
  const shut = vms.map((_, vm) => overrides.get(vm) ?? auto);
  const shown = Math.min(
    MAX_VCPU_LANES,
    vcpusOf.reduce((n, l, vm) => n + (shut[vm] ? 0 : l.length), 0),
  );
  const laneH = shown <= VCPU_ROOMY_LANES ? VCPU_LANE_H : VCPU_LANE_H_DENSE;
  const rows: VcpuRow[] = [];
  let y = VCPU_BLOCK_GAP;
  let lanes = 0;
  vms.forEach((name, vm) => {
    const tasks = vcpusOf[vm];
    const header: VcpuRow = { kind: 'vm', vm, y, h: VM_HEADER_H, label: name, task: -1, vcpu: -1, vcpus: tasks.length, collapsed: shut[vm], hidden: 0 };
    rows.push(header);
    y += VM_HEADER_H;
    if (shut[vm]) return;
    tasks.forEach((task, vcpu) => {
      if (lanes >= MAX_VCPU_LANES) {
        header.hidden++;
        return;
      }
      rows.push({ kind: 'vcpu', vm, y, h: laneH, label: meta.tasks[task].name, task, vcpu, vcpus: 0, collapsed: false, hidden: 0 });
      y += laneH;
      lanes++;
    });
  });
  return { rows, height: y, lanes, headers: vms.length, vcpusOf };
}

export type VcpuState = 'running' | 'preempted' | 'halted';

/** A span of one vCPU's time. Running spans carry the pCPU and whether the slice merges
 * several short runs (at bucket resolution). */
export interface VcpuSegment {
  start: number;
  end: number;
  state: VcpuState;
  cpu: number;
  merged: boolean;
}

export interface VcpuStates {
  /** Per task id (vCPU tasks only; other tasks get an empty list), in time order per state. */
  segments: VcpuSegment[][];
  /** Per task id: intervals [start, end] spent spin-waiting in the guest. */
  spins: [number, number][][];
  /** Per task id: intervals [start, end] holding a guest lock. */
  locks: [number, number][][];
  /** Per VM, the times of its guest ops (lock acquisitions and IPIs handled) in the window. */
  opsByVm: number[][];
  /** Whether the window's markers were sent (a window with too many events gets none, and
   * then only running is known). */
  known: boolean;
}

type Phase = 'running' | 'runnable' | 'halted' | 'gone' | 'unknown';

/** Each vCPU's states over the window; see the file comment. Runnable and halted spans come
 * from a per-vCPU state machine over the switch, wakeup, sleep and exit markers (a vCPU's
 * host sleep is an HLT: the model blocks a vCPU thread only there or in a host `sleep`
 * step). Spans of one state closer than the window's bucket are merged. */
export function vcpuStates(meta: ScenarioMeta, data: WindowData): VcpuStates {
  const n = meta.tasks.length;
  const isVcpu = meta.tasks.map((t) => (t.vm ?? null) !== null);
  const segments: VcpuSegment[][] = [];
  const spins: [number, number][][] = Array.from({ length: n }, () => []);
  const locks: [number, number][][] = Array.from({ length: n }, () => []);
  const opsByVm: number[][] = (meta.vms ?? []).map(() => []);
  const { t0, t1 } = data;
  const tol = Math.max(0, data.bucket);

  // Running spans and off-CPU spans are built in time order in two lists per task; a span
  // extends the previous one of its list when they are alike and at most a bucket apart.
  const runs: VcpuSegment[][] = Array.from({ length: n }, () => []);
  const offs: VcpuSegment[][] = Array.from({ length: n }, () => []);
  const push = (task: number, seg: VcpuSegment) => {
    if (seg.end <= seg.start) return;
    const list = seg.state === 'running' ? runs[task] : offs[task];
    const last = list[list.length - 1];
    if (last && last.state === seg.state && last.cpu === seg.cpu && last.merged === seg.merged && seg.start - last.end <= tol && seg.start >= last.start) {
      last.end = Math.max(last.end, seg.end);
      return;
    }
    list.push(seg);
  };

  // Running: the run slices (one source for the pCPU and the vCPU lanes).
  const sl = data.slices;
  const order = Array.from(sl.start.keys()).sort((a, b) => sl.start[a] - sl.start[b]);
  for (const i of order) {
    const task = sl.task[i];
    if (task < n && isVcpu[task]) push(task, { start: sl.start[i], end: sl.end[i], state: 'running', cpu: sl.cpu[i], merged: sl.count[i] > 1 });
  }

  // Runnable and halted: a state machine per vCPU over its markers.
  const m = data.markers;
  // No markers at all: either nothing happened in the window (no run slice starts or ends
  // inside it) or it had too many events for them to be sent.
  // (The engine rounds the window's ends to whole ns, hence the slack.)
  const end = Math.min(t1, meta.duration_ns) - 1;
  let switched = false;
  for (let i = 0; i < sl.start.length && !switched; i++) switched = sl.start[i] > t0 + 1 || sl.end[i] < end;
  const known = m.t.length > 0 || !switched;
  const phase = new Array<Phase>(n).fill('unknown');
  const since = new Float64Array(n).fill(t0);
  const seen = new Uint8Array(n);
  const close = (task: number, at: number) => {
    const p = phase[task];
    if (p === 'runnable' || p === 'halted') push(task, { start: since[task], end: at, state: p === 'runnable' ? 'preempted' : 'halted', cpu: -1, merged: false });
  };
  const enter = (task: number, at: number, next: Phase, before: Phase) => {
    if (task >= n || !isVcpu[task]) return;
    if (!seen[task]) {
      // The first marker tells the state the window opened in.
      seen[task] = 1;
      phase[task] = before;
    }
    close(task, at);
    phase[task] = next;
    since[task] = at;
  };
  for (let i = 0; i < m.t.length; i++) {
    const at = m.t[i];
    const task = m.task[i];
    switch (m.kind[i]) {
      case EventKind.switch: {
        const prev = m.arg[i];
        if (prev !== task && prev !== NO_TASK && prev < n && isVcpu[prev]) {
          const r = m.val[i];
          // Switched out: blocked (a sleep marker came first) or exited, else still runnable.
          if (r === SwitchReason.sleep) enter(prev, at, 'halted', 'running');
          else if (r === SwitchReason.exit) enter(prev, at, 'gone', 'running');
          else enter(prev, at, 'runnable', 'running');
        }
        if (task !== NO_TASK) enter(task, at, 'running', 'runnable');
        break;
      }
      case EventKind.sleep:
        enter(task, at, 'halted', 'running');
        break;
      case EventKind.wakeup:
      case EventKind.wakeupNew:
        enter(task, at, 'runnable', 'halted');
        break;
      case EventKind.exit:
        enter(task, at, 'gone', 'running');
        break;
      case EventKind.guestLock:
      case EventKind.ipiHandled: {
        const vm = task < n ? (meta.tasks[task].vm ?? null) : null;
        if (vm !== null && vm < opsByVm.length) opsByVm[vm].push(at);
        break;
      }
      default:
    }
  }
  // A vCPU without markers kept one state over the window: the state of its latest entity
  // sample at or before t0 (queued and not delayed: runnable; else blocked), when the window
  // carries its samples.
  if (known) {
    const sm = data.samples;
    const flags = new Int32Array(n).fill(-1);
    for (let i = 0; i < sm.t.length; i++) {
      const task = sm.task[i];
      if (task >= n || !isVcpu[task] || seen[task]) continue;
      if (sm.t[i] <= t0 || flags[task] < 0) flags[task] = sm.flags[i];
    }
    for (let task = 0; task < n; task++) {
      if (seen[task] || flags[task] < 0 || flags[task] & Flag.curr) continue;
      phase[task] = flags[task] & Flag.onRq && !(flags[task] & Flag.delayed) ? 'runnable' : 'halted';
    }
  }
  for (let task = 0; task < n; task++) if (isVcpu[task]) close(task, t1);
  for (let task = 0; task < n; task++) segments[task] = runs[task].concat(offs[task]).sort((a, b) => a.start - b.start);

  for (const [s, e] of matchSpins(m)) {
    const task = m.task[s];
    if (task < n && isVcpu[task]) spins[task].push([m.t[s], e >= 0 ? m.t[e] : t1]);
  }
  for (const [l, u] of matchLocks(m)) {
    const task = m.task[l];
    if (task < n && isVcpu[task]) locks[task].push([m.t[l], u >= 0 ? m.t[u] : t1]);
  }
  return { segments, spins, locks, opsByVm, known };
}

/** How many of VM `vm`'s guest ops lie in [t0, t1). */
export function opsIn(states: VcpuStates, vm: number, t0: number, t1: number): number {
  const times = states.opsByVm[vm] ?? [];
  const lowerBound = (t: number) => {
    let a = 0;
    let b = times.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (times[mid] < t) a = mid + 1;
      else b = mid;
    }
    return a;
  };
  return lowerBound(t1) - lowerBound(t0);
}

/** The pCPU lane labels: "CPU 3", with the host topology when the scenario has one
 * ("CPU 3 s0c3t0": socket, core, SMT thread). */
export function pcpuLabels(meta: ScenarioMeta): string[] {
  return Array.from({ length: meta.cpus }, (_, c) => {
    const t = meta.topology?.[c];
    return t ? `CPU ${c} s${t.socket}c${t.core}t${t.thread}` : `CPU ${c}`;
  });
}
