// Application state shapes shared by the app shell and the panels.

import type { LocatedError, ScenarioMeta, Summary, VariantSpec } from '../engine/protocol';
import type { ScenarioRef } from '../base/share';

export type PanelId = 'editor' | 'inspector' | 'metrics' | 'help';

export interface LoadedVariant {
  key: string;
  digest: string;
  summary: Summary;
}

export interface SimState {
  /** What is loaded (or being loaded). */
  ref: ScenarioRef;
  file: string;
  text: string;
  variants: VariantSpec[];
  meta: ScenarioMeta | null;
  loaded: LoadedVariant[];
  error: LocatedError | null;
  progress: number | null;
}

export interface ViewWindow {
  t0: number;
  t1: number;
}
