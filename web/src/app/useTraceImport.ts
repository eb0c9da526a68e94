// Importing traces into the engine worker: files in import order (a trace before its EEVDF
// dump), progress per file, cancel, close. A newer import supersedes the trace on screen; an
// EEVDF dump attaches to the trace imported before it.

import { useCallback, useRef, useState } from 'react';
import type { EngineClient } from '../engine/client';
import type { Alignment, ImportedTrace, ImportProgress } from '../engine/protocol';
import { importOrder } from '../state/trace_import';

export interface TraceImportState {
  trace: ImportedTrace | null;
  alignment: Alignment | null;
  /** The import in progress. */
  progress: { file: string; progress: ImportProgress } | null;
  error: string | null;
}

const IDLE: TraceImportState = { trace: null, alignment: null, progress: null, error: null };

export function useTraceImport(client: EngineClient) {
  const [st, setSt] = useState<TraceImportState>(IDLE);
  const busy = useRef(false);

  const importFiles = useCallback(
    async (files: File[], attach: boolean) => {
      if (busy.current) return;
      busy.current = true;
      try {
        for (const [i, f] of importOrder(files).entries()) {
          const start: ImportProgress = { phase: 'reading', bytes: 0, total: f.size, lines: 0, records: 0 };
          setSt((s) => ({ ...s, progress: { file: f.name, progress: start }, error: null }));
          const r = await client.traces.importFile(f, {
            attach: attach || i > 0,
            onProgress: (p) => setSt((s) => ({ ...s, progress: { file: f.name, progress: p } })),
          });
          if (!r) {
            setSt((s) => ({ ...s, progress: null }));
            return;
          }
          setSt({ trace: r.trace, alignment: r.alignment, progress: null, error: null });
        }
      } catch (e) {
        setSt((s) => ({ ...s, progress: null, error: e instanceof Error ? e.message : String(e) }));
      } finally {
        busy.current = false;
      }
    },
    [client],
  );

  const cancel = useCallback(() => client.cancel(), [client]);
  const close = useCallback(async () => {
    await client.traces.close();
    setSt(IDLE);
  }, [client]);
  const dismissError = useCallback(() => setSt((s) => ({ ...s, error: null })), []);
  return { ...st, importFiles, cancel, close, dismissError };
}
