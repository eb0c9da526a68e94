// Importing traces into the engine worker: files in import order (a trace before its dumps),
// progress per file, cancel, close. A newer import supersedes the trace on screen; an EEVDF
// dump, a CPU-averages dump or a balance-pass dump attaches to the trace imported before it.

import type { ImportedTrace, ImportProgress } from '../engine/protocol';
import { importOrder } from '../state/trace_import';
import type { TraceImports } from '../state/types';
import { errorMessage } from '../base/errors';
import type { Playback } from './playback';
import type { Replay } from './replay';
import { detach, type ShellCtx } from './shell_ctx';

export const NO_IMPORT: TraceImports = { trace: null, files: { trace: null, dump: null, cpuAvg: null, balance: null }, alignment: null, progress: null, error: null };

/** The files on screen after `f` was imported and the worker answered `trace`. */
function filesAfter(prev: TraceImports['files'], f: File, trace: ImportedTrace): TraceImports['files'] {
  if (trace.file === f.name && trace.size === f.size) {
    // A trace after its dump (imported first, alone) takes the dump.
    const dump = trace.eevdfFile !== null && prev.trace?.name === trace.eevdfFile ? prev.trace : null;
    return { trace: f, dump, cpuAvg: null, balance: null };
  }
  if (trace.eevdfFile === f.name) return { ...prev, dump: f };
  if (trace.cpuAvgFile === f.name) return { ...prev, cpuAvg: f };
  if (trace.balanceFile === f.name) return { ...prev, balance: f };
  return prev;
}

export type TraceImportActions = ReturnType<typeof createTraceImports>;

export function createTraceImports(ctx: ShellCtx, replay: Replay, playback: Playback) {
  const { client, imports } = ctx;
  let busy = false;

  /** Imports `files` (attaching a dump to the trace on screen when `attach`); resolves when done,
   * cancelled or failed (the failure is shown). */
  const importFiles = async (files: File[], attach: boolean): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      for (const [i, f] of importOrder(files).entries()) {
        const start: ImportProgress = { phase: 'reading', bytes: 0, total: f.size, lines: 0, records: 0 };
        imports.set({ progress: { file: f.name, progress: start }, error: null });
        const r = await client.traces.importFile(f, {
          attach: attach || i > 0,
          onProgress: (p) => imports.set({ progress: { file: f.name, progress: p } }),
        });
        if (!r) {
          imports.set({ progress: null });
          return;
        }
        playback.pause();
        replay.open(r.trace);
        imports.set((s) => ({ trace: r.trace, files: filesAfter(s.files, f, r.trace), alignment: r.alignment, progress: null, error: null }));
      }
    } catch (e) {
      imports.set({ progress: null, error: errorMessage(e) });
    } finally {
      busy = false;
    }
  };

  return {
    importFiles,
    /** importFiles for a button or a drop (its end is not awaited). */
    pick: (files: File[], attach: boolean) => detach(ctx, importFiles(files, attach)),
    cancel: () => detach(ctx, client.cancel()),
    close: () =>
      detach(
        ctx,
        client.traces.close().then(() => {
          replay.close();
          imports.set(NO_IMPORT);
        }),
      ),
    dismissError: () => imports.set({ error: null }),
  };
}
