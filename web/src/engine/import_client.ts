// The client side of trace import: one method per import request, each a promise. The
// EngineClient owns the worker and hands this its send function (engine/ is the only layer
// that talks to the worker).

import { failure } from './client';
import type {
  Alignment,
  DiffLatencyCols,
  EevdfWindowData,
  ThreadStateData,
  ImportedTrace,
  ImportProgress,
  ReplayReport,
  ReplayWindowData,
  RequestBody,
  Response,
  SpanInfo,
  SpreadTable,
  TraceDiff,
  TraceRecordView,
  TraceTask,
  WindowMetrics,
  WorkerStats,
} from './protocol';

type Send = (req: RequestBody, onMessage?: (r: Response) => void) => Promise<Response>;

function fail(r: Response): never {
  throw failure(r);
}

export class ImportClient {
  constructor(private readonly send: Send) {}

  /** Imports a trace file (or attaches an EEVDF dump to the trace on screen when `attach`).
   * Resolves to null when cancelled (EngineClient.cancel()). */
  async importFile(
    file: File,
    opts: { attach?: boolean; chunkBytes?: number; onProgress?: (p: ImportProgress) => void } = {},
  ): Promise<{ trace: ImportedTrace; alignment: Alignment | null } | null> {
    const r = await this.send({ type: 'import', file, attach: opts.attach ?? false, chunkBytes: opts.chunkBytes }, (m) => {
      if (m.type === 'importProgress') opts.onProgress?.(m.progress);
    });
    if (r.type === 'cancelled') return null;
    if (r.type !== 'imported') fail(r);
    return { trace: r.trace, alignment: r.alignment };
  }

  /** Spans (merged below `bucket` ns), wakeups and migrations of [t0, t1) (ns after the origin). */
  async window(t0: number, t1: number, bucket: number, limit: number): Promise<ReplayWindowData> {
    const r = await this.send({ type: 'importWindow', t0, t1, bucket, limit });
    if (r.type !== 'importWindow') fail(r);
    return r.data;
  }

  async eevdf(t0: number, t1: number, limit: number): Promise<EevdfWindowData> {
    const r = await this.send({ type: 'eevdfWindow', t0, t1, limit });
    if (r.type !== 'eevdfWindow') fail(r);
    return r.data;
  }

  /** Thread-state segments of `tasks` in [t0, t1), merged below `bucket` ns. */
  async threadStates(tasks: number[], t0: number, t1: number, bucket: number): Promise<ThreadStateData> {
    const r = await this.send({ type: 'threadStates', tasks, t0, t1, bucket });
    if (r.type !== 'threadStates') fail(r);
    return r.data;
  }

  /** The figures of [t0, t1) on `cpus`, of `tasks` (empty: all), with the same as CSV. */
  async windowMetrics(t0: number, t1: number, cpus: number[], tasks: number[]): Promise<{ metrics: WindowMetrics; csv: string }> {
    const r = await this.send({ type: 'windowMetrics', t0, t1, cpus, tasks });
    if (r.type !== 'windowMetrics') fail(r);
    return { metrics: r.metrics, csv: r.csv };
  }

  /** The record of `cpu` nearest `t` within `tol` ns. */
  async record(cpu: number, t: number, tol: number): Promise<TraceRecordView | null> {
    const r = await this.send({ type: 'record', cpu, t, tol });
    if (r.type !== 'record') fail(r);
    return r.record;
  }

  async span(index: number): Promise<SpanInfo | null> {
    const r = await this.send({ type: 'span', index });
    if (r.type !== 'span') fail(r);
    return r.span;
  }

  /** Shadow re-simulation of the imported trace; null when cancelled. */
  async shadow(layout: string, pin: string, variants: [string, string][], onProgress?: (p: ImportProgress) => void): Promise<ReplayReport | null> {
    const r = await this.send({ type: 'shadow', layout, pin, variants }, (m) => {
      if (m.type === 'importProgress') onProgress?.(m.progress);
    });
    if (r.type === 'cancelled') return null;
    if (r.type !== 'shadow') fail(r);
    return r.report;
  }

