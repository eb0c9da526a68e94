// The trace-import half of the engine worker: reads the user's File in slices (a 1 GB file never
// sits in memory whole: only a .dat, which the decoder needs whole, is gathered inside wasm),
// feeds an ImportHandle, posts progress and honours a cancel between slices and decode steps.
// Holds the imported trace (and an EEVDF dump or a CPU-averages dump attached to it) for the
// replay view's queries,
// a second capture (B) for the A/B comparison (kept when another trace replaces A, freed with
// closeImport or closeB, or when another B replaces it),
// and runs the shadow re-simulation by reading the file again into a ReplayHandle. Every
// request gets exactly one final reply.

import { ImportHandle, ReplayHandle } from '../generated/wasm/schedlab_wasm';
import {
  DIFF_LATENCY_COLS_LAYOUT,
  EEVDF_WINDOW_COLS_LAYOUT,
  THREAD_STATE_COLS_LAYOUT,
  REPLAY_WINDOW_COLS_LAYOUT,
  takeColumns,
  type Alignment,
  type BalanceAttach,
  type CpuAvgAttach,
  type DiffOutcome,
  type ImportedTrace,
  type ImportReport,
  type ReplayReport,
  type Request,
  type Response,
  type ShadowOutcome,
  type SpreadTable,
  type SpanInfo,
  type TraceRecordView,
  type WindowMetrics,
  type TraceTask,
  type WorkerStats,
} from './protocol';

export interface WorkerCtx {
  post(msg: Response, transfer?: Transferable[]): void;
  cancelled(): boolean;
  yieldToEvents(): Promise<void>;
  simHandles(): number;
  wasmMemoryBytes(): number;
}

/** The import requests (and `stats`), which this module answers. */
export type ImportRequest = Extract<
  Request,
  { type: 'import' | 'importWindow' | 'eevdfWindow' | 'threadStates' | 'windowMetrics' | 'record' | 'span' | 'shadow' | 'closeImport' | 'stats' | 'importB' | 'importBWindow' | 'diff' | 'closeB' | 'shadowAsB' | 'shadowSpread' | 'layoutTasks' }
>;

/** Bytes read from the File per slice. */
export const CHUNK_BYTES = 4 << 20;
/** .dat records decoded between progress reports. */
const DAT_STEP = 100_000;

type Req<T extends ImportRequest['type']> = Extract<ImportRequest, { type: T }>;

interface Held {
  h: ImportHandle;
  file: File;
  kind: 'trace' | 'dump';
  trace: ImportedTrace;
}

let current: Held | null = null;
/** An EEVDF dump attached to `current`. */
let attached: ImportHandle | null = null;
/** A second capture compared with `current` (the A/B view). */
let b: Held | null = null;
let live = 0;

function free(h: ImportHandle | null) {
  if (h) {
    h.free();
    live--;
  }
}

function parse<T>(json: string): T {
  return JSON.parse(json) as T;
}

function describe(h: ImportHandle, file: File, eevdfFile: string | null, cpuAvgFile: string | null = null, balanceFile: string | null = null): ImportedTrace {
  return { file: file.name, size: file.size, report: parse<ImportReport>(h.summary()), tasks: parse<TraceTask[]>(h.tasks()), eevdfFile, cpuAvgFile, balanceFile };
}

/** The EEVDF alignment last reported (kept when a CPU-averages dump is attached after it). */
let lastAlignment: Alignment | null = null;

/** Bytes of a file's start read to tell a CPU-averages dump (`schedlab-cpu-avg.bt`) from a trace. */
const SNIFF_BYTES = 4096;
/** A CPU-averages or balance-pass dump is read whole (a minute of two busy CPUs is ~15 MB). */
const SIDE_DUMP_MAX_BYTES = 256 << 20;

/** The bpftrace dumps read whole beside a trace, told apart by their first lines. */
type SideDump = 'cpuAvg' | 'balance';

