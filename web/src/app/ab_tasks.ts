// B's task ids in A's colours: the timelines colour a run by its task id, so B's windows are
// drawn with B's tasks renumbered: a task whose comm (its last) is a comm of A takes the id of
// A's first task of that comm (the diff matches tasks by comm too); the others come after A's
// tasks. The renumbered task table names each id as B does.

import type { ImportedTrace, ReplayWindowData, TraceTask } from '../engine/protocol';

export interface TaskAlignment {
  /** B's task id → its id in the drawing. */
  map: Uint32Array;
  /** The task table of the drawing, indexed by those ids. */
  tasks: TraceTask[];
}

export function alignTasks(a: TraceTask[], b: TraceTask[]): TaskAlignment {
  const byComm = new Map<string, number>();
  a.forEach((t, i) => {
    const key = t.pid === 0 ? '\0idle' : t.comm;
    if (!byComm.has(key)) byComm.set(key, i);
  });
  const tasks: TraceTask[] = [...a];
  const map = new Uint32Array(b.length);
  b.forEach((t, i) => {
    const same = byComm.get(t.pid === 0 ? '\0idle' : t.comm);
    map[i] = same ?? a.length + i;
    tasks[map[i]] = t;
  });
  // Ids of no task (between A's and the unmatched of B) stay holes: nothing draws them.
  for (let i = 0; i < tasks.length; i++) if (!tasks[i]) tasks[i] = { pid: -1, generation: 0, comm: '', comms: '', prio: null, tgid: null, running_ns: 0, cgroup: null };
  return { map, tasks };
}

function remap(col: Uint32Array, map: Uint32Array): Uint32Array {
  const out = new Uint32Array(col.length);
  for (let i = 0; i < col.length; i++) out[i] = col[i] < map.length ? map[col[i]] : col[i];
  return out;
}

/** A window of B with its task ids renumbered. */
export function alignWindow(d: ReplayWindowData, m: TaskAlignment): ReplayWindowData {
  return { ...d, span_task: remap(d.span_task, m.map), wake_waker: remap(d.wake_waker, m.map), wake_wakee: remap(d.wake_wakee, m.map), mig_task: remap(d.mig_task, m.map) };
}

/** B as the timeline draws it: its task table renumbered. */
export function alignedTrace(b: ImportedTrace, m: TaskAlignment): ImportedTrace {
  return { ...b, tasks: m.tasks };
}
