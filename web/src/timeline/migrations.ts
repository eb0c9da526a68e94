// Migration arrows between CPU lanes, shared by the simulated view (render_cpu.ts, the
// engine's Migrate rows with their class) and the replay view (replay/render_replay.ts, a
// trace's sched_migrate_task records, no class): a vertical arrow at the migration time from
// the middle of the CPU lane the task left to the middle of the lane it moved to, the head at
// the destination. Wakeup placements (class wake) are dashed teal, load-balance moves
// (periodic, newidle, nohz, active) solid purple, affinity and exec moves solid orange; a
// trace's migrations are purple. A migration whose source is unknown (or the same lane) is a
// short stub ending in the destination lane.
import { MigrateClass } from '../engine/protocol';
import type { Ctx2D } from './layout';

/** How an arrow is styled. */
export type MigrationKind = 'wake' | 'balance' | 'other' | 'trace';

export const MIGRATION_STYLE: Record<MigrationKind, { colour: string; width: number; dash: number[] }> = {
  wake: { colour: '#00796b', width: 1.25, dash: [3, 2] },
  balance: { colour: '#7b1fa2', width: 1.5, dash: [] },
  other: { colour: '#e65100', width: 1.5, dash: [] },
  trace: { colour: '#7b1fa2', width: 1.5, dash: [] },
};

/** Drawing order: later kinds on top. */
const ORDER: readonly MigrationKind[] = ['trace', 'other', 'wake', 'balance'];

/** The style of a `MigrateClass` code (null: a trace's migration, no class). */
export function migrationKind(cls: number | null): MigrationKind {
  if (cls === null) return 'trace';
  switch (cls) {
    case MigrateClass.wake:
      return 'wake';
    case MigrateClass.periodic:
    case MigrateClass.newidle:
    case MigrateClass.nohz:
    case MigrateClass.active:
      return 'balance';
    default:
      return 'other';
  }
}

/** Migration rows: time, source CPU (negative: unknown), destination CPU, class code. */
export interface MigrationRows {
  t: ArrayLike<number>;
  from: ArrayLike<number>;
  to: ArrayLike<number>;
  /** `MigrateClass` codes; absent for a trace. */
  class?: ArrayLike<number>;
}

/** One arrow, in CSS px. */
export interface MigrationArrow {
  /** Row of the input. */
  row: number;
  x: number;
  /** Tail (source lane middle, or the top of the destination lane for a stub). */
  ya: number;
  /** Head (destination lane middle). */
  yb: number;
  kind: MigrationKind;
}

export interface ArrowGeometry {
  /** ns → px: x = x0 + (t − t0)·k. */
  a: { k: number; t0: number; x0: number };
  plotX0: number;
  plotX1: number;
  /** y of CPU 0's lane. */
  top: number;
  laneH: number;
  cpus: number;
  /** Distance between two CPU lanes' tops (default `laneH`: lanes stacked without gaps). */
  pitch?: number;
}

/** The arrows of the rows inside the plot; see the file comment. */
export function migrationArrows(m: MigrationRows, g: ArrowGeometry): MigrationArrow[] {
  const out: MigrationArrow[] = [];
  const { a, top, laneH, cpus } = g;
  const pitch = g.pitch ?? laneH;
  for (let i = 0; i < m.t.length; i++) {
    const to = m.to[i];
    if (to < 0 || to >= cpus) continue;
    const x = a.x0 + (m.t[i] - a.t0) * a.k;
    if (x < g.plotX0 || x > g.plotX1) continue;
    const from = m.from[i];
    const yb = top + to * pitch + laneH / 2;
    const ya = from >= 0 && from < cpus && from !== to ? top + from * pitch + laneH / 2 : yb - laneH / 2 + 2;
    out.push({ row: i, x, ya, yb, kind: migrationKind(m.class ? m.class[i] : null) });
  }
  return out;
}

/** Arrows drawn, per kind. */
export type MigrationCounts = Record<MigrationKind, number>;

/** Draws the arrows, one batched path per kind; returns how many of each. */
export function drawMigrationArrows(ctx: Ctx2D, arrows: readonly MigrationArrow[]): MigrationCounts {
  const counts: MigrationCounts = { wake: 0, balance: 0, other: 0, trace: 0 };
  for (const kind of ORDER) {
    const style = MIGRATION_STYLE[kind];
    let any = false;
    ctx.beginPath();
    for (const r of arrows) {
      if (r.kind !== kind) continue;
      any = true;
      counts[kind]++;
      ctx.moveTo(r.x, r.ya);
      ctx.lineTo(r.x, r.yb);
      const dir = r.yb >= r.ya ? -1 : 1;
      ctx.moveTo(r.x - 3, r.yb + 4 * dir);
      ctx.lineTo(r.x, r.yb);
      ctx.lineTo(r.x + 3, r.yb + 4 * dir);
    }
    if (!any) continue;
    ctx.strokeStyle = style.colour;
    ctx.lineWidth = style.width;
    ctx.setLineDash(style.dash);
    ctx.stroke();
  }
  ctx.setLineDash([]);
  return counts;
}
