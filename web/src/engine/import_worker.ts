// The trace-import half of the engine worker: reads the user's File in slices (a 1 GB file never
// sits in memory whole: only a .dat, which the decoder needs whole, is gathered inside wasm),
// feeds an ImportHandle, posts progress and honours a cancel between slices and decode steps.
// Holds the imported trace (and an EEVDF dump attached to it) for the replay view's queries,
// and runs the shadow re-simulation by reading the file again into a ReplayHandle.

import { ImportHandle, ReplayHandle, type Columns } from '../generated/wasm/schedlab_wasm';
import type { EevdfAlignment, ImportedTrace, ImportReport, ImportRequest, Response, TraceTask, WorkerStats } from './protocol';

export interface WorkerCtx {
  post(msg: Response, transfer?: Transferable[]): void;
  cancelled(): boolean;
  yieldToEvents(): Promise<void>;
  simHandles(): number;
  wasmMemoryBytes(): number;
}

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
let live = 0;

function free(h: ImportHandle | null) {
  if (h) {
    h.free();
    live--;
  }
}

function describe(h: ImportHandle, file: File, eevdfFile: string | null): ImportedTrace {
  const report = JSON.parse(h.summary()) as ImportReport;
  const tasks = JSON.parse(h.tasks()) as TraceTask[];
  return { file: file.name, size: file.size, report, tasks, eevdfFile };
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
    ctx.post({ v: 1, id, type: 'importProgress', progress: { phase: 'reading', bytes: Math.min(total, off + chunk), total, ...counts() } });
    await ctx.yieldToEvents();
  }
  if (ctx.cancelled()) return false;
  sink.finish();
  for (;;) {
    const more = sink.step(DAT_STEP);
    if (!more) break;
    ctx.post({ v: 1, id, type: 'importProgress', progress: { phase: 'decoding', bytes: sink.bytes_done(), total, ...counts() } });
    await ctx.yieldToEvents();
    if (ctx.cancelled()) return false;
  }
  return true;
}

export async function importFile(ctx: WorkerCtx, id: number, req: Req<'import'>) {
  const file = req.file;
  const h = new ImportHandle(file.size);
  live++;
  let ok = false;
  try {
    ok = await readInto(ctx, id, file, h, () => ({ lines: h.lines(), records: h.records() }), req.chunkBytes ?? CHUNK_BYTES);
  } catch (e) {
    free(h);
    throw e;
  }
  if (!ok) {
    free(h);
    ctx.post({ v: 1, id, type: 'cancelled' });
    return;
  }
  ctx.post({ v: 1, id, type: 'importProgress', progress: { phase: 'building', bytes: file.size, total: file.size, lines: h.lines(), records: h.records() } });
  const report = JSON.parse(h.summary()) as ImportReport;
  const isDump = report.summary.total_events === 0 && report.eevdf.samples > 0;
  let alignment: EevdfAlignment | null = null;
  if (req.attach && isDump && current?.kind === 'trace') {
    // A dump for the trace on screen: put it on the trace's clock.
    alignment = JSON.parse(current.h.attach_eevdf(h)) as EevdfAlignment;
    free(attached);
    attached = h;
    current.trace = describe(current.h, current.file, alignment.accepted ? file.name : null);
  } else if (req.attach && !isDump && current?.kind === 'dump') {
    // The dump came first: attach it to this trace.
    alignment = JSON.parse(h.attach_eevdf(current.h)) as EevdfAlignment;
    free(attached);
    attached = current.h;
    current = { h, file, kind: 'trace', trace: describe(h, file, alignment.accepted ? current.file.name : null) };
  } else {
    free(attached);
    attached = null;
    if (current) free(current.h);
    current = { h, file, kind: isDump ? 'dump' : 'trace', trace: describe(h, file, null) };
  }
  ctx.post({ v: 1, id, type: 'imported', trace: current.trace, alignment });
}

