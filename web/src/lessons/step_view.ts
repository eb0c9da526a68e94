// What a lesson step shows: the scenario, the variants (the step's named variants, plus the
// knob's variant while the student tries it), the view window, the cursor, the selection and
// the panels, and which timeline lanes to highlight. Pure functions over the lesson data.

import type { ScenarioMeta, VariantSpec } from '../engine/protocol';
import { findScenario, type GalleryEntry } from '../state/gallery';
import { ENGINE_PRESETS } from '../state/variants';
import { lessonTime, type Lesson, type Step } from './model';

/** The panels a step opens: the inspector ("why this pick") and the metrics. */
export const STEP_PANELS = ['inspector', 'metrics'];

/** The bundled scenario a step runs. */
export function stepScenario(lesson: Lesson, step: Step): GalleryEntry | undefined {
  return findScenario(step.scenario ?? lesson.scenario);
}

/** The step's variants as specs (engine-named variants; baseline when none is named). */
export function stepVariants(step: Step): VariantSpec[] | string {
  const keys = step.variants.length ? step.variants : ['baseline'];
  const out: VariantSpec[] = [];
  for (const k of keys) {
    const p = ENGINE_PRESETS.find((x) => x.key === k);
    if (!p) return `unknown variant "${k}"`;
    out.push({ key: p.key, overrides: p.overrides });
  }
  return out;
}

/** The variant the knob adds with `value`: the step's first variant's overrides plus the knob,
 * keyed KNOB=VALUE (the engine's lesson check builds the same). */
export function tryVariant(step: Step, value: string): VariantSpec | null {
  const t = step.try;
  const base = stepVariants(step);
  if (!t || typeof base === 'string') return null;
  const overrides = base[0].overrides.filter(([k]) => k !== t.knob);
  return { key: `${t.knob}=${value}`, overrides: [...overrides, [t.knob, value]] };
}

/** The step's view: window, cursor and selection (the first highlighted task, if any). */
export function stepWindow(step: Step, meta: ScenarioMeta | null): { window: [number, number]; cursor: number; selection: number | null } {
  const t0 = lessonTime(step.range[0]) ?? 0;
  const t1 = lessonTime(step.range[1]) ?? t0 + 1;
  const cursor = lessonTime(step.at) ?? t0;
  const first = meta ? step.highlight.map((h) => meta.tasks.findIndex((t) => t.name === h)).find((i) => i >= 0) : undefined;
  return { window: [t0, t1], cursor, selection: first ?? null };
}

/** The lane id of a lesson entity name (a task's name, or a cgroup path for its group
 * entity), or null if the scenario has none. */
export function entityId(meta: ScenarioMeta, name: string): number | null {
  if (name.startsWith('/')) {
    const g = (meta.groups ?? []).find((x) => x.path === name && x.tg !== 0);
    return g ? g.node : null;
  }
  const i = meta.tasks.findIndex((t) => t.name === name);
  return i >= 0 ? i : null;
}

/** The lane ids to highlight (names the scenario lacks are left out). */
export function highlightIds(meta: ScenarioMeta, step: Step): number[] {
  return step.highlight.map((h) => entityId(meta, h)).filter((x): x is number => x !== null);
}
