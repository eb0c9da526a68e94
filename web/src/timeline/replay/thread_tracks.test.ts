// The thread-track rows: grouping by process, order, filter, pins and collapse; and their
// painting against a recording fake 2D context.
import { describe, expect, it } from 'vitest';
import { ThreadStateCode as S, type ReplayWindowData, type ThreadStateData, type TraceTask } from '../../engine/protocol';
import { fakeCtx } from '../fake_ctx';
import { GUTTER_W } from '../layout';
import { makeTimeScale } from '../time_scale';
import { renderThreadTracks, THREAD_ROW_H, THREAD_STATE_COLOURS, THREAD_WAKE_COLOUR } from './render_threads';
import { trackRows, visibleTasks } from './thread_tracks';

function task(pid: number, comm: string, running_ns: number, tgid: number | null = null, generation = 0, cgroup: string | null = null): TraceTask {
  return { pid, generation, comm, comms: comm, prio: 120, tgid, running_ns, cgroup };
}

// 0 idle; a web browser of three threads (tgid 100), a lone hog, a thread of unknown process.
const tasks: TraceTask[] = [
  task(0, '<idle>', 0),
  task(100, 'browser', 5, 100),
  task(101, 'renderer', 30, 100),
  task(102, 'io', 1, 100),
  task(7, 'hog', 40),
  task(9, 'kworker/0:1', 1),
];
const none = { filter: '', pinned: [], collapsed: new Set<string>() };

describe('trackRows', () => {
  it('groups threads by process, busiest first, and leaves out the idle task', () => {
    const rows = trackRows(tasks, none);
    expect(rows.map((r) => (r.kind === 'process' ? `P ${r.label} (${r.threads})` : `${r.label}`))).toEqual([
      'hog 7',
      'P browser 100 (3)',
      'renderer 101',
      'browser 100',
      'io 102',
      'kworker/0:1 9',
    ]);
    expect(visibleTasks(rows, 0, rows.length)).toEqual([4, 2, 1, 3, 5]);
  });

  it('filters by name (a process name keeps all its threads) or by pid', () => {
    const names = (filter: string) => trackRows(tasks, { ...none, filter }).map((r) => r.label);
    expect(names('rend')).toEqual(['browser 100', 'renderer 101']);
    expect(names('BROWSER')).toEqual(['browser 100', 'renderer 101', 'browser 100', 'io 102']);
    expect(names('10')).toEqual(['browser 100', 'renderer 101', 'browser 100', 'io 102']);
    expect(names('9')).toEqual(['kworker/0:1 9']);
    expect(names('nothing')).toEqual([]);
  });

  it('filters by cgroup with cgroup:<substring> (a process name does not keep its threads then)', () => {
    const cg: TraceTask[] = [
      task(0, '<idle>', 0),
      task(100, 'browser', 5, 100, 0, '/user.slice/browser'),
      task(101, 'renderer', 30, 100, 0, '/user.slice/browser/renderer'),
      task(102, 'io', 1, 100, 0, null),
      task(7, 'hog', 40, null, 0, '/sl_A'),
      task(9, 'kworker/0:1', 1),
    ];
    const names = (filter: string) => trackRows(cg, { ...none, filter }).map((r) => r.label);
    expect(names('cgroup:/sl_a')).toEqual(['hog 7']);
    expect(names('cgroup:RENDERER')).toEqual(['browser 100', 'renderer 101']);
    expect(names('CGroup: user.slice ')).toEqual(['browser 100', 'renderer 101', 'browser 100']);
    // `cgroup:` alone: every thread whose cgroup is known.
    expect(names('cgroup:')).toEqual(['hog 7', 'browser 100', 'renderer 101', 'browser 100']);
    expect(names('cgroup:/nowhere')).toEqual([]);
    // A comm that merely contains "cgroup" is still found by name without the colon.
    expect(names('browser')).toEqual(['browser 100', 'renderer 101', 'browser 100', 'io 102']);
  });

  it('puts pinned threads on top and hides a collapsed process\'s threads', () => {
    const rows = trackRows(tasks, { filter: '', pinned: [5, 3], collapsed: new Set(['100']) });
    expect(rows.map((r) => r.label)).toEqual(['pinned', 'kworker/0:1 9', 'io 102', 'hog 7', 'browser 100']);
    expect(rows[1]).toMatchObject({ kind: 'thread', pinned: true });
    expect(rows[4]).toMatchObject({ kind: 'process', collapsed: true, threads: 3 });
  });

  it('names a reused pid by its generation', () => {
    const rows = trackRows([task(0, '<idle>', 0), task(5, 'a', 1), task(5, 'b', 2, null, 1)], none);
    expect(rows.map((r) => r.label)).toEqual(['b 5#1', 'a 5']);
  });
});

