// Hand-made WindowData for the timeline's unit tests.
import type { ScenarioMeta, WindowData } from '../engine/protocol';

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

/** Builds a WindowData from rows. */
export function windowData(t0: number, t1: number, slices: SliceRow[], samples: SampleRow[] = [], markers: MarkerRow[] = []): WindowData {
  return {
    variant: 'base',
    t0,
    t1,
    bucket: 1,
    tasks: [],
    counters: { t: new Float64Array(), kind: new Uint32Array(), key: new Uint32Array(), value: new Float64Array() },
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
  };
}

/** A scenario meta with tasks named `names`, each in VM `vm[i]` (null: a host task). */
export function vmMeta(names: string[], vm: (number | null)[], vms: string[], cpus = 2): ScenarioMeta {
  return {
    name: 'test',
    cpus,
    duration_ns: 1e6,
    vms,
    tasks: names.map((name, i) => ({ name, nice: 0, policy: 'normal', affinity: [], slice_ns: null, tg: 0, vm: vm[i] })),
  } as unknown as ScenarioMeta;
}
