// The engine client: the only module that talks to the worker. Every request is a promise that
// settles exactly once: with the worker's reply, or rejected when the worker fails (a failed
// module load, a message that cannot be read, a crash), and every request after that is
// rejected at once with the same failure. Progress is a callback; the client counts requests in
// flight for waitForIdle().

import type { CursorState, LatencyCols, LocatedError, RequestBody, Response, ScenarioMeta, Summary, VariantSpec, WindowData } from './protocol';
import { ImportClient } from './import_client';

type Pending = {
  resolve: (r: Response) => void;
  reject: (e: Error) => void;
  onProgress?: (done: number, total: number) => void;
  onMessage?: (r: Response) => void;
};

export class LoadError extends Error {
  constructor(public readonly located: LocatedError) {
    super(located.line ? `${located.file}:${located.line}:${located.column}: ${located.message}` : located.message);
  }
}

/** The worker failed as a whole (not one request): every request in flight is rejected with it. */
export class WorkerFailure extends Error {}

/** A run loaded into the worker: its number (queries name it) and what it holds. */
export interface LoadedRun {
  run: number;
  meta: ScenarioMeta;
  variants: { key: string; digest: string; summary: Summary }[];
}

export class EngineClient {
  private worker: Worker;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private idleWaiters: (() => void)[] = [];
  private failureListeners: ((e: WorkerFailure) => void)[] = [];
  /** How the worker failed, once it has. */
  private failed: WorkerFailure | null = null;
  /** Trace import and the replay view's queries. */
  readonly traces: ImportClient;

  constructor() {
    this.worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<Response>) => this.receive(e.data);
    this.worker.onerror = (e: ErrorEvent) => {
      e.preventDefault();
      this.failAll(new WorkerFailure(`the engine worker failed: ${e.message || 'its script could not be loaded'}`));
    };
    this.worker.onmessageerror = () => this.failAll(new WorkerFailure('a message from the engine worker could not be read'));
    this.traces = new ImportClient((req, onMessage) => this.send(req, undefined, onMessage));
  }

  /** Called with every worker failure (the page shows it). */
  onFailure(listener: (e: WorkerFailure) => void): () => void {
    this.failureListeners.push(listener);
    return () => {
      this.failureListeners = this.failureListeners.filter((l) => l !== listener);
    };
  }

  /** Requests in flight. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Resolves when no request is in flight. */
  idle(): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  private settled() {
    if (this.pending.size === 0) this.idleWaiters.splice(0).forEach((w) => w());
  }

  private failAll(e: WorkerFailure) {
    this.failed ??= e;
    const all = [...this.pending.values()];
    this.pending.clear();
    all.forEach((p) => p.reject(e));
    this.failureListeners.forEach((l) => l(e));
    this.settled();
  }

  private receive(msg: Response) {
    const p = this.pending.get(msg.id);
    if (!p) return;
    if (msg.type === 'progress') {
      p.onProgress?.(msg.done, msg.total);
      return;
    }
    if (msg.type === 'importProgress') {
      p.onMessage?.(msg);
      return;
    }
    this.pending.delete(msg.id);
    p.resolve(msg);
    this.settled();
  }

  private send(req: RequestBody, onProgress?: Pending['onProgress'], onMessage?: Pending['onMessage']): Promise<Response> {
    if (this.failed) return Promise.reject(this.failed);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress, onMessage });
      this.worker.postMessage({ ...req, id });
    });
  }

  /** Loads and runs a scenario under every variant. Resolves to null when cancelled; rejects
   * with LoadError on bad input (the worker keeps the previous run). */
  async load(file: string, text: string, variants: VariantSpec[], onProgress?: (done: number, total: number) => void): Promise<LoadedRun | null> {
    const r = await this.send({ type: 'load', file, text, variants }, onProgress);
    if (r.type === 'error') throw new LoadError(r.error);
    if (r.type === 'cancelled') return null;
    if (r.type !== 'loaded') throw new Error(`unexpected ${r.type}`);
    return { run: r.run, meta: r.meta, variants: r.variants };
  }

  /** Stops a load, import or shadow run in progress (it resolves to null). */
  async cancel(): Promise<void> {
    await this.send({ type: 'cancel' });
  }

  /** Slices, markers and the samples of `tasks` (all when empty) in [t0, t1). */
  async window(run: number, variant: string, t0: number, t1: number, bucket: number, tasks: number[] = []): Promise<WindowData> {
    const r = await this.send({ type: 'window', run, variant, t0, t1, bucket, tasks });
    if (r.type !== 'window') throw failure(r);
    return r.data;
  }

  async cursor(run: number, variant: string, t: number): Promise<CursorState> {
    const r = await this.send({ type: 'cursor', run, variant, t });
    if (r.type !== 'cursor') throw failure(r);
    return r.state;
  }

  async metrics(run: number, variant: string): Promise<{ summary: Summary; latencies: LatencyCols }> {
    const r = await this.send({ type: 'metrics', run, variant });
    if (r.type !== 'metrics') throw failure(r);
    return { summary: r.summary, latencies: r.latencies };
  }

  /** The run of `variant` as a Perfetto protobuf trace. */
  async perfetto(run: number, variant: string): Promise<ArrayBuffer> {
    const r = await this.send({ type: 'perfetto', run, variant });
    if (r.type !== 'perfetto') throw failure(r);
    return r.buffer;
  }
}

/** The error a reply of the wrong type stands for. */
export function failure(r: Response): Error {
  return r.type === 'error' ? new LoadError(r.error) : new Error(`unexpected ${r.type}`);
}