async function sideDump(file: File): Promise<SideDump | null> {
  const head = await file.slice(0, SNIFF_BYTES).text();
  if (/^(# schedlab-cpu-avg|@c\[)/m.test(head)) return 'cpuAvg';
  if (/^(# schedlab-balance|@s\[)/m.test(head)) return 'balance';
  return null;
}

const SIDE_WORDS: Record<SideDump, string> = { cpuAvg: "a dump of each CPU's PELT averages", balance: 'a dump of the balance passes' };

/** Attaches a CPU-averages dump or a balance-pass dump to the trace on screen (the shadow's
 * replay reads it: `schedlab replay --cpu-avg` / `--balance`). */
async function attachSide(ctx: WorkerCtx, id: number, file: File, kind: SideDump) {
  if (!current || current.kind !== 'trace') {
    const message = `${SIDE_WORDS[kind]} goes with its trace: open the trace first, then the dump`;
    return ctx.post({ id, type: 'error', error: { file: file.name, line: 0, column: 0, message } });
  }
  if (file.size > SIDE_DUMP_MAX_BYTES) {
    const message = `${SIDE_WORDS[kind]} of ${file.size} bytes is larger than the ${SIDE_DUMP_MAX_BYTES >> 20} MiB read whole`;
    return ctx.post({ id, type: 'error', error: { file: file.name, line: 0, column: 0, message } });
  }
  const text = await file.text();
  const out = kind === 'cpuAvg' ? parse<CpuAvgAttach>(current.h.attach_cpu_avg(file.name, text)) : parse<BalanceAttach>(current.h.attach_balance(file.name, text));
  // The message is located already (`file:line:column: expected …`), as a layout's errors are.
  if (out.kind === 'error') return ctx.post({ id, type: 'error', error: { file: file.name, line: 0, column: 0, message: out.message } });
  current.trace = kind === 'cpuAvg' ? { ...current.trace, cpuAvgFile: file.name } : { ...current.trace, balanceFile: file.name };
  ctx.post({ id, type: 'imported', trace: current.trace, alignment: lastAlignment });
}

/** Reads `file` into a sink (`feed`/`finish`/`step`), with progress and cancel. False if cancelled. */
async function readInto(
  ctx: WorkerCtx,
  id: number,
  file: File,
  sink: { feed(c: Uint8Array): void; finish(): void; step(n: number): boolean; bytes_done(): number },
  counts: () => { lines: number; records: number },
  chunk: number,
): Promise<boolean> {
  const total = file.size;
  for (let off = 0; off < total; off += chunk) {
    if (ctx.cancelled()) return false;
    const buf = await file.slice(off, Math.min(total, off + chunk)).arrayBuffer();
    sink.feed(new Uint8Array(buf));
    ctx.post({ id, type: 'importProgress', progress: { phase: 'reading', bytes: Math.min(total, off + chunk), total, ...counts() } });
    await ctx.yieldToEvents();
  }
  if (ctx.cancelled()) return false;
  sink.finish();
  for (;;) {
    const more = sink.step(DAT_STEP);
    if (!more) break;
    ctx.post({ id, type: 'importProgress', progress: { phase: 'decoding', bytes: sink.bytes_done(), total, ...counts() } });
    await ctx.yieldToEvents();
    if (ctx.cancelled()) return false;
  }
  return true;
}

/** A new import handle with `file` read into it, or null (and `cancelled` posted) when the
 * user cancelled; its progress is posted as it goes. */
async function readHandle(ctx: WorkerCtx, id: number, file: File, chunkBytes: number | undefined): Promise<ImportHandle | null> {
  const h = new ImportHandle(file.size);
  live++;
  let ok: boolean;
  try {
    ok = await readInto(ctx, id, file, h, () => ({ lines: h.lines(), records: h.records() }), chunkBytes ?? CHUNK_BYTES);
  } catch (e) {
    free(h);
    throw e;
  }
  if (!ok) {
    free(h);
    ctx.post({ id, type: 'cancelled' });
    return null;
  }
  ctx.post({ id, type: 'importProgress', progress: { phase: 'building', bytes: file.size, total: file.size, lines: h.lines(), records: h.records() } });
  return h;
}

async function importFile(ctx: WorkerCtx, id: number, req: Req<'import'>) {
  const file = req.file;
  const side = await sideDump(file);
  if (side) return attachSide(ctx, id, file, side);
  const h = await readHandle(ctx, id, file, req.chunkBytes);
  if (!h) return;
  const report = parse<ImportReport>(h.summary());
  const isDump = report.summary.total_events === 0 && report.eevdf.samples > 0;
  let alignment: Alignment | null = null;
  if (req.attach && isDump && current?.kind === 'trace') {
    // A dump for the trace on screen: put it on the trace's clock.
    alignment = parse<Alignment>(current.h.attach_eevdf(h));
    free(attached);
    attached = h;
    current.trace = describe(current.h, current.file, alignment.accepted ? file.name : null, current.trace.cpuAvgFile, current.trace.balanceFile);
  } else if (req.attach && !isDump && current?.kind === 'dump') {
    // The dump came first: attach it to this trace.
    alignment = parse<Alignment>(h.attach_eevdf(current.h));
    free(attached);
    attached = current.h;
    current = { h, file, kind: 'trace', trace: describe(h, file, alignment.accepted ? current.file.name : null) };
  } else {
    free(attached);
    attached = null;
    if (current) free(current.h);
    current = { h, file, kind: isDump ? 'dump' : 'trace', trace: describe(h, file, null) };
  }
  lastAlignment = alignment;
  ctx.post({ id, type: 'imported', trace: current.trace, alignment });
}

function noTrace(ctx: WorkerCtx, id: number, which: 'A' | 'B' = 'A') {
  const message = which === 'A' ? 'no trace is imported' : 'no second trace (B) is imported';
  ctx.post({ id, type: 'error', error: { file: '', line: 0, column: 0, message } });
}

function closeB() {
  if (b) free(b.h);
  b = null;
}

/** Imports a second capture as B beside `current` (which it needs), replacing a previous B
 * once the new one is complete. */
async function importB(ctx: WorkerCtx, id: number, req: Req<'importB'>) {
  if (!current || current.kind !== 'trace') return noTrace(ctx, id);
  const file = req.file;
  const h = await readHandle(ctx, id, file, req.chunkBytes);
  if (!h) return;
  closeB();
  b = { h, file, kind: 'trace', trace: describe(h, file, null) };
  ctx.post({ id, type: 'importedB', trace: b.trace });
}

/** The engine's diff of A (`current`) and B, with each task row's latencies. */
function diffAB(ctx: WorkerCtx, id: number, req: Req<'diff'>) {
  if (!current) return noTrace(ctx, id);
  if (!b) return noTrace(ctx, id, 'B');
  const run = current.h.diff(b.h, req.noisePct, JSON.stringify(req.matches));
  try {
    const out = parse<DiffOutcome>(run.json());
    if (out.kind === 'error') return ctx.post({ id, type: 'error', error: { file: b.file.name, line: 0, column: 0, message: out.message } });
    const lat = takeColumns(run.latencies(), DIFF_LATENCY_COLS_LAYOUT);
    ctx.post({ id, type: 'diff', diff: out.diff, latencies: lat.cols }, lat.transfer);
  } finally {
    run.free();
  }
}

export async function handleImportRequest(ctx: WorkerCtx, req: ImportRequest): Promise<void> {
  const id = req.id;
  switch (req.type) {
    case 'import':
      return importFile(ctx, id, req);
    case 'importWindow': {
      if (!current) return noTrace(ctx, id);
      const { cols, transfer } = takeColumns(current.h.window(req.t0, req.t1, req.bucket, req.limit), REPLAY_WINDOW_COLS_LAYOUT);
      return ctx.post({ id, type: 'importWindow', data: { ...cols, t0: req.t0, t1: req.t1, bucket: req.bucket } }, transfer);
    }
    case 'eevdfWindow': {
      if (!current) return noTrace(ctx, id);
      const { cols, transfer } = takeColumns(current.h.eevdf_window(req.t0, req.t1, req.limit), EEVDF_WINDOW_COLS_LAYOUT);
      return ctx.post({ id, type: 'eevdfWindow', data: { ...cols, t0: req.t0, t1: req.t1 } }, transfer);
    }
    case 'threadStates': {
      if (!current) return noTrace(ctx, id);
      const tasks = Uint32Array.from(req.tasks);
      const { cols, transfer } = takeColumns(current.h.thread_states(tasks, req.t0, req.t1, req.bucket), THREAD_STATE_COLS_LAYOUT);
      return ctx.post({ id, type: 'threadStates', data: { ...cols, t0: req.t0, t1: req.t1, bucket: req.bucket, tasks: req.tasks } }, transfer);
    }
    case 'windowMetrics': {
      if (!current) return noTrace(ctx, id);
      const r = parse<{ metrics: WindowMetrics; csv: string } | null>(current.h.window_metrics(req.t0, req.t1, Uint32Array.from(req.cpus), Uint32Array.from(req.tasks)));
      if (!r) return noTrace(ctx, id);
      return ctx.post({ id, type: 'windowMetrics', metrics: r.metrics, csv: r.csv });
    }
    case 'record':
      if (!current) return noTrace(ctx, id);
      return ctx.post({ id, type: 'record', record: parse<TraceRecordView | null>(current.h.record_at(req.cpu, req.t, req.tol)) });
    case 'span':
      if (!current) return noTrace(ctx, id);
      return ctx.post({ id, type: 'span', span: parse<SpanInfo | null>(current.h.span_info(req.index)) });
    case 'shadow':
      return shadow(ctx, id, req);
    case 'shadowSpread':
      return shadowSpread(ctx, id, req);
    case 'shadowAsB':
      return shadowAsB(ctx, id, req);
    case 'closeImport':
      free(attached);
      attached = null;
      closeB();
      if (current) free(current.h);
      current = null;
      return ctx.post({ id, type: 'closed' });
    case 'importB':
      return importB(ctx, id, req);
    case 'importBWindow': {
      if (!b) return noTrace(ctx, id, 'B');
      const { cols, transfer } = takeColumns(b.h.window(req.t0, req.t1, req.bucket, req.limit), REPLAY_WINDOW_COLS_LAYOUT);
      return ctx.post({ id, type: 'importWindow', data: { ...cols, t0: req.t0, t1: req.t1, bucket: req.bucket } }, transfer);
    }
    case 'diff':
      return diffAB(ctx, id, req);
    case 'closeB':
      closeB();
      return ctx.post({ id, type: 'closed' });
    case 'layoutTasks': {
      if (!current) return noTrace(ctx, id);
      let json: string;
      try {
        json = current.h.tasks_with_layout(req.layout);
      } catch (e) {
        return ctx.post({ id, type: 'error', error: { file: 'layout', line: 0, column: 0, message: typeof e === 'string' ? e : String(e) } });
      }
      return ctx.post({ id, type: 'tasks', tasks: parse<TraceTask[]>(json) });
    }
    case 'stats': {
      const stats: WorkerStats = { importHandles: live, simHandles: ctx.simHandles(), wasmMemoryBytes: ctx.wasmMemoryBytes() };
      return ctx.post({ id, type: 'stats', stats });
    }
  }
}

/** Reads the trace on screen into a replay handle, with its attached dumps, and hands it and
 * the shadow scenario's name to `go` (the handle is freed after); a missing trace, a cancel
 * while reading and a dump-only import are posted here. */
async function runShadowWith(ctx: WorkerCtx, id: number, go: (r: ReplayHandle, name: string) => Promise<void> | void) {
  if (!current) return noTrace(ctx, id);
  if (current.kind !== 'trace') {
    const message = 'the shadow re-simulation needs a trace with sched_switch records; an EEVDF dump alone has none';
    return ctx.post({ id, type: 'error', error: { file: current.file.name, line: 0, column: 0, message } });
  }
  const file = current.file;
  const r = new ReplayHandle(file.size);
  try {
    const ok = await readInto(ctx, id, file, r, () => ({ lines: 0, records: 0 }), CHUNK_BYTES);
    if (!ok) return ctx.post({ id, type: 'cancelled' });
    // The dumps attached to the trace reach the per-decision replay (`schedlab replay --eevdf`,
    // `--cpu-avg`, `--balance`).
    if (current.trace.eevdfFile || current.trace.cpuAvgFile || current.trace.balanceFile) r.seed_from(current.h);
    await go(r, `replay/${file.name.replace(/\.[^.]*$/, '')}`);
  } finally {
    r.free();
  }
}

/** Runs the shadow re-simulation of the trace on screen and hands its handle and report to
 * `then`; errors and a cancel are posted here. */
function runShadow(
  ctx: WorkerCtx,
  id: number,
  req: { layout: string; pin: string; variants: [string, string][] },
  then: (r: ReplayHandle, report: ReplayReport) => void,
) {
  return runShadowWith(ctx, id, (r, name) => {
    const out = parse<ShadowOutcome>(r.run(name, req.layout, req.pin, JSON.stringify(req.variants)));
    if (out.kind === 'error') return ctx.post({ id, type: 'error', error: { file: 'layout', line: 0, column: 0, message: out.message } });
    then(r, out.report);
  });
}

function shadow(ctx: WorkerCtx, id: number, req: Req<'shadow'>) {
  return runShadow(ctx, id, req, (_, report) => ctx.post({ id, type: 'shadow', report }));
}

/** The shadow run `req.n` times, differing in `req.kind` (`schedlab replay --seeds N` /
 * `--tick-phases N`): the trace read once, then one run per step with its progress posted and
 * a cancel honoured between runs; the table over the runs when all are done. */
async function shadowSpread(ctx: WorkerCtx, id: number, req: Req<'shadowSpread'>) {
  await runShadowWith(ctx, id, async (r, name) => {
    const variants = JSON.stringify(req.variants);
    for (let k = 0; k < req.n; k++) {
      const out = parse<ShadowOutcome>(r.run_spread(name, req.layout, req.pin, variants, req.kind, req.n, k));
      if (out.kind === 'error') return ctx.post({ id, type: 'error', error: { file: 'layout', line: 0, column: 0, message: out.message } });
      ctx.post({ id, type: 'importProgress', progress: { phase: 'simulating', bytes: k + 1, total: req.n, lines: 0, records: 0 } });
      await ctx.yieldToEvents();
      if (ctx.cancelled()) return ctx.post({ id, type: 'cancelled' });
    }
    const table = parse<SpreadTable | null>(r.spread_table());
    if (!table) return ctx.post({ id, type: 'error', error: { file: 'layout', line: 0, column: 0, message: 'the spread made no run' } });
    ctx.post({ id, type: 'shadowSpread', table });
  });
}

/** The shadow's run opened as B: "would this variant have helped this capture?" */
function shadowAsB(ctx: WorkerCtx, id: number, req: Req<'shadowAsB'>) {
  return runShadow(ctx, id, req, (r) => {
    const h = ImportHandle.from_shadow(r);
    if (!h) return ctx.post({ id, type: 'error', error: { file: 'layout', line: 0, column: 0, message: 'the shadow did not run' } });
    live++;
    closeB();
    const file = new File([], req.label);
    b = { h, file, kind: 'trace', trace: describe(h, file, null) };
    ctx.post({ id, type: 'importedB', trace: b.trace });
  });
}
