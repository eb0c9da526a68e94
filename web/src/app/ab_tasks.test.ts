import { describe, expect, it } from 'vitest';
import type { ReplayWindowData, TraceTask } from '../engine/protocol';
import { alignTasks, alignWindow } from './ab_tasks';

const task = (pid: number, comm: string): TraceTask => ({ pid, generation: 0, comm, comms: comm, prio: 120, tgid: null, running_ns: 0, cgroup: null });

describe('alignTasks', () => {
  it("gives B's tasks the id of A's first task of their comm, the others ids after A's", () => {
    const a = [task(0, 'swapper/1'), task(10, 'k_a'), task(11, 'k_b'), task(12, 'k_b')];
    const b = [task(20, 'k_b'), task(0, 'swapper/0'), task(21, 'sed'), task(22, 'k_a')];
    const m = alignTasks(a, b);
    expect(Array.from(m.map)).toEqual([2, 0, 6, 1]);
    expect(m.tasks[2].pid).toBe(20);
    expect(m.tasks[6].comm).toBe('sed');
    expect(m.tasks[4].pid).toBe(-1);
    const d = { span_task: Uint32Array.from([0, 3, 2]), wake_waker: Uint32Array.from([1, 0xffffffff]), wake_wakee: Uint32Array.from([3, 0]), mig_task: Uint32Array.from([2]) } as unknown as ReplayWindowData;
    const w = alignWindow(d, m);
    expect(Array.from(w.span_task)).toEqual([2, 1, 6]);
    expect(Array.from(w.wake_waker)).toEqual([0, 0xffffffff]);
    expect(Array.from(w.wake_wakee)).toEqual([1, 2]);
    expect(Array.from(w.mig_task)).toEqual([6]);
  });
});
