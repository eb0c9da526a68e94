// Loading scenarios into the engine worker: one load runs every variant; a newer load
// supersedes an older one; errors keep the previous simulation on screen (the worker keeps its
// run too). After a load, a restored view (a share link, a lesson step) or the default one.

import type { ScenarioRef, ViewState } from '../base/share';
import { LoadError, WorkerFailure } from '../engine/client';
import type { VariantSpec } from '../engine/protocol';
import { findScenario, type GalleryEntry } from '../state/gallery';
import { guideVariants, type GuideClaim } from '../state/guide';
import type { SimState } from '../state/types';
import { detach, type ShellCtx } from './shell_ctx';
import type { ViewActions } from './view_actions';

const bundled = (g: GalleryEntry): ScenarioRef => ({ kind: 'bundled', name: g.id, hash: g.hash });

export type Loader = ReturnType<typeof createLoader>;

export function createLoader(ctx: ShellCtx, view: ViewActions) {
  const { client, session, viewport } = ctx;
  let generation = 0;
  const setSim = (patch: Partial<SimState>) => session.set((s) => ({ sim: { ...s.sim, ...patch } }));

  /** Loads a scenario under `variants`, then shows `restore` or the default view; false when
   * it failed, was cancelled or was superseded. */
  const open = async (ref: ScenarioRef, file: string, text: string, variants: VariantSpec[], restore?: ViewState): Promise<boolean> => {
    const gen = ++generation;
    session.set({ editorText: text });
    setSim({ progress: 0 });
    try {
      const r = await client.load(file, text, variants, (done, total) => {
        if (gen === generation) setSim({ progress: done / total });
      });
      if (gen !== generation) return false;
      if (!r) {
        setSim({ progress: null });
        return false;
      }
      session.set({ sim: { ref, file, text, variants, run: r.run, meta: r.meta, loaded: r.variants, error: null, progress: null }, collapsed: new Set() });
      if (restore) {
        view.applyView(restore, r.meta.duration_ns);
      } else {
        // A first view of about ten ticks: enough to see several slices and switches.
        const t1 = Math.min(r.meta.duration_ns, 10 * r.meta.tick_ns);
        viewport.set({ view: { t0: 0, t1 }, cursor: t1 / 4 });
        session.set({ selection: null });
      }
      return true;
    } catch (e) {
      if (gen !== generation) return false;
      // A failed worker is shown by the page's error banner, not as the scenario's error.
      const error = e instanceof WorkerFailure ? null : e instanceof LoadError ? e.located : { file, line: 0, column: 0, message: String(e) };
      setSim({ error, progress: null });
      return false;
    }
  };

  const start = (ref: ScenarioRef, file: string, text: string, variants: VariantSpec[], restore?: ViewState) => detach(ctx, open(ref, file, text, variants, restore));
  const sim = () => session.get().sim;

  return {
    open,
    cancel: () => detach(ctx, client.cancel()),
    openBundled: (id: string) => {
      const g = findScenario(id);
      if (g) start(bundled(g), g.file, g.text, sim().variants);
    },
    openText: (file: string, text: string) => start({ kind: 'inline', text }, file, text, sim().variants),
    setVariants: (variants: VariantSpec[]) => start(sim().ref, sim().file, sim().text, variants),
    /** Runs the editor's text (still the bundled scenario when unchanged). */
    runEditor: () => {
      const s = sim();
      const text = session.get().editorText;
      start(s.ref.kind === 'bundled' && text === s.text ? s.ref : { kind: 'inline', text }, s.file, text, s.variants);
    },
    /** A lesson step's view: applied at once when its scenario and variants are loaded, else loaded first. */
    showView: (v: ViewState) => {
      const s = sim();
      const same =
        s.meta && s.progress === null && v.scenario.kind === 'bundled' && s.ref.kind === 'bundled' && s.ref.name === v.scenario.name &&
        JSON.stringify(s.variants) === JSON.stringify(v.variants);
      if (same && s.meta) return view.applyView(v, s.meta.duration_ns);
      const g = v.scenario.kind === 'bundled' ? findScenario(v.scenario.name) : undefined;
      if (g) start(bundled(g), g.file, g.text, v.variants, v);
    },
    /** The guide's claim: its scenario with the variants it compares. */
    openClaim: (c: GuideClaim) => {
      const g = findScenario(c.scenario);
      if (g) start(bundled(g), g.file, g.text, guideVariants(c));
      else view.notify(`The guide names a bundled scenario that does not exist here: ${c.scenario}`);
    },
  };
}
