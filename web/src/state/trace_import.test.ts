import { describe, expect, it } from 'vitest';
import type { ImportReport } from '../engine/protocol';
import { bandwidthLine, tickPhaseLine, unseenMovesLine, diagnostics, shadowRows, formatBytes, importOrder, isScenarioFile, progressFraction, progressText } from './trace_import';

function report(over: Partial<ImportReport['summary']> = {}, extra: Partial<ImportReport> = {}): ImportReport {
  return {
    summary: {
      format: 'tracefs',
      format_name: 'tracefs text (/sys/kernel/tracing/trace)',
      grammar: 'tracefs',
      binary: null,
      bytes: 2048,
      lines_read: 100,
      lines_skipped: 0,
      skipped: [],
      total_events: 88,
      events: { sched_switch: 40, sched_wakeup: 20, sched_stat_runtime: 28 },
      eevdf_samples: 0,
      eevdf_tasks: [],
      eevdf_span_ns: null,
      clocks: null,
      tasks: [{ pid: 5, generation: 0, comm: 'a', switches: 1, switches_runnable: 0, switches_preempted: 0, switches_in: 1, wakeups: 0 }],
      cpus: [0, 1],
      cpus_declared: 2,
      first_ts_ns: 1_500_000_000,
      last_ts_ns: 1_502_000_000,
      duration_ns: 2_000_000,
      lost_events: {},
      lost_lines: 0,
      out_of_order: 0,
      switch_forms: ['kernel'],
      raw_prev_states: {},
      missing: [],
      runqueues: [],
      ...over,
    },
    dat: null,
    error: null,
    timeline: { origin_ns: 1_500_000_000, duration_ns: 2_000_000, cpus: 2, spans: 40, missing_switch_outs: 0, out_of_order_by_cpu: {} },
    eevdf: { samples: 0, tasks: [], alignment: null },
    ...extra,
  };
}

const byKey = (r: ImportReport) => Object.fromEntries(diagnostics(r).map((d) => [d.key, d]));

describe('trace import helpers', () => {
  it('tells scenario files from traces and imports dumps last', () => {
    expect(isScenarioFile('x.toml')).toBe(true);
    expect(isScenarioFile('x.JSON')).toBe(true);
    expect(isScenarioFile('trace.txt')).toBe(false);
    const order = importOrder([{ name: 'eevdf-state.txt' }, { name: 'balance.txt' }, { name: 'cpu-avg.txt' }, { name: 'trace.dat' }]).map((f) => f.name);
    expect(order).toEqual(['trace.dat', 'eevdf-state.txt', 'balance.txt', 'cpu-avg.txt']);
    // A workload named for an imbalance is a trace, not a balance-pass dump.
    expect(importOrder([{ name: 'cpu-avg.txt' }, { name: 'nice-imbalance-smp.trace.txt' }]).map((f) => f.name)).toEqual(['nice-imbalance-smp.trace.txt', 'cpu-avg.txt']);
  });

  it('formats progress', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(4 << 20)).toBe('4.0 MiB');
    const p = { phase: 'reading' as const, bytes: 12 << 20, total: 1 << 30, lines: 123456, records: 120000 };
    expect(progressText(p)).toBe('reading: 12.0 MiB of 1.00 GiB · 123,456 lines · 120,000 records');
    expect(progressFraction(p)).toBeCloseTo(12 / 1024);
    expect(progressFraction({ ...p, phase: 'building' })).toBe(1);
  });

  it('lists the diagnostics, flagging what needs attention', () => {
    const ok = byKey(report());
    expect(ok.read.value).toBe('2.0 KiB; 100 lines read, 0 skipped');
    expect(ok.read.warn).toBe(false);
    expect(ok.lost.value).toBe('none reported');
    expect(ok.kept.value).toBe('sched_stat_runtime 28');
    expect(ok.cpus.value).toBe('0, 1 (the header says 2)');
    expect(ok['missing-switches']).toBeUndefined();
    const bad = byKey(
      report(
        { lines_skipped: 3, lost_events: { '1': 250, '3': 0 }, lost_lines: 2, raw_prev_states: { '1024': 7 } },
        { timeline: { origin_ns: 0, duration_ns: 1, cpus: 4, spans: 1, missing_switch_outs: 5, out_of_order_by_cpu: { '2': 9 } } },
      ),
    );
    expect(bad.read.warn).toBe(true);
    expect(bad.lost.value).toBe('CPU 1: 250; CPU 3: unknown number (2 LOST lines)');
    expect(bad['out-of-order'].value).toContain('CPU 2: 9');
    expect(bad['missing-switches'].value).toMatch(/^5 runs/);
    expect(bad['raw-states'].value).toBe('1024 × 7');
  });
});

