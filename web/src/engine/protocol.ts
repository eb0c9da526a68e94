// The worker protocol: discriminated unions with a version field. Only engine/ talks to the
// worker; results come back as typed-array columns (transferred, not copied) plus JSON.

import type { ImportRequest, ImportResponse } from './import_protocol';

export * from './import_protocol';

export const PROTOCOL_VERSION = 1;

export interface ScenarioTaskMeta {
  name: string;
  nice: number;
  policy: string;
  affinity: number[];
  slice_ns: number | null;
  /** Task group id: 0 = root, cgroup i = i + 1. */
  tg: number;
  /** Index into `ScenarioMeta.vms` when the task is a vCPU thread (vCPU index = its rank
   * among the VM's tasks in file order), else null. */
  vm: number | null;
}

export interface ScenarioMeta {
  name: string;
  description: string | null;
  seed: number;
  duration_ns: number;
  cpus: number;
  hz: number;
  base_slice_ns: number;
  tick_ns: number;
  yield: string;
  lag_clamp: string;
  features: Record<string, boolean>;
  cgroups: { path: string; parent: number; shares: number; quota_ns: number | null; period_ns: number }[];
  /** Every task group, the root (tg 0) first. */
  groups: GroupMeta[];
  tasks: ScenarioTaskMeta[];
  /** VM names, in order of first appearance (`vm = "…"` on tasks). */
  vms: string[];
  /** Host topology per CPU (`[host] sockets/cores_per_socket/threads_per_core`), absent for a
   * flat host. */
  topology?: CpuTopology[];
}

export interface CpuTopology {
  socket: number;
  core: number;
  thread: number;
}

export interface LocatedError {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** CPU run slices; slices with count > 1 merge several short runs. */
export interface SliceCols {
  cpu: Uint32Array;
  task: Uint32Array;
  start: Float64Array;
  end: Float64Array;
  count: Uint32Array;
}

/** Entity samples (virtual times are signed ns). */
export interface SampleCols {
  t: Float64Array;
  task: Uint32Array;
  cpu: Uint32Array;
  vruntime: Float64Array;
  deadline: Float64Array;
  vlag: Float64Array;
  vprot: Float64Array;
  avg: Float64Array;
  flags: Uint32Array;
}

/** Marker events: switches, wakeups, yields, sleeps, exits, placements. */
export interface MarkerCols {
  t: Float64Array;
  kind: Uint32Array;
  cpu: Uint32Array;
  task: Uint32Array;
  arg: Uint32Array;
  val: Float64Array;
}

/** CFS bandwidth counters: kind 0 = a cfs_rq's runtime_remaining (key = cfs_rq id),
 * kind 1 = a group's pool (key = task group id); values in ns. */
export interface CounterCols {
  t: Float64Array;
  kind: Uint32Array;
  key: Uint32Array;
  value: Float64Array;
}

/** A task group as the engine built it. */
export interface GroupMeta {
  tg: number;
  path: string;
  /** Its id in samples and picks: GROUP_NODE | tg. */
  node: number;
  parent: number | null;
  /** Its cfs_rq id on each CPU (counter keys). */
  cfs_rq: number[];
  quota_ns: number | null;
  period_ns: number | null;
}

/** Group entities are keyed GROUP_NODE | task group in samples, picks and markers. */
export const GROUP_NODE = 0x8000_0000;

export interface WindowData {
  variant: string;
  t0: number;
  t1: number;
  bucket: number;
  slices: SliceCols;
  samples: SampleCols;
  markers: MarkerCols;
  counters: CounterCols;
  /** Task ids whose samples were requested (empty: all). */
  tasks: number[];
}

export interface TaskMetrics {
  name: string;
  cpu_time_ns: number;
  share_pct: number;
  switches_out: number;
  switches_out_runnable: number;
  mean_run_ns: number;
  yields: number;
  /** yield_to() calls that yielded, and all calls (directed-yield hypercalls). */
  yields_to: number;
  yield_to_calls: number;
  /** vCPUs: guest spinlock acquisitions, pause-loop exits, IPIs answered and their mean latency. */
  guest_locks: number;
  ple_exits: number;
  ipis_answered: number;
  ipi_latency_ns_mean: number;
  wakeups: number;
  sleeps: number;
  wakeup_latency_ns: { p50: number; p99: number; max: number };
}

export interface Summary {
  scenario: string;
  duration_ns: number;
  digest: string;
  log_events: number;
  queue_events: number;
  tasks: TaskMetrics[];
  cpu_idle_ns: number[];
}

export interface Candidate {
  task: number;
  name: string;
  vruntime: number;
  deadline: number;
  vprot: number;
  lag: number;
  eligible: boolean;
  curr: boolean;
  protected: boolean;
  buddy: boolean;
  delayed: boolean;
}

export interface Pick {
  index: number;
  t: number;
  cpu: number;
  task: number;
  name: string;
  reason: string;
  why: string;
  avg_vruntime: number;
  candidates: Candidate[];
  /** The queue this choice was made on: "the root cfs_rq" or "the cfs_rq of /path". */
  level: string;
  /** Every level's pick of the same decision, root first (task-level picks only). */
  levels?: Pick[];
  /** Who had set this queue's next buddy at the pick: none, yield_to, wakeup, sleep, sustained. */
  buddy_src?: string;
}

export interface EntityState {
  task: number;
  cpu: number;
  on_rq: boolean;
  name: string;
  t: number;
  vruntime: number;
  deadline: number;
  vlag: number;
  vprot: number;
  avg_vruntime: number;
  lag: number;
  eligible: boolean;
  curr: boolean;
  delayed: boolean;
  protected: boolean;
  buddy: boolean;
}

export interface CursorState {
  t: number;
  cpus: { cpu: number; entities: EntityState[]; pick: Pick | null }[];
  /** Every task's latest sample at or before t, queued or not. */
  tasks: EntityState[];
}

/** One variant to simulate: a key and its NAME=VALUE overrides. */
export interface VariantSpec {
  key: string;
  overrides: [string, string][];
}

export type Request =
  | { v: 1; id: number; type: 'load'; file: string; text: string; variants: VariantSpec[] }
  | { v: 1; id: number; type: 'cancel' }
  | { v: 1; id: number; type: 'window'; variant: string; t0: number; t1: number; bucket: number; tasks: number[] }
  | { v: 1; id: number; type: 'cursor'; variant: string; t: number }
  | { v: 1; id: number; type: 'metrics'; variant: string }
  | ImportRequest;

export type Response =
  | { v: 1; id: number; type: 'progress'; done: number; total: number }
  | { v: 1; id: number; type: 'loaded'; meta: ScenarioMeta; variants: { key: string; digest: string; summary: Summary }[] }
  | { v: 1; id: number; type: 'error'; error: LocatedError }
  | { v: 1; id: number; type: 'cancelled' }
  | { v: 1; id: number; type: 'window'; data: WindowData }
  | { v: 1; id: number; type: 'cursor'; state: CursorState }
  | { v: 1; id: number; type: 'metrics'; summary: Summary; latencies: Float64Array }
  | ImportResponse;
