// The A/B comparison's controller: a second capture (B) imported beside the trace on screen
// (A) into the worker, B's replay windows following A's view window on relative time (both
// start at 0: the same t0..t1 of each), and the engine's diff of the two at a noise level,
// with each task row's wakeup latencies. B is a second capture or the shadow re-simulation's run
// of A under a variant. B goes when A is closed.

import type { DiffLatencyCols, ImportedTrace, ImportProgress, ReplayWindowData, TraceDiff } from '../engine/protocol';
import { errorMessage } from '../base/errors';
import { LatestQuery } from '../state/latest_query';
import { createStore, type Store } from '../state/store';
import { EMPTY_WINDOW, WindowCache, type WindowCacheState } from '../state/window_cache';
import { alignedTrace, alignTasks, alignWindow, type TaskAlignment } from './ab_tasks';
import type { Replay } from './replay';
import { detach, type ShellCtx } from './shell_ctx';

/** Wakeups and migrations are sent for B's windows with at most this many of each. */
const MARKER_LIMIT = 20_000;
/** The noise level a diff starts at (%), the engine's `DEFAULT_NOISE_PCT`. */
export const DEFAULT_NOISE_PCT = 5;

export interface AbState {
  /** The second capture, once imported. */
  b: ImportedTrace | null;
  /** B as its timeline draws it: task ids renumbered into A's colours (ab_tasks.ts). */
  bShown: ImportedTrace | null;
  /** B's import under way. */
  progress: { file: string; progress: ImportProgress } | null;
  /** Why B's import or the diff failed. */
  error: string | null;
  window: WindowCacheState<ReplayWindowData>;
  noisePct: number;
  /** `(comm in A, comm in B)` pairs for renamed tasks. */
  matches: [string, string][];
  diff: { diff: TraceDiff; latencies: DiffLatencyCols } | null;
  diffBusy: boolean;
  /** Where B came from (for a share link): its file, or the shadow run's request. */
  source: AbSource | null;
}

/** B's origin: a capture's file, or the shadow re-simulation of A under a variant. */
export type AbSource = { kind: 'file'; file: File } | { kind: 'shadow'; key: string; layout: string; pin: string; variants: [string, string][] };

const INITIAL: AbState = { b: null, bShown: null, progress: null, error: null, window: EMPTY_WINDOW, noisePct: DEFAULT_NOISE_PCT, matches: [], diff: null, diffBusy: false, source: null };

export type Ab = ReturnType<typeof createAb>;

export function createAb(ctx: ShellCtx, replay: Replay) {
  const { client } = ctx;
  const store: Store<AbState> = createStore(INITIAL, ctx.hub);
  const cache = new WindowCache<ReplayWindowData>((window) => store.set({ window }));
  const diffs = new LatestQuery(
    (q: { noisePct: number; matches: [string, string][] }) => client.traces.diff(q.noisePct, q.matches),
    (diff) => store.set({ diff, diffBusy: false, error: null }),
    (error) => store.set({ diffBusy: false, error }),
  );
  /** The A that B was last compared with and aligned to. */
  let forA: ImportedTrace | null = null;
  let align: TaskAlignment = { map: new Uint32Array(0), tasks: [] };

  const reset = () => {
    cache.reset();
    diffs.drop();
    forA = null;
    store.set({ ...INITIAL, noisePct: store.get().noisePct, matches: store.get().matches });
  };
  const runDiff = () => {
    const { b, noisePct, matches } = store.get();
    if (!b) return;
    store.set({ diffBusy: true });
    diffs.request({ noisePct, matches });
  };
  /** B against A (its task colours, its diff). */
  const compareWith = (a: ImportedTrace, b: ImportedTrace) => {
    forA = a;
    align = alignTasks(a.tasks, b.tasks);
    cache.reset();
    store.set({ b, bShown: alignedTrace(b, align), diff: null, window: EMPTY_WINDOW });
    runDiff();
  };
  const refresh = () => {
    const a = replay.store.get().trace;
    const b = store.get().b;
    if (!b) return;
    // A closed: the worker freed B with it. Another A (or a dump attached to it): compare again.
    if (!a) return reset();
    if (a !== forA) compareWith(a, b);
    const { view, plotWidth } = replay.store.get();
    const bucket = Math.max(1, (view.t1 - view.t0) / Math.max(100, plotWidth));
    // Over the longer of the two traces: A's view may pass B's end (nothing there).
    const end = Math.max(1, b.report.timeline.duration_ns, a.report.timeline.duration_ns) + 1;
    cache.want({ key: 'b', view, bucket, end }, (r) => client.traces.windowB(r.t0, r.t1, r.bucket, MARKER_LIMIT).then((d) => alignWindow(d, align)));
  };

  /** B from `load` (a file, or the shadow's run), with its progress shown as `name`'s. */
  const openWith = async (name: string, size: number, source: AbSource, load: (onProgress: (p: ImportProgress) => void) => Promise<ImportedTrace | null>): Promise<void> => {
    if (!replay.store.get().trace || store.get().progress) return;
    store.set({ progress: { file: name, progress: { phase: 'reading', bytes: 0, total: size, lines: 0, records: 0 } }, error: null });
    try {
      const b = await load((p) => store.set({ progress: { file: name, progress: p } }));
      if (!b) return store.set({ progress: null });
      const a = replay.store.get().trace;
      if (!a) return store.set({ progress: null });
      store.set({ progress: null, source });
      compareWith(a, b);
      refresh();
    } catch (e) {
      store.set({ progress: null, error: errorMessage(e) });
    }
  };

  const open = (file: File) => openWith(file.name, file.size, { kind: 'file', file }, (onProgress) => client.traces.importB(file, { onProgress }));
  /** The shadow re-simulation of A under `variants`, its run as B ("would this patch have
   * helped this capture?"), named `shadow of FILE (KEY)`. */
  const openShadow = (key: string, layout: string, pin: string, variants: [string, string][]) => {
    const a = replay.store.get().trace;
    const label = `shadow of ${a?.file ?? '?'} (${key})`;
    return openWith(label, a?.size ?? 0, { kind: 'shadow', key, layout, pin, variants }, (onProgress) => client.traces.shadowAsB(layout, pin, variants, label, onProgress));
  };

  return {
    store,
    /** Follows A's view and trace; returns what stops it. */
    start: () => replay.store.subscribe(refresh),
    /** Imports `file` as B (its end is not awaited). */
    open: (file: File) => detach(ctx, open(file)),
    openAndWait: open,
    /** The shadow's run under `variants` as B (its end is not awaited). */
    openShadow: (key: string, layout: string, pin: string, variants: [string, string][]) => detach(ctx, openShadow(key, layout, pin, variants)),
    openShadowAndWait: openShadow,
    cancel: () => detach(ctx, client.cancel()),
    /** The noise level (%) of the flags; the diff runs again. */
    setNoise: (noisePct: number) => {
      if (!Number.isFinite(noisePct) || noisePct < 0) return;
      store.set({ noisePct }, { now: true });
      runDiff();
    },
    /** Renamed tasks, `(comm in A, comm in B)`; the diff runs again. */
    setMatches: (matches: [string, string][]) => {
      store.set({ matches }, { now: true });
      runDiff();
    },
    close: () => detach(ctx, client.traces.closeB().then(reset)),
    dismissError: () => store.set({ error: null }),
  };
}
