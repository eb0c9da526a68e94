// Fact checking in the browser, on fixtures shaped like the worker's answers: the pick at the
// cursor and at a named level, eligibility, delayed and sleeping tasks, summary metrics and
// marker counts; a fact that does not hold is reported with what was found.
import { describe, expect, it } from 'vitest';
import type { BuddySource, Candidate, CursorState, EntityState, Pick, PickReason } from '../engine/protocol';
import { scenarioMeta, summary as runSummary, taskMeta, taskSummary, windowData } from '../timeline/fixtures';
import { checkExpect, countMarkers, lessonName, levelPath, metricValue, valueWords, type FactSource } from './check';
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
const none: Expect = { eligible: [], not_eligible: [], delayed: [], sleeping: [], metrics: [], counts: [] };

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
