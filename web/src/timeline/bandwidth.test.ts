import { describe, expect, it } from 'vitest';
import { GROUP_NODE, type WindowData } from '../engine/protocol';
import { counterTracks, throttleData, throttledAt } from './bandwidth';
import { entityLanes } from './lanes';
import { scenarioMeta, taskMeta, windowData } from './fixtures';

const meta = scenarioMeta({
  cpus: 2,
  tasks: [taskMeta('k_a', { tg: 1, affinity: [1] }), taskMeta('k_b', { tg: 1, affinity: [1] }), taskMeta('k_c', { tg: 0, affinity: [1] })],
  cgroups: [{ path: '/sl_Q', parent: 0, shares: 1024, quota_ns: 30e6, period_ns: 100e6 }],
  groups: [
    { tg: 0, path: '/', node: GROUP_NODE, parent: null, cfs_rq: [0, 1], quota_ns: null, period_ns: null },
    { tg: 1, path: '/sl_Q', node: GROUP_NODE | 1, parent: 0, cfs_rq: [2, 3], quota_ns: 30e6, period_ns: 100e6 },
  ],
});

function win(counters: [number, number, number, number][], markers: [number, number, number, number][] = []): WindowData {
  return windowData(
    0,
    200e6,
    [],
    [],
    markers.map(([t, kind, cpu, task]) => ({ t, kind, cpu, task })),
    counters.map(([t, kind, key, value]) => ({ t, kind, key, value })),
  );
}

describe('entity lanes with cgroups', () => {
  it('lists root tasks, then each group lane followed by its tasks; collapsing hides them', () => {
    expect(entityLanes(meta, null, new Set()).map((l) => [l.label, l.depth])).toEqual([['k_c', 0], ['/sl_Q', 0], ['k_a', 1], ['k_b', 1]]);
    expect(entityLanes(meta, null, new Set([1])).map((l) => l.label)).toEqual(['k_c', '/sl_Q']);
  });
});

describe('throttled intervals', () => {
  it('are read off runtime_remaining when there are no throttle markers', () => {
    // An overrun refilled at once (32 ms) is not a throttle; 80 ms → 100 ms is.
    const d = throttleData(meta, win([[32e6, 0, 3, -1e6], [32e6, 0, 3, 5e6], [80e6, 0, 3, -0.8e6], [100e6, 0, 3, 1]]));
    expect(d.source).toBe('counters');
    expect(d.intervals).toEqual([{ tg: 1, cpu: 1, t0: 80e6, t1: 100e6 }]);
    expect(throttledAt(d, 1, 1, 90e6)).toBe(true);
    expect(throttledAt(d, 1, 1, 100e6)).toBe(false);
  });
  it('come from throttle / unthrottle markers when the window has them', () => {
    const d = throttleData(meta, win([], [[10e6, 14, 1, GROUP_NODE | 1], [80e6, 13, 1, GROUP_NODE | 1]]));
    expect(d.source).toBe('markers');
    expect(d.intervals).toEqual([{ tg: 1, cpu: 1, t0: 0, t1: 10e6 }, { tg: 1, cpu: 1, t0: 80e6, t1: 200e6 }]);
    expect(d.unthrottles).toEqual([{ t: 10e6, cpu: 1, tg: 1 }]);
  });
  it('counter tracks: one per limited group and CPU its tasks may use', () => {
    expect(counterTracks(meta)).toEqual([{ tg: 1, cpu: 1, label: '/sl_Q runtime', cfsRq: 3, quota: 30e6 }]);
  });
});
