// The engine worker: owns the wasm module and one long-lived SimHandle per variant. Loading
// runs the simulation in steps so progress is reported and a cancel can arrive in between.

import init, { SimHandle, type InitOutput } from '../generated/wasm/schedlab_wasm';
import type { CounterCols, Request, Response, SampleCols, SliceCols, MarkerCols, ScenarioMeta, Summary } from './protocol';
import { handleImportRequest, type WorkerCtx } from './import_worker';

const ctx = self as unknown as { postMessage(msg: Response, transfer?: Transferable[]): void; onmessage: ((e: MessageEvent<Request>) => void) | null };

/** Markers are sent for windows with at most this many of them (zoomed-in views). */
const MARKER_LIMIT = 20_000;

let ready: Promise<InitOutput> | null = null;
let wasm: InitOutput | null = null;
const handles = new Map<string, SimHandle>();
let cancelled = false;
let busy = Promise.resolve();

function post(msg: Response, transfer: Transferable[] = []) {
  ctx.postMessage(msg, transfer);
}

const yieldToEvents = () => new Promise<void>((r) => setTimeout(r, 0));

const importCtx: WorkerCtx = {
  post,
  cancelled: () => cancelled,
  yieldToEvents,
  simHandles: () => handles.size,
  wasmMemoryBytes: () => wasm?.memory.buffer.byteLength ?? 0,
};

async function load(id: number, req: Extract<Request, { type: 'load' }>) {
  ready ??= init();
  wasm = await ready;
  cancelled = false;
  for (const h of handles.values()) h.free();
  handles.clear();
  let meta: ScenarioMeta | null = null;
  const loaded: { key: string; digest: string; summary: Summary }[] = [];
  const total = req.variants.length;
  for (let vi = 0; vi < req.variants.length; vi++) {
    const variant = req.variants[vi];
    const h = new SimHandle();
    const r = JSON.parse(h.load(req.file, req.text, JSON.stringify(variant.overrides)));
    if (!r.ok) {
      h.free();
      post({ v: 1, id, type: 'error', error: r.error });
      return;
    }
    meta ??= r.meta as ScenarioMeta;
    const duration = (r.meta as ScenarioMeta).duration_ns;
    const step = Math.max(duration / 50, 1_000_000);
    while (!h.done()) {
      h.run_until(h.now() + step);
      post({ v: 1, id, type: 'progress', done: vi + h.now() / duration, total });
      await yieldToEvents();
      if (cancelled) {
        h.free();
        post({ v: 1, id, type: 'cancelled' });
        return;
      }
    }
    handles.set(variant.key, h);
    loaded.push({ key: variant.key, digest: h.digest(), summary: JSON.parse(h.summary()) });
  }
  post({ v: 1, id, type: 'loaded', meta: meta!, variants: loaded });
}

function windowData(id: number, req: Extract<Request, { type: 'window' }>) {
  const h = handles.get(req.variant);
  if (!h) return post({ v: 1, id, type: 'error', error: { file: '', line: 0, column: 0, message: `no variant ${req.variant}` } });
  const s = h.cpu_slices(req.t0, req.t1, req.bucket);
  const slices: SliceCols = { cpu: s.cpu, task: s.task, start: s.start, end: s.end, count: s.count };
  s.free();
  const m = h.samples(req.t0, req.t1, new Uint32Array(req.tasks));
  const samples: SampleCols = { t: m.t, task: m.task, cpu: m.cpu, vruntime: m.vruntime, deadline: m.deadline, vlag: m.vlag, vprot: m.vprot, avg: m.avg, flags: m.flags };
  m.free();
  const k = h.markers(req.t0, req.t1, MARKER_LIMIT);
  const markers: MarkerCols = { t: k.t, kind: k.kind, cpu: k.cpu, task: k.task, arg: k.arg, val: k.val };
  k.free();
  const c = h.counters(req.t0, req.t1);
  const counters: CounterCols = { t: c.t, kind: c.kind, key: c.key, value: c.value };
  c.free();
  const transfer = [...Object.values(slices), ...Object.values(samples), ...Object.values(markers), ...Object.values(counters)].map((a) => (a as ArrayBufferView).buffer as ArrayBuffer);
  post({ v: 1, id, type: 'window', data: { variant: req.variant, t0: req.t0, t1: req.t1, bucket: req.bucket, slices, samples, markers, counters, tasks: req.tasks } }, transfer);
}

ctx.onmessage = (e: MessageEvent<Request>) => {
  const req = e.data;
  if (req.v !== 1) return;
  if (req.type === 'cancel') {
    cancelled = true;
    return;
  }
  if (req.type === 'stats') {
    // Answered at once, even during an import (wasm memory only grows: its size is the peak).
    void handleImportRequest(importCtx, req);
    return;
  }
  busy = busy.then(async () => {
    try {
      switch (req.type) {
        case 'load':
          await load(req.id, req);
          break;
        case 'window':
          windowData(req.id, req);
          break;
        case 'cursor': {
          const h = handles.get(req.variant);
          if (h) post({ v: 1, id: req.id, type: 'cursor', state: JSON.parse(h.state_at(req.t)) });
          break;
        }
        case 'import':
        case 'importWindow':
        case 'eevdfWindow':
        case 'record':
        case 'span':
        case 'shadow':
        case 'closeImport':
          ready ??= init();
          wasm = await ready;
          if (req.type === 'import' || req.type === 'shadow') cancelled = false;
          await handleImportRequest(importCtx, req);
          break;
        case 'metrics': {
          const h = handles.get(req.variant);
          if (h) {
            const lat = new Float64Array(h.wakeup_latencies());
            post({ v: 1, id: req.id, type: 'metrics', summary: JSON.parse(h.summary()), latencies: lat }, [lat.buffer]);
          }
          break;
        }
      }
    } catch (err) {
      post({ v: 1, id: req.id, type: 'error', error: { file: '', line: 0, column: 0, message: String(err) } });
    }
  });
};
