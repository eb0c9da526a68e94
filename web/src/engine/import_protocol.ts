// The trace-import half of the worker protocol: data shapes of an imported trace (the engine's
// ImportSummary and the replay view's columns) and the import messages. protocol.ts joins the
// messages into its Request/Response unions and re-exports these types.

/** A skip reason with the first few `line:column` examples. */
export interface SkipReason {
  reason: string;
  count: number;
  examples: string[];
}

export interface TraceTaskRow {
  pid: number;
  generation: number;
  comm: string;
  switches: number;
  switches_runnable: number;
  switches_preempted: number;
  switches_in: number;
  wakeups: number;
}

/** Something a view needs that the trace does not have, and how to capture it. */
export interface MissingData {
  what: string;
  needed_for: string;
  capture: string;
}

/** The engine's `ImportSummary` (`schedlab import --json`). */
export interface ImportSummary {
  format: string | null;
  format_name: string;
  grammar: string | null;
  binary: string | null;
  bytes: number;
  lines_read: number;
  lines_skipped: number;
  skipped: SkipReason[];
  total_events: number;
  events: Record<string, number>;
  eevdf_samples: number;
  eevdf_tasks: { pid: number; comm: string; samples: number; group_samples: number }[];
  eevdf_span_ns: [number, number] | null;
  tasks: TraceTaskRow[];
  cpus: number[];
  cpus_declared: number | null;
  first_ts_ns: number | null;
  last_ts_ns: number | null;
  duration_ns: number;
  lost_events: Record<string, number>;
  lost_lines: number;
  out_of_order: number;
  switch_forms: string[];
  raw_prev_states: Record<string, number>;
  missing: MissingData[];
}

/** How a bpftrace EEVDF dump was put on the trace's clock. */
export interface EevdfAlignment {
  offset_ns: number;
  in_trace: number;
  matched: number;
  median_error_ns: number;
  accepted: boolean;
  reason: string | null;
}

export interface DatInfo {
  version: number;
  cpus: number;
  clock: string;
  compression: string;
  page_size: number;
  uname: string;
  tracer_version: string;
  event_formats: number;
  cmdlines: number;
  records: number;
  lost_events: number;
  skipped: number;
}

/** `ImportHandle.summary()`. Times in the replay columns are ns after `timeline.origin_ns`. */
export interface ImportReport {
  summary: ImportSummary;
  dat: DatInfo | null;
  /** Why decoding stopped early (a damaged .dat), if it did. */
  error: string | null;
  timeline: {
    origin_ns: number;
    duration_ns: number;
    cpus: number;
    spans: number;
    /** Spans ended by a record naming another current task (their sched_switch is missing). */
    missing_switch_outs: number;
    /** CPU → records whose time was earlier than that CPU's previous record (kept). */
    out_of_order_by_cpu: Record<string, number>;
  };
  eevdf: { samples: number; tasks: { pid: number; comm: string; samples: number; group_samples: number }[]; alignment: EevdfAlignment | null };
}

/** One task generation of the trace; the replay columns' task ids index this table. */
export interface TraceTask {
  pid: number;
  generation: number;
  /** The last comm the trace printed for it; `comms` all of them joined with ` → `. */
  comm: string;
  comms: string;
  prio: number | null;
}

/** An imported trace as the app holds it. */
export interface ImportedTrace {
  file: string;
  size: number;
  report: ImportReport;
  tasks: TraceTask[];
  /** Set when an EEVDF dump file was attached to this trace. */
  eevdfFile: string | null;
}

/** Replay view columns of a window (times relative to the origin, ns). `span_state` is the
 * prev_state code the span ended with (SPAN_OPEN / SPAN_LOST for the special cases);
 * `span_count` > 1 marks merged spans. Wakeups carry the wakee's next switch-in (`wake_run_t`
 * −1 when none); `omitted` = [wakeups, migrations] left out for density. */
export interface ReplayWindowData {
  t0: number;
  t1: number;
  bucket: number;
  span_cpu: Uint32Array;
  span_task: Uint32Array;
  span_start: Float64Array;
  span_end: Float64Array;
  span_state: Uint32Array;
  span_count: Uint32Array;
  span_index: Uint32Array;
  wake_t: Float64Array;
  wake_cpu: Uint32Array;
  wake_waker: Uint32Array;
  wake_wakee: Uint32Array;
  wake_target: Int32Array;
  wake_kind: Uint32Array;
  wake_run_t: Float64Array;
  wake_run_cpu: Uint32Array;
  mig_t: Float64Array;
  mig_cpu: Uint32Array;
  mig_task: Uint32Array;
  mig_orig: Int32Array;
  mig_dest: Int32Array;
  omitted: Uint32Array;
}

