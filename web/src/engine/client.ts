// The engine client: the only module that talks to the worker. Requests are promises;
// progress is a callback; the client counts requests in flight for waitForIdle().

import type { CursorState, LocatedError, Request, Response, ScenarioMeta, Summary, VariantSpec, WindowData } from './protocol';
import { ImportClient } from './import_client';

type Pending = { resolve: (r: Response) => void; onProgress?: (done: number, total: number) => void; onMessage?: (r: Response) => void };

/** Distributes a request over Request's union members so `Omit` keeps each shape. */
export type Body<R> = R extends unknown ? Omit<R, 'v' | 'id'> : never;

export class LoadError extends Error {
  constructor(public readonly located: LocatedError) {
    super(located.line ? `${located.file}:${located.line}:${located.column}: ${located.message}` : located.message);
  }
}

export class EngineClient {
  private worker: Worker;
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private idleWaiters: (() => void)[] = [];
  /** Trace import and the replay view's queries. */
  readonly traces: ImportClient;

  constructor() {
    this.worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module' });
    this.worker.onmessage = (e: MessageEvent<Response>) => this.receive(e.data);
    this.traces = new ImportClient((req, onMessage) => this.send(req, undefined, onMessage));
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
    if (this.pending.size === 0) {
      const ws = this.idleWaiters.splice(0);
      ws.forEach((w) => w());
    }
  }

  private send(req: Body<Request>, onProgress?: Pending['onProgress'], onMessage?: Pending['onMessage']): Promise<Response> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, onProgress, onMessage });
      this.worker.postMessage({ ...req, v: 1, id } as Request);
    });
  }

  /** Loads and runs a scenario under every variant. Rejects with LoadError on bad input. */
  async load(file: string, text: string, variants: VariantSpec[], onProgress?: (done: number, total: number) => void) {
    const r = await this.send({ type: 'load', file, text, variants }, onProgress);
    if (r.type === 'error') throw new LoadError(r.error);
    if (r.type === 'cancelled') return null;
    if (r.type !== 'loaded') throw new Error(`unexpected ${r.type}`);
    return { meta: r.meta as ScenarioMeta, variants: r.variants };
  }

  /** Stops a load in progress (it resolves to null). */
  cancel() {
    this.worker.postMessage({ v: 1, id: 0, type: 'cancel' } satisfies Request);
  }

  /** Slices, markers and the samples of `tasks` (all when empty) in [t0, t1). */
  async window(variant: string, t0: number, t1: number, bucket: number, tasks: number[] = []): Promise<WindowData> {
    const r = await this.send({ type: 'window', variant, t0, t1, bucket, tasks });
    if (r.type !== 'window') throw new Error(r.type === 'error' ? r.error.message : `unexpected ${r.type}`);
    return r.data;
  }

  async cursor(variant: string, t: number): Promise<CursorState> {
    const r = await this.send({ type: 'cursor', variant, t });
    if (r.type !== 'cursor') throw new Error(`unexpected ${r.type}`);
    return r.state;
  }

  async metrics(variant: string): Promise<{ summary: Summary; latencies: Float64Array }> {
    const r = await this.send({ type: 'metrics', variant });
    if (r.type !== 'metrics') throw new Error(`unexpected ${r.type}`);
    return { summary: r.summary, latencies: r.latencies };
  }
}
