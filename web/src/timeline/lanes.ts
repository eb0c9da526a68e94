// Which entity lanes a block shows. Without cgroups: one lane per task. With cgroups: the
// task-group hierarchy, depth first — the root group's tasks, then for each child group a
// group-entity lane followed (indented) by its own tasks and child groups; a collapsed group
// hides its subtree. At most MAX_ENTITY_LANES lanes; a selected task beyond them replaces the
// last one.
import { GROUP_NODE, type ScenarioMeta } from '../engine/protocol';

/** At most this many entity lanes are drawn; beyond it, the first ones plus the selection. */
export const MAX_ENTITY_LANES = 16;

export interface LaneSpec {
  /** A task id, or GROUP_NODE | tg for a group entity. */
  id: number;
  label: string;
  /** Indentation level (0 = directly under the root group). */
  depth: number;
  /** The task group of a group lane, else null. */
  tg: number | null;
  collapsed: boolean;
}

export const isGroupNode = (id: number) => id >= GROUP_NODE;
export const groupOfNode = (id: number) => id - GROUP_NODE;

/** The lanes to draw, in order; see the file comment. */
export function entityLanes(meta: ScenarioMeta, selection: number | null, collapsed: ReadonlySet<number>): LaneSpec[] {
  const groups = meta.groups ?? [];
  const all: LaneSpec[] = [];
  const task = (id: number, depth: number) => all.push({ id, label: meta.tasks[id].name, depth, tg: null, collapsed: false });
  const visit = (tg: number, depth: number) => {
    meta.tasks.forEach((t, id) => (t.tg ?? 0) === tg && task(id, depth));
    for (const g of groups) {
      if (g.parent !== tg) continue;
      const shut = collapsed.has(g.tg);
      all.push({ id: g.node, label: g.path, depth, tg: g.tg, collapsed: shut });
      if (!shut) visit(g.tg, depth + 1);
    }
  };
  if (groups.length <= 1) meta.tasks.forEach((_, id) => task(id, 0));
  else visit(0, 0);
  if (all.length <= MAX_ENTITY_LANES) return all;
  const out = all.slice(0, MAX_ENTITY_LANES - 1);
  const sel = selection === null ? undefined : all.find((l) => l.id === selection);
  if (sel && !out.includes(sel)) out.push(sel);
  return out;
}

/** The ids whose samples a window request asks for (tasks and group nodes). */
export function laneIds(lanes: readonly LaneSpec[]): number[] {
  return lanes.map((l) => l.id);
}
