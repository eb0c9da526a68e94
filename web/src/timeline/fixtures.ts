// Hand-made engine answers for the unit tests: window data, scenario metas and summaries, each
// complete (every field of the generated type), with what a test cares about overridden.
import type { ScenarioMeta, Summary, TaskMeta, TaskSummary, WindowData } from '../engine/protocol';

export interface SliceRow {
  cpu: number;
  task: number;
  start: number;
  end: number;
  count?: number;
}

export interface SampleRow {
  t: number;
  task: number;
  vruntime: number;
  deadline: number;
  avg: number;
  flags: number;
  cpu?: number;
}

export interface MarkerRow {
  t: number;
  kind: number;
  cpu: number;
  task?: number;
  arg?: number;
  val?: number;
}

export interface MigrationRow {
  t: number;
  task?: number;
  from: number;
  to: number;
  /** `MigrateClass` code (default 0, wake). */
  class?: number;
}

export interface CounterRow {
  t: number;
  kind: number;
  key: number;
  value: number;
}

/** Builds a WindowData from rows. */
export function windowData(
  t0: number,
  t1: number,
  slices: SliceRow[],
  samples: SampleRow[] = [],
  markers: MarkerRow[] = [],
  counters: CounterRow[] = [],
  migrations: MigrationRow[] = [],
): WindowData {
  return {
    variant: 'base',
    t0,
    t1,
    bucket: 1,
    tasks: [],
    counters: {
      t: Float64Array.from(counters, (c) => c.t),
      kind: Uint32Array.from(counters, (c) => c.kind),
      key: Uint32Array.from(counters, (c) => c.key),
      value: Float64Array.from(counters, (c) => c.value),
    },
    slices: {
      cpu: Uint32Array.from(slices, (s) => s.cpu),
      task: Uint32Array.from(slices, (s) => s.task),
      start: Float64Array.from(slices, (s) => s.start),
      end: Float64Array.from(slices, (s) => s.end),
      count: Uint32Array.from(slices, (s) => s.count ?? 1),
    },
    samples: {
      t: Float64Array.from(samples, (s) => s.t),
      task: Uint32Array.from(samples, (s) => s.task),
      cpu: Uint32Array.from(samples, (s) => s.cpu ?? 0),
      vruntime: Float64Array.from(samples, (s) => s.vruntime),
      deadline: Float64Array.from(samples, (s) => s.deadline),
      vlag: Float64Array.from(samples, (s) => s.avg - s.vruntime),
      vprot: Float64Array.from(samples, () => 0),
      avg: Float64Array.from(samples, (s) => s.avg),
      flags: Uint32Array.from(samples, (s) => s.flags),
    },
    markers: {
      t: Float64Array.from(markers, (m) => m.t),
      kind: Uint32Array.from(markers, (m) => m.kind),
      cpu: Uint32Array.from(markers, (m) => m.cpu),
      task: Uint32Array.from(markers, (m) => m.task ?? 0),
      arg: Uint32Array.from(markers, (m) => m.arg ?? 0),
      val: Float64Array.from(markers, (m) => m.val ?? 0),
    },
    migrations: {
      t: Float64Array.from(migrations, (m) => m.t),
      task: Uint32Array.from(migrations, (m) => m.task ?? 0),
      from: Uint32Array.from(migrations, (m) => m.from),
      to: Uint32Array.from(migrations, (m) => m.to),
      class: Uint32Array.from(migrations, (m) => m.class ?? 0),
    },
  };
}

/** A task of a scenario meta. */
export function taskMeta(name: string, over: Partial<TaskMeta> = {}): TaskMeta {
  return { name, nice: 0, policy: 'normal', affinity: [], slice_ns: null, tg: 0, vm: null, ...over };
}

/** A scenario meta: one CPU, no tasks and the root group unless overridden. */
export function scenarioMeta(over: Partial<ScenarioMeta> = {}): ScenarioMeta {
  return {
    name: 'test',
    description: null,
    seed: 1,
    duration_ns: 1e6,
    cpus: 1,
    hz: 250,
    base_slice_ns: 700_000,
    tick_ns: 4_000_000,
    yield: 'forfeit',
    lag_clamp: 'max_slice_tick',
    wakeup_preempt: 'machine',
    features: {},
    cgroups: [],
    groups: [{ tg: 0, path: '/', node: 0x8000_0000, parent: null, cfs_rq: [0], quota_ns: null, period_ns: null }],
    tasks: [],
    vms: [],
    cpu_counters: false,
    ...over,
  };
}

/** A scenario meta with tasks named `names`, each in VM `vm[i]` (null: a host task). */
export function vmMeta(names: string[], vm: (number | null)[], vms: string[], cpus = 2): ScenarioMeta {
  return scenarioMeta({ cpus, vms, tasks: names.map((name, i) => taskMeta(name, { vm: vm[i] })) });
}

/** A task's metrics: zero but for its name, share and `over`. */
export function taskSummary(name: string, share: number, over: Partial<TaskSummary> = {}): TaskSummary {
  return {
    name, cpu_time_ns: 0, share_pct: share, switches_out: 0, switches_out_runnable: 0, mean_run_ns: 0, yields: 0, yields_scheduled: 0, yields_to: 0, yield_to_calls: 0,
    guest_locks: 0, ple_exits: 0, ipis_answered: 0, ipi_latency_ns_mean: 0, yield_to_picks_mean: 0, yield_to_delay_ns_mean: 0, wakeups: 0, sleeps: 0,
    wakeup_latency_ns: { p50: 0, p99: 0, max: 0 }, migrations: 0, cpu_time_ns_by_cpu: [], ...over,
  };
}

/** A run's summary of `tasks`. */
export function summary(tasks: TaskSummary[], over: Partial<Summary> = {}): Summary {
  return {
    scenario: 'x', duration_ns: 1, digest: '', log_events: 0, switches: 0, queue_events: 0, tasks, cpu_idle_ns: [], idle_while_overloaded_ns: [],
    yield_to: { calls: 0, penalties: 0, rate_limited: 0, debounced: 0, credits: 0 }, cputimer: null, ...over,
  };
}
