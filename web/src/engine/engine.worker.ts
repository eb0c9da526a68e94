// The engine worker: owns the wasm module and the SimHandles of the current run (one per
// variant). Every request gets exactly one final reply; an `error` when nothing else fits.
// A load parses and validates every variant before anything is replaced, and runs them in
// steps (progress, cancel in between): the previous run stays whole until the new one has
// finished, so a bad scenario or a cancel leaves it usable.

import init, { SimHandle, install_panic_hook, type InitOutput } from '../generated/wasm/schedlab_wasm';
import {
  COUNTER_COLS_LAYOUT,
  LATENCY_COLS_LAYOUT,
  MARKER_COLS_LAYOUT,
  MIGRATION_COLS_LAYOUT,
  SAMPLE_COLS_LAYOUT,
  SLICE_COLS_LAYOUT,
  takeColumns,
  type LoadedVariant,
  type LoadOutcome,
  type Request,
  type Response,
  type ScenarioMeta,
  type Summary,
} from './protocol';
import { handleImportRequest, type WorkerCtx } from './import_worker';

/** Markers are sent for windows with at most this many of them (zoomed-in views). */
const MARKER_LIMIT = 20_000;
/** At most this many migrations of a window are drawn (beyond it: none, zoom in). */
const MIGRATION_LIMIT = 4_000;

let ready: Promise<InitOutput> | null = null;
let wasm: InitOutput | null = null;

/** The current run: its number and one handle per variant key. */
interface Run {
  id: number;
  handles: Map<string, SimHandle>;
}
let current: Run | null = null;
let nextRun = 1;
let cancelled = false;
let busy: Promise<void> = Promise.resolve();

function post(msg: Response, transfer: Transferable[] = []) {
  self.postMessage(msg, transfer);
}

function fail(id: number, message: string, file = '') {
  post({ id, type: 'error', error: { file, line: 0, column: 0, message } });
}

const yieldToEvents = () => new Promise<void>((r) => setTimeout(r, 0));

async function engine(): Promise<InitOutput> {
  ready ??= init().then((w) => {
    install_panic_hook();
    return w;
  });
  wasm = await ready;
  return wasm;
}

const importCtx: WorkerCtx = {
  post,
  cancelled: () => cancelled,
  yieldToEvents,
  simHandles: () => current?.handles.size ?? 0,
  wasmMemoryBytes: () => wasm?.memory.buffer.byteLength ?? 0,
};

function freeAll(handles: Iterable<SimHandle>) {
  for (const h of handles) h.free();
}

async function load(id: number, req: Extract<Request, { type: 'load' }>) {
  await engine();
  cancelled = false;
  // Parse and validate every variant first: nothing is replaced if one is bad.
  const fresh = new Map<string, SimHandle>();
  let meta: ScenarioMeta | null = null;
  for (const variant of req.variants) {
    const h = new SimHandle();
    fresh.set(variant.key, h);
    const r = JSON.parse(h.load(req.file, req.text, JSON.stringify(variant.overrides))) as LoadOutcome;
    if (r.kind === 'error') {
      freeAll(fresh.values());
      return post({ id, type: 'error', error: r.error });
    }
    meta ??= r.meta;
  }
  if (!meta) return fail(id, 'no variant to run', req.file);
  const duration = meta.duration_ns;
  const step = Math.max(duration / 50, 1_000_000);
  const loaded: LoadedVariant[] = [];
  let vi = 0;
  for (const [key, h] of fresh) {
    while (!h.done()) {
      h.run_until(h.now() + step);
      post({ id, type: 'progress', done: vi + h.now() / duration, total: fresh.size });
      await yieldToEvents();
      if (cancelled) {
        freeAll(fresh.values());
        return post({ id, type: 'cancelled' });
      }
    }
    loaded.push({ key, digest: h.digest(), summary: JSON.parse(h.summary()) as Summary });
    vi++;
  }
  if (current) freeAll(current.handles.values());
  current = { id: nextRun++, handles: fresh };
  post({ id, type: 'loaded', run: current.id, meta, variants: loaded });
}

