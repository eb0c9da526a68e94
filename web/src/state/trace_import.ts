// Pure helpers of trace import: which dropped files are scenarios and which are traces, the
// order traces are imported in, the progress line, the diagnostics the panel lists, and the
// shadow comparison's rows.
import type { ImportProgress, ImportReport, ReplayReport } from '../engine/protocol';

/** A scenario file (opened in the editor), not a trace. */
export function isScenarioFile(name: string): boolean {
  return /\.(toml|json)$/i.test(name);
}

/** Likely a bpftrace dump that goes with a trace rather than replacing it: an EEVDF dump
 * (`eevdf-state.txt`), a CPU-averages dump (`cpu-avg.txt`) or a balance-pass dump
 * (`balance.txt`). */
export function looksLikeDump(name: string): boolean {
  return /eevdf|cpu-avg|(?<!im)balance/i.test(name);
}

/** Traces first, then likely dumps (which attach to the trace imported before them). */
export function importOrder<T extends { name: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => Number(looksLikeDump(a.name)) - Number(looksLikeDump(b.name)));
}

/** Bytes with a unit: "512 B", "4.0 MiB", "1.00 GiB". */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 ** 2) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** Fraction done (0–1) of an import. */
export function progressFraction(p: ImportProgress): number {
  if (p.phase === 'building') return 1;
  return p.total > 0 ? Math.min(1, p.bytes / p.total) : 0;
}

/** "reading: 12.0 MiB of 1.00 GiB · 123,456 lines · 120,000 records". */
export function progressText(p: ImportProgress): string {
  if (p.phase === 'simulating') return `shadow runs: ${int(p.bytes)} of ${int(p.total)}`;
  const what = p.phase === 'reading' ? 'reading' : p.phase === 'decoding' ? 'decoding .dat' : 'building the timeline';
  const parts = [`${what}: ${formatBytes(p.bytes)} of ${formatBytes(p.total)}`];
  if (p.lines > 0) parts.push(`${int(p.lines)} lines`);
  parts.push(`${int(p.records)} records`);
  return parts.join(' · ');
}

/** The scheduler events the replay reads as typed payloads; every other event is kept with
 * its fields as written. */
export const TYPED_EVENTS = new Set(['sched_switch', 'sched_waking', 'sched_wakeup', 'sched_wakeup_new', 'sched_migrate_task']);

export interface DiagnosticLine {
  /** A short stable key (for tests and list keys). */
  key: string;
  label: string;
  value: string;
  /** Something the user should look at. */
  warn?: boolean;
}

/** The facts the diagnostics panel lists, in order. */
export function diagnostics(r: ImportReport): DiagnosticLine[] {
  const s = r.summary;
  const out: DiagnosticLine[] = [];
  const dat = r.dat ? ` (version ${r.dat.version}, clock ${r.dat.clock}, ${r.dat.compression === 'none' ? 'uncompressed' : r.dat.compression}, ${r.dat.cpus} CPUs)` : '';
  out.push({ key: 'format', label: 'format', value: `${s.format_name}${dat}` });
  if (s.switch_forms.length) out.push({ key: 'switch-form', label: 'sched_switch form', value: s.switch_forms.join(', ') });
  const lines = r.dat ? `${int(r.dat.records)} records decoded` : `${int(s.lines_read)} lines read, ${int(s.lines_skipped)} skipped`;
  out.push({ key: 'read', label: 'read', value: `${formatBytes(s.bytes)}; ${lines}`, warn: s.lines_skipped > 0 });
  out.push({ key: 'events', label: 'events', value: `${int(s.total_events)} records${s.eevdf_samples ? `, ${int(s.eevdf_samples)} EEVDF samples` : ''}` });
  if (s.first_ts_ns !== null && s.last_ts_ns !== null) {
    out.push({ key: 'time', label: 'time', value: `${(s.first_ts_ns / 1e9).toFixed(6)} … ${(s.last_ts_ns / 1e9).toFixed(6)} s (${(s.duration_ns / 1e6).toFixed(3)} ms)` });
  }
  if (s.cpus.length) {
    const declared = s.cpus_declared !== null ? ` (the header says ${s.cpus_declared})` : '';
    out.push({ key: 'cpus', label: 'CPUs with events', value: `${s.cpus.join(', ')}${declared}` });
  }
  const reused = s.tasks.filter((t) => t.generation > 0).length;
  out.push({ key: 'tasks', label: 'tasks', value: `${int(s.tasks.length)}${reused ? ` (${reused} of them reuse an earlier pid)` : ''}` });
  const lost = Object.entries(s.lost_events);
  out.push({
    key: 'lost',
    label: 'lost events',
    value: lost.length ? `${lost.map(([cpu, n]) => `CPU ${cpu}: ${n ? int(n) : 'unknown number'}`).join('; ')} (${s.lost_lines} LOST lines)` : 'none reported',
    warn: lost.length > 0,
  });
  const ooo = Object.entries(r.timeline.out_of_order_by_cpu);
  out.push({
    key: 'out-of-order',
    label: 'out-of-order timestamps',
    value: ooo.length ? `${ooo.map(([cpu, n]) => `CPU ${cpu}: ${int(n)}`).join('; ')} (kept, drawn at the CPU's previous time)` : 'none',
    warn: ooo.length > 0,
  });
  if (r.timeline.missing_switch_outs > 0) {
    out.push({
      key: 'missing-switches',
      label: 'missing switch-outs',
      value: `${int(r.timeline.missing_switch_outs)} runs end at a record naming another current task, with no sched_switch (drawn ending there with ?)`,
      warn: true,
    });
  }
  const unknown = Object.entries(s.events).filter(([e]) => !TYPED_EVENTS.has(e));
  if (unknown.length) {
    out.push({ key: 'kept', label: 'other events kept (fields as written)', value: unknown.map(([e, n]) => `${e} ${int(n)}`).join(', ') });
  }
  const raw = Object.entries(s.raw_prev_states);
  if (raw.length) out.push({ key: 'raw-states', label: 'undecoded prev_state numbers', value: raw.map(([v, n]) => `${v} × ${int(n)}`).join(', '), warn: true });
  if (r.error) out.push({ key: 'error', label: 'decoding stopped', value: r.error, warn: true });
  return out;
}

