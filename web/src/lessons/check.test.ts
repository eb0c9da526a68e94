// Fact checking in the browser, on fixtures shaped like the worker's answers: the pick at the
// cursor and at a named level, eligibility, delayed and sleeping tasks, summary metrics and
// marker counts; a fact that does not hold is reported with what was found.
import { describe, expect, it } from 'vitest';
import type { BuddySource, Candidate, CursorState, EntityState, Pick, PickReason } from '../engine/protocol';
import { scenarioMeta, summary as runSummary, taskMeta, taskSummary, windowData } from '../timeline/fixtures';
import { checkExpect, countMarkers, cpuTimePct, lessonName, levelPath, metricValue, placementOf, valueWords, type FactSource } from './check';
import type { Expect } from './model';

const cand = (name: string, eligible: boolean): Candidate => ({ task: 0, name, vruntime: 0, deadline: 0, vprot: 0, lag: 0, eligible, curr: false, protected: false, buddy: false, delayed: false });
const pick = (name: string, level: string, reason: PickReason, cands: Candidate[], buddy: BuddySource = 'none'): Pick => ({
  index: 0, t: 4_200_000, cpu: 0, task: 0, name, reason, why: '', avg_vruntime: 0, candidates: cands, level, buddy_src: buddy,
});
const root = pick('[/CG0]', 'the root cfs_rq', 'protected', [cand('[/CG0]', true), cand('[/CG1]', false)], 'yield_to');
const leaf = pick('A', 'the cfs_rq of /CG0', 'only_entity', [cand('A', true)]);
const ent = (name: string, on_rq: boolean, delayed: boolean): EntityState => ({
  task: 0, cpu: 0, on_rq, name, t: 0, vruntime: 0, deadline: 0, vlag: 0, vprot: 0, avg_vruntime: 0, lag: 0, eligible: true, curr: false, delayed, protected: false, buddy: false,
});
const state: CursorState = { t: 4_250_000, cpus: [{ cpu: 0, entities: [], pick: { ...leaf, levels: [root, leaf] }, why_cpu: [] }], tasks: [ent('A', true, false), ent('B', true, true), ent('C', false, false)] };
const meta = scenarioMeta({
  tasks: [taskMeta('A'), taskMeta('B'), taskMeta('C')],
  groups: [
    { tg: 0, path: '/', node: 0x8000_0000, parent: null, cfs_rq: [0], quota_ns: null, period_ns: null },
    { tg: 1, path: '/CG0', node: 0x8000_0001, parent: 0, cfs_rq: [1], quota_ns: null, period_ns: null },
  ],
});
const markers = (rows: [number, number, number, number][]) => windowData(0, 1e7, [], [], rows.map(([t, kind, task, val]) => ({ t, kind, cpu: 0, task, val })));
const win = markers([[1e6, 7, 0, 1], [2e6, 7, 0, 0], [3e6, 7, 1, 1], [5e6, 7, 0, 1], [2e6, 13, 0x8000_0001, 0]]);
const summary = runSummary([taskSummary('A', 49.9, { wakeup_latency_ns: { p50: 650000, p99: 0, max: 0 } })], { cputimer: { atomic_ns: 0, adds: 0, atomic_pct: 1.639 } });
const src: FactSource = { cursor: () => Promise.resolve(state), window: () => Promise.resolve(win), summary: (v) => (v === 'baseline' ? summary : undefined) };
const defaults = { variant: 'baseline', at: 4_250_000, cpu: 0, range: [0, 4e6] as [number, number] };
const none: Expect = { eligible: [], not_eligible: [], delayed: [], sleeping: [], metrics: [], counts: [], on_cpu: [], cpu_time: [], migrations: [], placements: [] };