/** The handle of `variant` in run `run`, or an error reply (and null). */
function handle(id: number, run: number, variant: string): SimHandle | null {
  if (!current || current.id !== run) {
    fail(id, `run ${run} is not the engine's current run (${current ? current.id : 'none'}): a newer load replaced it`);
    return null;
  }
  const h = current.handles.get(variant);
  if (!h) fail(id, `run ${run} has no variant ${variant}`);
  return h ?? null;
}

function windowData(id: number, req: Extract<Request, { type: 'window' }>) {
  const h = handle(id, req.run, req.variant);
  if (!h) return;
  const slices = takeColumns(h.cpu_slices(req.t0, req.t1, req.bucket), SLICE_COLS_LAYOUT);
  const samples = takeColumns(h.samples(req.t0, req.t1, new Uint32Array(req.tasks)), SAMPLE_COLS_LAYOUT);
  const markers = takeColumns(h.markers(req.t0, req.t1, MARKER_LIMIT), MARKER_COLS_LAYOUT);
  const counters = takeColumns(h.counters(req.t0, req.t1), COUNTER_COLS_LAYOUT);
  const migrations = takeColumns(h.migrations(req.t0, req.t1, MIGRATION_LIMIT), MIGRATION_COLS_LAYOUT);
  const transfer = [...slices.transfer, ...samples.transfer, ...markers.transfer, ...counters.transfer, ...migrations.transfer];
  const { variant, t0, t1, bucket, tasks } = req;
  const data = { variant, t0, t1, bucket, tasks, slices: slices.cols, samples: samples.cols, markers: markers.cols, counters: counters.cols, migrations: migrations.cols };
  post({ id, type: 'window', data }, transfer);
}

async function serve(req: Request): Promise<void> {
  const id = req.id;
  switch (req.type) {
    case 'load':
      return load(id, req);
    case 'window':
      return windowData(id, req);
    case 'cursor': {
      const h = handle(id, req.run, req.variant);
      if (h) post({ id, type: 'cursor', state: JSON.parse(h.state_at(req.t)) as Extract<Response, { type: 'cursor' }>['state'] });
      return;
    }
    case 'metrics': {
      const h = handle(id, req.run, req.variant);
      if (!h) return;
      const lat = takeColumns(h.wakeup_latencies(), LATENCY_COLS_LAYOUT);
      post({ id, type: 'metrics', summary: JSON.parse(h.summary()) as Summary, latencies: lat.cols }, lat.transfer);
      return;
    }
    case 'perfetto': {
      const h = handle(id, req.run, req.variant);
      if (!h) return;
      const buffer = h.perfetto().buffer as ArrayBuffer;
      post({ id, type: 'perfetto', buffer }, [buffer]);
      return;
    }
    case 'import':
    case 'importB':
    case 'shadow':
    case 'shadowAsB':
    case 'shadowSpread':
      cancelled = false;
      await engine();
      return handleImportRequest(importCtx, req);
    case 'importWindow':
    case 'eevdfWindow':
    case 'threadStates':
    case 'windowMetrics':
    case 'record':
    case 'span':
    case 'closeImport':
    case 'importBWindow':
    case 'diff':
    case 'closeB':
    case 'layoutTasks':
    case 'stats':
      await engine();
      return handleImportRequest(importCtx, req);
    case 'cancel':
      cancelled = true;
      return post({ id, type: 'cancelled' });
    default: {
      const unknown: never = req;
      return fail(id, `unknown request ${JSON.stringify(unknown)}`);
    }
  }
}

/** Runs `req`, turning anything it throws (a wasm panic included) into its error reply. */
async function answer(req: Request): Promise<void> {
  try {
    await serve(req);
  } catch (err) {
    fail(req.id, err instanceof Error ? `${err.name}: ${err.message}` : String(err));
  }
}

self.onmessage = (e: MessageEvent<Request>) => {
  const req = e.data;
  // A cancel and a stats request are answered at once, even while a load or an import runs
  // (wasm memory only grows: its size is the peak); everything else in arrival order.
  if (req.type === 'cancel' || req.type === 'stats') {
    void answer(req);
    return;
  }
  busy = busy.then(() => answer(req));
};