  /** The shadow re-simulation run `n` times, differing in `kind` (seeds 1 to n, or n phases of
   * the tick period), and each task's CPU time over the runs; null when cancelled. Progress
   * comes after each run (`simulating`: runs done of `total`), after the trace's reading. */
  async shadowSpread(
    layout: string,
    pin: string,
    variants: [string, string][],
    kind: 'seeds' | 'tick_phases',
    n: number,
    onProgress?: (p: ImportProgress) => void,
  ): Promise<SpreadTable | null> {
    const r = await this.send({ type: 'shadowSpread', layout, pin, variants, kind, n }, (m) => {
      if (m.type === 'importProgress') onProgress?.(m.progress);
    });
    if (r.type === 'cancelled') return null;
    if (r.type !== 'shadowSpread') fail(r);
    return r.table;
  }

  /** Frees the imported trace in the worker. */
  async close(): Promise<void> {
    const r = await this.send({ type: 'closeImport' });
    if (r.type !== 'closed') fail(r);
  }

  /** Imports a second capture as B beside the trace on screen. Resolves to null when cancelled. */
  async importB(file: File, opts: { chunkBytes?: number; onProgress?: (p: ImportProgress) => void } = {}): Promise<ImportedTrace | null> {
    const r = await this.send({ type: 'importB', file, chunkBytes: opts.chunkBytes }, (m) => {
      if (m.type === 'importProgress') opts.onProgress?.(m.progress);
    });
    if (r.type === 'cancelled') return null;
    if (r.type !== 'importedB') fail(r);
    return r.trace;
  }

  /** The shadow re-simulation of the trace on screen under `variants`, its run opened as B
   * (named `label`). Resolves to null when cancelled. */
  async shadowAsB(
    layout: string,
    pin: string,
    variants: [string, string][],
    label: string,
    onProgress?: (p: ImportProgress) => void,
  ): Promise<ImportedTrace | null> {
    const r = await this.send({ type: 'shadowAsB', layout, pin, variants, label }, (m) => {
      if (m.type === 'importProgress') onProgress?.(m.progress);
    });
    if (r.type === 'cancelled') return null;
    if (r.type !== 'importedB') fail(r);
    return r.trace;
  }

  /** B's spans, wakeups and migrations of [t0, t1) (ns after B's origin). */
  async windowB(t0: number, t1: number, bucket: number, limit: number): Promise<ReplayWindowData> {
    const r = await this.send({ type: 'importBWindow', t0, t1, bucket, limit });
    if (r.type !== 'importWindow') fail(r);
    return r.data;
  }

  /** The A/B diff at a noise level (%), with renames `[comm in A, comm in B]`. */
  async diff(noisePct: number, matches: [string, string][] = []): Promise<{ diff: TraceDiff; latencies: DiffLatencyCols }> {
    const r = await this.send({ type: 'diff', noisePct, matches });
    if (r.type !== 'diff') fail(r);
    return { diff: r.diff, latencies: r.latencies };
  }

  /** Frees B in the worker. */
  async closeB(): Promise<void> {
    const r = await this.send({ type: 'closeB' });
    if (r.type !== 'closed') fail(r);
  }

  /** The trace on screen's task table with the cgroups a replay layout file's `[tasks]` names
   * (empty text: the trace's own). A layout that does not parse rejects with its located error. */
  async layoutTasks(layout: string): Promise<TraceTask[]> {
    const r = await this.send({ type: 'layoutTasks', layout });
    if (r.type !== 'tasks') fail(r);
    return r.tasks;
  }

  async stats(): Promise<WorkerStats> {
    const r = await this.send({ type: 'stats' });
    if (r.type !== 'stats') fail(r);
    return r.stats;
  }
}