describe('shadowRows', () => {
  it('puts every run\'s simulated share beside the observed one', () => {
    const task = (name: string, obs: number, sim: number) => ({
      name, pid: 1, cpu: 1, observed_ns: 0, simulated_ns: 0, observed_share_pct: obs, simulated_share_pct: sim,
      observed_switches: 3, simulated_switches: 4, observed_yields: 0, simulated_yields: 0,
      observed_cpu_pct: obs / 2, simulated_cpu_pct: sim / 2, observed_migrations: 1, simulated_migrations: 2, wall_paced: false,
    });
    const rep = (tasks: ReturnType<typeof task>[]) => ({ scenario: 's', variants: [], window_ns: 1, cpus: 2, tasks, left_out: [], agreement_pct: 90, max_share_error_pp: 0.5, max_cpu_error_pp: 0.3, pin: 'free', causal_wakeups: 0, wakeup_switch_latency_ns: 0, schedule_clock_lead_ns: 0, cpu_switch_gaps_ns: [], trace_tick_phase_ns: null, tick_phase_ns: 0, placement_agreement_pct: 100, unseen_moves: [], decisions: { scored: 10, agreed: 9, agreement_pct: 90, quiet_yields: 0, idle_picks: 2, not_queued: 0, other_class: 0, resynced: 0, throttled: 0, unthrottles: 0, period_timers: 0, throttle_resyncs: 0, cgroup_moves: 0, per_cpu: [], first_disagreements: [], placements: { scored: 1, agreed: 1, agreement_pct: 100, new_tasks: 0, sync: 0, exec: 0, by_rule: [], pinned: 0, first_seen: 0, balance_migrations: 0, balance_same_source: 0, balance_same_task: 0, wakeup_of_queued: 0, first_disagreements: [], balance_disagreements: [] }, preemptions: { scored: 0, agreed: 0, agreement_pct: 0, kernel_preempted: 0, model_only: 0, kernel_only: 0, unscored: 0, first_disagreements: [] }, seed: null, cpu_avg: null, balance_passes: null } });
    const rows = shadowRows([
      { key: 'baseline', report: rep([task('k_a', 60.9, 61.0), task('k_b', 39.1, 39.0)]) },
      { key: 'no-run-to-parity', report: rep([task('k_a', 60.9, 60.5)]) },
    ]);
    expect(rows.map((r) => r.name)).toEqual(['k_a', 'k_b']);
    expect(rows[0].simulated).toEqual([61.0, 60.5]);
    expect(rows[1].simulated[1]).toBeNaN();
    // CPU time, migrations and switches of the last run: k_b is not in it.
    expect([rows[0].observedCpu, rows[0].simulatedCpu, rows[0].simulatedMigrations]).toEqual([30.45, 30.25, 2]);
    expect([rows[0].observedSwitches, rows[0].simulatedSwitches]).toEqual([3, 4]);
    expect(rows[1].simulatedCpu).toBeNaN();
    expect(rows[1].simulatedMigrations).toBeUndefined();
    expect(rows[1].simulatedSwitches).toBeUndefined();
    expect(shadowRows([])).toEqual([]);
  });
});

describe('progressText of a spread', () => {
  it('counts the shadow runs', () => {
    expect(progressText({ phase: 'simulating', bytes: 3, total: 64, lines: 0, records: 0 })).toBe('shadow runs: 3 of 64');
  });
});

describe('tickPhaseLine', () => {
  it("says where the shadow's ticks fall against the trace's", () => {
    expect(tickPhaseLine({ tick_phase_ns: 0, trace_tick_phase_ns: 1_511_515 })).toBe(
      "Ticks at +0.000 ms of each period, the trace's at +1.512 ms (variant tick_phase=trace aligns them).",
    );
    expect(tickPhaseLine({ tick_phase_ns: 1_511_515, trace_tick_phase_ns: 1_511_515 })).toBe("Ticks at +1.512 ms of each period, at the trace's.");
    expect(tickPhaseLine({ tick_phase_ns: 0, trace_tick_phase_ns: null })).toBe('Ticks at +0.000 ms of each period; the trace shows no tick records.');
  });
});

describe('unseenMovesLine', () => {
  it('names the tasks whose moves the trace does not show, and says nothing without them', () => {
    expect(unseenMovesLine({ unseen_moves: [] })).toBeNull();
    const line = unseenMovesLine({ unseen_moves: ['k_a', 'k_b'] });
    expect(line).toContain('Moves not in the trace: k_a, k_b were forked in the trace');
    expect(line).toContain('cgroup_attach_task');
  });
});

describe('bandwidthLine', () => {
  const d = (throttled: number, unthrottles: number, period_timers: number, cgroup_moves: number, throttle_resyncs = 0) =>
    ({ throttled, unthrottles, period_timers, cgroup_moves, throttle_resyncs }) as unknown as Parameters<typeof bandwidthLine>[0];
  it('says where the unthrottles were placed, and the moves', () => {
    expect(bandwidthLine(d(0, 0, 0, 0))).toBeNull();
    expect(bandwidthLine(d(30, 15, 15, 3))).toBe(
      'CFS bandwidth: 30 tasks throttled, 15 unthrottles at the 15 period timer expiries the trace shows; 3 cgroup moves replayed where the trace shows them.',
    );
    expect(bandwidthLine(d(30, 15, 0, 0))).toContain('where the trace first shows them');
    expect(bandwidthLine(d(0, 0, 0, 2))).toBe('2 cgroup moves replayed where the trace shows them.');
    expect(bandwidthLine(d(30, 15, 16, 3, 3))).toContain('unthrottles at the 16 period timer expiries the trace shows (3 throttles taken from the trace');
  });
});
