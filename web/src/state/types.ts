// Application state shapes shared by the app shell and the panels.

import type { LoadedVariant, LocatedError, ScenarioMeta, VariantSpec } from '../engine/protocol';
import type { ScenarioRef } from '../base/share';

/** 'cgroups' is not a share-link panel id (base/share.ts's ALLOWED_PANELS has no such id), so
 * the app leaves it out of shared views: a link never reopens the cgroup tree. */
export type PanelId = 'editor' | 'inspector' | 'metrics' | 'help' | 'cgroups';

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
