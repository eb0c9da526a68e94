// `window.__schedlab`: the testing hook. waitForIdle() resolves when the worker has no
// request in flight, no store publication is waiting and no animation frame is pending;
// state() returns the shareable view as it is now.

import type { EngineClient } from '../engine/client';
import type { ViewState } from '../base/share';
import type { FrameHub } from '../state/store';
import { pendingFrames } from '../timeline/raf_scheduler';

export interface SchedlabHook {
  waitForIdle(): Promise<void>;
  state(): { scenario: string; variants: ViewState['variants']; window_ns: [number, number]; cursor_ns: number; selection: number | null; panels: string[]; lesson: ViewState['lesson'] | null };
  shareUrl(): Promise<string>;
  /** Imports trace files as a drop would (resolves when done or cancelled). */
  importFiles(files: File[]): Promise<void>;
  /** Cancels a load or import in progress. */
  cancel(): Promise<void>;
  /** What the worker holds (import handles, wasm memory). */
  workerStats(): Promise<{ importHandles: number; simHandles: number; wasmMemoryBytes: number }>;
}

declare global {
  interface Window {
    __schedlab?: SchedlabHook;
  }
}

const frame = () => new Promise<void>((r) => requestAnimationFrame(() => r()));

export function installTestHook(opts: {
  client: EngineClient;
  hub: FrameHub;
  getState: () => ViewState;
  shareUrl: () => Promise<string>;
  importFiles: (files: File[], attach: boolean) => Promise<void>;
}): () => void {
  window.__schedlab = {
    async waitForIdle() {
      for (let settled = 0; settled < 3; ) {
        await opts.client.idle();
        await frame();
        await new Promise((r) => setTimeout(r, 0));
        settled = opts.client.inFlight === 0 && !opts.hub.pending && pendingFrames() === 0 ? settled + 1 : 0;
      }
    },
    state() {
      const s = opts.getState();
      return {
        scenario: s.scenario.kind === 'bundled' ? s.scenario.name : 'inline',
        variants: s.variants,
        window_ns: s.window,
        cursor_ns: s.cursor,
        selection: s.selection,
        panels: s.panels,
        lesson: s.lesson ?? null,
      };
    },
    shareUrl: opts.shareUrl,
    importFiles: (files) => opts.importFiles(files, true),
    cancel: () => opts.client.cancel(),
    workerStats: () => opts.client.traces.stats(),
  };
  return () => {
    delete window.__schedlab;
  };
}