describe('helpers', () => {
  it('name levels and entities as lessons do', () => {
    expect(levelPath('the root cfs_rq')).toBe('/');
    expect(levelPath('the cfs_rq of /machine/vm0')).toBe('/machine/vm0');
    expect(lessonName('[/CG0]')).toBe('/CG0');
    expect(lessonName('vm0/vcpu1')).toBe('vm0/vcpu1');
  });
  it('read metrics by task or by path', () => {
    expect(metricValue(summary, 'A', 'share_pct')).toBe(49.9);
    expect(metricValue(summary, 'A', 'wakeup_latency_ns.p50')).toBe(650000);
    expect(metricValue(summary, undefined, 'cputimer.atomic_pct')).toBe(1.639);
    expect(metricValue(summary, 'Z', 'share_pct')).toBeUndefined();
  });
  it('say what a marker value means', () => {
    expect(valueWords('switch', 1)).toBe('reason wakeup preemption');
    expect(valueWords('yield', 0)).toBe('throttled (returned at once)');
    expect(valueWords('yield_to', 11)).toBe('yielded, relaxed: preempted');
    expect(valueWords('yield_to', 9)).toBe('yielded, IPI receiver');
  });
  it('count markers by kind, entity, value and half-open range', () => {
    expect(countMarkers(win, 7, null, undefined, 0, 5e6)).toBe(3);
    expect(countMarkers(win, 7, 0, undefined, 0, 6e6)).toBe(3);
    expect(countMarkers(win, 7, 0, 0, 0, 6e6)).toBe(1);
    expect(countMarkers(win, 13, 0x8000_0001, undefined, 0, 4e6)).toBe(1);
  });
});

describe('checkExpect', () => {
  it('holds for the facts of the fixture', async () => {
    const e: Expect = {
      ...none,
      level: '/', picked: '/CG0', reason: 'protected', buddy: 'yield_to', eligible: ['/CG0'], not_eligible: ['/CG1'],
      delayed: ['B'], sleeping: ['C'],
      metrics: [{ task: 'A', field: 'share_pct', min: 49.8, max: 50 }],
      counts: [{ kind: 'yield', task: 'A', min: 2, max: 2 }, { kind: 'throttle', task: '/CG0', min: 1, max: 1, range: ['1ms', '3ms'] }],
    };
    const r = await checkExpect(e, defaults, meta, src);
    expect(r.filter((x) => !x.ok)).toEqual([]);
    expect(r.map((x) => x.label)).toEqual([
      '/CG0 is picked (baseline, 4.25 ms, CPU 0, on the root cfs_rq)',
      '…as protected (RUN_TO_PARITY)',
      'the next buddy was set by a yield_to()',
      '/CG0 is eligible',
      '/CG1 is not eligible',
      'B is asleep but still queued (delayed dequeue)',
      'C is not queued',
      'A: share_pct = 49.8–50 (baseline)',
      'yield events of A: 2 in [0 ns, 4 ms) (baseline)',
      'throttle events of /CG0: 1 in [1 ms, 3 ms) (baseline)',
    ]);
  });

  it('reports what it found when a fact does not hold', async () => {
    const r = await checkExpect({ ...none, picked: 'B', eligible: ['Z'], delayed: ['A'], metrics: [{ variant: 'other', task: 'A', field: 'share_pct', min: 0, max: 1 }], counts: [{ kind: 'yield', min: 0, max: 0 }] }, defaults, meta, src);
    expect(r.map((x) => [x.ok, x.detail])).toEqual([
      [false, 'A'],
      [false, 'not a candidate'],
      [false, 'queued'],
      [false, 'missing'],
      [false, '3'],
    ]);
  });
});