/** EEVDF samples of a window: kind 0 = a task's `S` line, 1 = its parent group's `G` line;
 * v and d are vruntime and deadline minus the cfs_rq's zero_vruntime (signed ns). */
export interface EevdfWindowData {
  t0: number;
  t1: number;
  t: Float64Array;
  pid: Int32Array;
  cpu: Uint32Array;
  kind: Uint32Array;
  v: Float64Array;
  d: Float64Array;
  lag: Float64Array;
  slice: Float64Array;
  weight: Float64Array;
  state: Int32Array;
  nr: Uint32Array;
  omitted: Uint32Array;
}

/** A record as the inspector shows it. */
export interface TraceRecordView {
  event: string;
  ts_ns: number;
  /** ns after the origin. */
  t: number;
  cpu: number;
  line: number;
  pid: number | null;
  comm: string | null;
  fields: [string, string][];
}

export interface SpanInfo {
  index: number;
  cpu: number;
  task: number;
  pid: number;
  comm: string;
  prio: number | null;
  start: number;
  end: number;
  state: string;
  state_code: number;
  switch_in: TraceRecordView | null;
  switch_out: TraceRecordView | null;
}

/** `schedlab replay --json`. */
export interface ReplayReport {
  scenario: string;
  variants: [string, string][];
  window_ns: number;
  cpus: number;
  tasks: {
    name: string;
    pid: number;
    cpu: number;
    observed_ns: number;
    simulated_ns: number;
    observed_share_pct: number;
    simulated_share_pct: number;
    observed_switches: number;
    simulated_switches: number;
    observed_yields: number;
    simulated_yields: number;
  }[];
  left_out: { comm: string; pid: number; prio: number; runtime_ns: number }[];
  agreement_pct: number;
  max_share_error_pp: number;
  /** The model's picks along the real schedule (engine `replay::decisions`). */
  decisions: {
    scored: number;
    agreed: number;
    agreement_pct: number;
    quiet_yields: number;
    idle_picks: number;
    not_queued: number;
    other_class: number;
  };
}

export interface ImportProgress {
  phase: 'reading' | 'decoding' | 'building';
  bytes: number;
  total: number;
  lines: number;
  records: number;
}

/** What the worker holds (for tests: a cancelled import frees its handle). */
export interface WorkerStats {
  importHandles: number;
  simHandles: number;
  wasmMemoryBytes: number;
}

export type ImportRequest =
  | { v: 1; id: number; type: 'import'; file: File; attach: boolean; chunkBytes?: number }
  | { v: 1; id: number; type: 'importWindow'; t0: number; t1: number; bucket: number; limit: number }
  | { v: 1; id: number; type: 'eevdfWindow'; t0: number; t1: number; limit: number }
  | { v: 1; id: number; type: 'record'; cpu: number; t: number; tol: number }
  | { v: 1; id: number; type: 'span'; index: number }
  | { v: 1; id: number; type: 'shadow'; layout: string; variants: [string, string][] }
  | { v: 1; id: number; type: 'closeImport' }
  | { v: 1; id: number; type: 'stats' };

export type ImportResponse =
  | { v: 1; id: number; type: 'importProgress'; progress: ImportProgress }
  | { v: 1; id: number; type: 'imported'; trace: ImportedTrace; alignment: EevdfAlignment | null }
  | { v: 1; id: number; type: 'importWindow'; data: ReplayWindowData }
  | { v: 1; id: number; type: 'eevdfWindow'; data: EevdfWindowData }
  | { v: 1; id: number; type: 'record'; record: TraceRecordView | null }
  | { v: 1; id: number; type: 'span'; span: SpanInfo | null }
  | { v: 1; id: number; type: 'shadow'; report: ReplayReport }
  | { v: 1; id: number; type: 'closed' }
  | { v: 1; id: number; type: 'stats'; stats: WorkerStats };

/** span_state of a span still on its CPU when the trace ended. */
export const SPAN_OPEN = 0xffffffff;
/** span_state of a span whose switch-out is missing from the trace. */
export const SPAN_LOST = 0xfffffffe;