describe('renderThreadTracks', () => {
  const width = GUTTER_W + 1000;
  const scale = makeTimeScale(0, 1000, GUTTER_W, width);
  const rows = trackRows(tasks, none);
  // hog (row 0) runs on CPU 1 for 0..600 then is preempted; renderer (row 2) sleeps then runs.
  const data: ThreadStateData = {
    t0: 0,
    t1: 1000,
    bucket: 1,
    tasks: [4, 2],
    row: Uint32Array.from([0, 0, 1, 1]),
    start: Float64Array.from([0, 600, 0, 600]),
    end: Float64Array.from([600, 1000, 600, 1000]),
    state: Uint32Array.from([S.running, S.preempted, S.sleeping, S.running]),
    cpu: Uint32Array.from([1, 0xffffffff, 0xffffffff, 0]),
    count: Uint32Array.from([1, 1, 1, 1]),
  };

  it('draws each segment on its row in its state colour, with the CPU of a wide run', () => {
    const ctx = fakeCtx();
    const r = renderThreadTracks(ctx, { rows, first: 0, last: rows.length, offset: 0, data, scale, width, height: 200, selection: null });
    expect(r).toMatchObject({ tracks: 5, segments: 4, byState: { running: 2, preempted: 1, sleeping: 1 } });
    const fills = ctx.of('fillRect').filter((c) => c.fillStyle === THREAD_STATE_COLOURS[S.running]);
    // The hog's run: row 0 from x = GUTTER_W over 600 px; the renderer's run on row 2.
    expect(fills.map((c) => [c.args[0], c.args[2]])).toEqual([
      [GUTTER_W, 600],
      [GUTTER_W + 600, 400],
    ]);
    expect(fills[1].args[1]).toBe(2 * THREAD_ROW_H + 2);
    expect(ctx.of('fillText').map((c) => c.args[0])).toEqual(['CPU 1', 'CPU 0']);
  });

  it('scrolls: rows above `first` are not drawn and the offset moves the rest up', () => {
    const ctx = fakeCtx();
    const r = renderThreadTracks(ctx, { rows, first: 2, last: 3, offset: 5, data, scale, width, height: 40, selection: 2 });
    expect(r.segments).toBe(2);
    const run = ctx.of('fillRect').find((c) => c.fillStyle === THREAD_STATE_COLOURS[S.running]);
    expect(run?.args[1]).toBe(-5 + 2);
    expect(ctx.count('strokeRect')).toBe(1);
  });

  it("draws the selected task's wakeups from waker to wakee, and a stub when the other track is away", () => {
    // hog (task 4, row 0) wakes the renderer (task 2, row 2) at 600; io (task 3, row 4, not
    // drawn: last = 3) wakes the hog at 100.
    const wakes = {
      wake_t: Float64Array.from([600, 100]),
      wake_waker: Uint32Array.from([4, 3]),
      wake_wakee: Uint32Array.from([2, 4]),
    } as unknown as ReplayWindowData;
    const ctx = fakeCtx();
    const r = renderThreadTracks(ctx, { rows, first: 0, last: 3, offset: 0, data, scale, width, height: 200, selection: 4, wakes });
    expect([r.wakeArrows, r.wakeStubs]).toEqual([1, 1]);
    const heads = ctx.of('fill').filter((c) => c.fillStyle === THREAD_WAKE_COLOUR);
    // An arrowhead on each wakee's track: the renderer's at 600, and the hog's at 100 (a stub:
    // its waker's track is not drawn).
    expect(heads.length).toBe(2);
    const none = renderThreadTracks(fakeCtx(), { rows, first: 0, last: 3, offset: 0, data, scale, width, height: 200, selection: 5, wakes });
    expect([none.wakeArrows, none.wakeStubs]).toEqual([0, 0]);
  });
});