describe('SMP facts', () => {
  // Three tasks on two CPUs: A on CPU 1 and B on CPU 0 at the cursor; A migrated by periodic
  // balancing at 1 ms and at wakeup at 3 ms; placements of A: onto CPU 1 by target_busy after
  // wake_affine_idle (1 | 1 << 8, with nr_idle_scan unread: the high word all ones, negative as
  // an i64) and onto CPU 0 by vcpu_pack (8).
  const MIGRATE = 24;
  const SELECT_RQ = 25;
  const unread = (low: number) => -(2 ** 32) + low;
  const smpState: CursorState = { t: 4e6, cpus: [], tasks: [{ ...ent('A', true, false), cpu: 1 }, { ...ent('B', false, false), cpu: 0 }] };
  const smpWin = windowData(0, 1e7, [], [], [
    { t: 1e6, kind: MIGRATE, cpu: 1, task: 0, arg: 1, val: 0 },
    { t: 3e6, kind: MIGRATE, cpu: 1, task: 0, arg: 0, val: 0 },
    { t: 3e6, kind: SELECT_RQ, cpu: 1, task: 0, arg: 0, val: unread(5 | (1 << 8) | (1 << 16)) },
    { t: 3.5e6, kind: SELECT_RQ, cpu: 0, task: 0, arg: 1, val: 8 },
  ]);
  const smpSummary = runSummary([taskSummary('A', 50, { cpu_time_ns: 6e6, cpu_time_ns_by_cpu: [2e6, 4e6] })], { duration_ns: 1e7 });
  const smpSrc: FactSource = { cursor: () => Promise.resolve(smpState), window: () => Promise.resolve(smpWin), summary: () => smpSummary };

  it('unpack placements and read CPU time as the engine does', () => {
    expect(placementOf(unread(5 | (1 << 8) | (1 << 16)))).toEqual({ rule: 'target_busy', affine: 'idle' });
    expect(placementOf(8)).toEqual({ rule: 'vcpu_pack', affine: 'none' });
    expect(cpuTimePct(smpSummary, 'A', 1)).toBe(40);
    expect(cpuTimePct(smpSummary, 'A', undefined)).toBe(60);
    expect(cpuTimePct(smpSummary, 'A', 2)).toBeUndefined();
    expect(cpuTimePct(smpSummary, 'Z', 0)).toBeUndefined();
  });

  it('hold for the facts of the fixture', async () => {
    const e: Expect = {
      ...none,
      on_cpu: [{ task: 'A', cpu: 1 }, { task: 'B', cpu: 0, at: '2ms' }],
      cpu_time: [{ task: 'A', cpu: 1, min_pct: 39, max_pct: 41 }, { task: 'A', min_pct: 60, max_pct: 60 }],
      migrations: [{ task: 'A', class: 'periodic', min: 1, max: 1 }, { min: 2, max: 2, range: ['0ms', '5ms'] }],
      placements: [{ task: 'A', rule: 'target_busy', affine: 'idle', cpu: 1, min: 1, max: 1 }, { rule: 'vcpu_pack', min: 1, max: 1, range: ['3ms', '4ms'] }],
    };
    const r = await checkExpect(e, { ...defaults, range: [0, 1e7] }, meta, smpSrc);
    expect(r.filter((x) => !x.ok)).toEqual([]);
    expect(r.map((x) => x.label)).toEqual([
      'A is on CPU 1 (baseline, 4.25 ms)',
      'B is on CPU 0 (baseline, 2 ms)',
      'A ran 39–41 % of a CPU on CPU 1 over the run (baseline)',
      'A ran 60 % of a CPU on all CPUs together over the run (baseline)',
      'migrations of A by periodic balancing: 1 in [0 ns, 10 ms) (baseline)',
      'migrations: 2 in [0 ns, 5 ms) (baseline)',
      'placements of A onto CPU 1 (rule target_busy, wake_affine_idle() chose): 1 in [0 ns, 10 ms) (baseline)',
      'placements (rule vcpu_pack): 1 in [3 ms, 4 ms) (baseline)',
    ]);
  });

  it('fail when the facts do not hold, saying what was found', async () => {
    const e: Expect = {
      ...none,
      on_cpu: [{ task: 'A', cpu: 0 }, { task: 'Z', cpu: 0 }],
      cpu_time: [{ task: 'A', cpu: 0, min_pct: 50, max_pct: 100 }],
      migrations: [{ task: 'A', class: 'wake', min: 0, max: 0 }, { task: 'Z', min: 0, max: 0 }],
      placements: [{ cpu: 0, rule: 'target_busy', min: 1, max: 1 }],
    };
    const r = await checkExpect(e, { ...defaults, range: [0, 1e7] }, meta, smpSrc);
    expect(r.map((x) => [x.ok, x.detail])).toEqual([
      [false, 'on CPU 1'],
      [false, 'no state yet'],
      [false, '20 %'],
      [false, '1'],
      [false, 'Z is no task of the scenario'],
      [false, '0'],
    ]);
  });
});
