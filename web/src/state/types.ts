// Application state shapes shared by the app shell and the panels: the simulation loaded, and
// the two halves of the shell's state (state/store.ts): what changes every frame (Viewport)
// and what changes rarely (Session), and the trace import's (TraceImports).

import type { Alignment, CursorState, ImportedTrace, ImportProgress, LoadedVariant, LocatedError, ScenarioMeta, VariantSpec, WindowData } from '../engine/protocol';
import type { ScenarioRef } from '../base/share';
import type { WindowCacheState } from './window_cache';

/** 'cgroups' is not a share-link panel id (base/share.ts's ALLOWED_PANELS has no such id), so
 * the app leaves it out of shared views: a link never reopens the cgroup tree. */
export type PanelId = 'editor' | 'inspector' | 'metrics' | 'help' | 'cgroups';

export type LaneMode = 'relative' | 'absolute';

export interface SimState {
  /** What is loaded (or being loaded). */
  ref: ScenarioRef;
  file: string;
  text: string;
  variants: VariantSpec[];
  /** The worker's run that holds `loaded` (queries name it), null before the first load. */
  run: number | null;
  meta: ScenarioMeta | null;
  loaded: LoadedVariant[];
  error: LocatedError | null;
  progress: number | null;
}

export interface ViewWindow {
  t0: number;
  t1: number;
}

/** What changes every frame while panning, zooming or playing, and the worker's answers to it. */
export interface Viewport {
  view: ViewWindow;
  cursor: number;
  playing: boolean;
  /** Simulated ns per real second while playing. */
  speed: number;
  /** Every variant's window (by variant key). */
  windows: WindowCacheState<Record<string, WindowData>>;
  /** Every variant's runqueues and last pick at the cursor (by variant key). */
  cursorStates: Record<string, CursorState>;
  cursorError: string | null;
  /** The cgroup tree's window before the cursor (focused variant). */
  cgroup: WindowCacheState<WindowData>;
}

/** What changes on a load or a click: the simulation, selection, panels and messages. */
export interface Session {
  sim: SimState;
  selection: number | null;
  /** Task groups whose lanes are collapsed in the timeline. */
  collapsed: ReadonlySet<number>;
  panels: ReadonlySet<PanelId>;
  mode: LaneMode;
  /** A message for the user (a link that could not be opened, …). */
  notice: string | null;
  /** A failure of the page itself (the engine worker, an uncaught error). */
  pageError: string | null;
  /** The engine worker failed: nothing more can be asked of it. */
  engineDown: boolean;
  editorText: string;
  guide: boolean;
}

/** Trace import: the trace on screen, the import in progress, the last failure. */
export interface TraceImports {
  trace: ImportedTrace | null;
  /** The files on screen (for a share link): the trace's, its attached EEVDF dump's and its
   * attached CPU-averages dump's. */
  files: { trace: File | null; dump: File | null; cpuAvg: File | null; balance: File | null };
  alignment: Alignment | null;
  progress: { file: string; progress: ImportProgress } | null;
  error: string | null;
}
