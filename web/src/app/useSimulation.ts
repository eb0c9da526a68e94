// Loading scenarios into the engine worker: one load runs every variant; errors keep the
// previous simulation on screen; a newer load supersedes an older one.

import { useCallback, useRef, useState } from 'react';
import { EngineClient, LoadError } from '../engine/client';
import type { VariantSpec } from '../engine/protocol';
import type { ScenarioRef } from '../base/share';
import type { SimState } from '../state/types';

export function useSimulation(client: EngineClient, initial: SimState) {
  const [sim, setSim] = useState<SimState>(initial);
  const generation = useRef(0);

  const load = useCallback(
    async (ref: ScenarioRef, file: string, text: string, variants: VariantSpec[]) => {
      const gen = ++generation.current;
      setSim((s) => ({ ...s, progress: 0 }));
      try {
        const r = await client.load(file, text, variants, (done, total) => {
          if (gen === generation.current) setSim((s) => ({ ...s, progress: done / total }));
        });
        if (gen !== generation.current) return false;
        if (!r) {
          setSim((s) => ({ ...s, progress: null }));
          return false;
        }
        setSim({ ref, file, text, variants, run: r.run, meta: r.meta, loaded: r.variants, error: null, progress: null });
        return true;
      } catch (e) {
        if (gen !== generation.current) return false;
        const error = e instanceof LoadError ? e.located : { file, line: 0, column: 0, message: String(e) };
        setSim((s) => ({ ...s, error, progress: null }));
        return false;
      }
    },
    [client],
  );

  const cancel = useCallback(() => client.cancel(), [client]);
  return { sim, load, cancel };
}