function noTrace(ctx: WorkerCtx, id: number) {
  ctx.post({ v: 1, id, type: 'error', error: { file: '', line: 0, column: 0, message: 'no trace is imported' } });
}

/** Moves every column out of `c` into typed arrays (transferred to the UI thread). */
function takeAll(c: Columns): { cols: Record<string, Float64Array | Uint32Array | Int32Array>; transfer: ArrayBuffer[] } {
  const cols: Record<string, Float64Array | Uint32Array | Int32Array> = {};
  for (const [name, type] of JSON.parse(c.names()) as [string, 'f64' | 'u32' | 'i32'][]) {
    cols[name] = type === 'f64' ? c.take_f64(name) : type === 'u32' ? c.take_u32(name) : c.take_i32(name);
  }
  c.free();
  return { cols, transfer: Object.values(cols).map((a) => a.buffer as ArrayBuffer) };
}

export async function handleImportRequest(ctx: WorkerCtx, req: ImportRequest) {
  const id = req.id;
  switch (req.type) {
    case 'import':
      return importFile(ctx, id, req);
    case 'importWindow': {
      if (!current) return noTrace(ctx, id);
      const { cols, transfer } = takeAll(current.h.window(req.t0, req.t1, req.bucket, req.limit));
      const data = { ...cols, t0: req.t0, t1: req.t1, bucket: req.bucket } as unknown as Extract<Response, { type: 'importWindow' }>['data'];
      return ctx.post({ v: 1, id, type: 'importWindow', data }, transfer);
    }
    case 'eevdfWindow': {
      if (!current) return noTrace(ctx, id);
      const { cols, transfer } = takeAll(current.h.eevdf_window(req.t0, req.t1, req.limit));
      const data = { ...cols, t0: req.t0, t1: req.t1 } as unknown as Extract<Response, { type: 'eevdfWindow' }>['data'];
      return ctx.post({ v: 1, id, type: 'eevdfWindow', data }, transfer);
    }
    case 'record':
      if (!current) return noTrace(ctx, id);
      return ctx.post({ v: 1, id, type: 'record', record: JSON.parse(current.h.record_at(req.cpu, req.t, req.tol)) });
    case 'span':
      if (!current) return noTrace(ctx, id);
      return ctx.post({ v: 1, id, type: 'span', span: JSON.parse(current.h.span_info(req.index)) });
    case 'shadow':
      return shadow(ctx, id, req);
    case 'closeImport':
      free(attached);
      attached = null;
      if (current) free(current.h);
      current = null;
      return ctx.post({ v: 1, id, type: 'closed' });
    case 'stats': {
      const stats: WorkerStats = { importHandles: live, simHandles: ctx.simHandles(), wasmMemoryBytes: ctx.wasmMemoryBytes() };
      return ctx.post({ v: 1, id, type: 'stats', stats });
    }
  }
}

async function shadow(ctx: WorkerCtx, id: number, req: Req<'shadow'>) {
  if (!current) return noTrace(ctx, id);
  if (current.kind !== 'trace') {
    const message = 'the shadow re-simulation needs a trace with sched_switch records; an EEVDF dump alone has none';
    return ctx.post({ v: 1, id, type: 'error', error: { file: current.file.name, line: 0, column: 0, message } });
  }
  const file = current.file;
  const r = new ReplayHandle(file.size);
  try {
    const ok = await readInto(ctx, id, file, r, () => ({ lines: 0, records: 0 }), CHUNK_BYTES);
    if (!ok) return ctx.post({ v: 1, id, type: 'cancelled' });
    const name = `replay/${file.name.replace(/\.[^.]*$/, '')}`;
    const out = JSON.parse(r.run(name, req.layout, JSON.stringify(req.variants)));
    if (!out.ok) return ctx.post({ v: 1, id, type: 'error', error: { file: 'layout', line: 0, column: 0, message: out.error } });
    ctx.post({ v: 1, id, type: 'shadow', report: out.report });
  } finally {
    r.free();
  }
}