/** One shadow re-simulation run: the variant's key and the engine's report. */
export interface ShadowRun {
  key: string;
  report: ReplayReport;
}

/** Rows of the shadow comparison: one per task of the first run, with each run's simulated
 * share (NaN where a run has no such task). */
export function shadowRows(runs: readonly ShadowRun[]) {
  if (!runs.length) return [];
  return runs[0].report.tasks.map((t) => ({
    name: t.name,
    pid: t.pid,
    cpu: t.cpu,
    observed: t.observed_share_pct,
    observedSwitches: t.observed_switches,
    observedCpu: t.observed_cpu_pct,
    observedMigrations: t.observed_migrations,
    simulated: runs.map((r) => r.report.tasks.find((x) => x.name === t.name && x.pid === t.pid)?.simulated_share_pct ?? NaN),
    // The last run's CPU time, migrations and switches.
    simulatedCpu: runs[runs.length - 1].report.tasks.find((x) => x.name === t.name && x.pid === t.pid)?.simulated_cpu_pct ?? NaN,
    simulatedMigrations: runs[runs.length - 1].report.tasks.find((x) => x.name === t.name && x.pid === t.pid)?.simulated_migrations,
    simulatedSwitches: runs[runs.length - 1].report.tasks.find((x) => x.name === t.name && x.pid === t.pid)?.simulated_switches,
  }));
}

/**
 * What the per-decision replay did with CFS bandwidth and cgroup moves, in a sentence (null
 * when the trace shows neither): where the unthrottles were placed (at the period timer's
 * expiries the trace shows, or where the trace first shows them) and the moves replayed.
 */
export function bandwidthLine(d: ReplayReport['decisions']): string | null {
  const parts: string[] = [];
  if (d.throttled + d.unthrottles > 0) {
    const at =
      d.period_timers > 0
        ? `at the ${d.period_timers} period timer expiries the trace shows`
        : 'where the trace first shows them (the period timer is not in this trace; tools/capture records it)';
    const resyncs = d.throttle_resyncs > 0 ? ` (${d.throttle_resyncs} throttles taken from the trace where the model still had runtime)` : '';
    parts.push(`CFS bandwidth: ${d.throttled} tasks throttled, ${d.unthrottles} unthrottles ${at}${resyncs}`);
  }
  if (d.cgroup_moves > 0) parts.push(`${d.cgroup_moves} cgroup moves replayed where the trace shows them`);
  return parts.length ? `${parts.join('; ')}.` : null;
}

/** The tasks the layout puts in another cgroup than their parent while the trace does not show
 * them moving (`ReplayReport.unseen_moves`, as `schedlab replay` says it), or null. */
export function unseenMovesLine(r: Pick<ReplayReport, 'unseen_moves'>): string | null {
  if (r.unseen_moves.length === 0) return null;
  return (
    `Moves not in the trace: ${r.unseen_moves.join(', ')} were forked in the trace into another cgroup than their parent's, ` +
    `and the trace has no cgroup_attach_task of theirs: each starts in its cgroup here, where the kernel moved it later, and ` +
    `where the groups' lags start decides the picks (tools/capture records the moves; an EEVDF dump seeds the start).`
  );
}

/** Where the shadow's ticks fall in each tick period against the trace's
 * (`ReplayReport.tick_phase_ns`, `trace_tick_phase_ns`), as `schedlab replay` says it. */
export function tickPhaseLine(r: Pick<ReplayReport, 'tick_phase_ns' | 'trace_tick_phase_ns'>): string {
  const ms = (ns: number) => `+${(ns / 1e6).toFixed(3)} ms`;
  const shadow = `Ticks at ${ms(r.tick_phase_ns)} of each period`;
  if (r.trace_tick_phase_ns === null) return `${shadow}; the trace shows no tick records.`;
  if (r.trace_tick_phase_ns === r.tick_phase_ns) return `${shadow}, at the trace's.`;
  return `${shadow}, the trace's at ${ms(r.trace_tick_phase_ns)} (variant tick_phase=trace aligns them).`;
}
