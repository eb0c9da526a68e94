// Migration arrows: their geometry, styles and the CPU-lane renderer drawing the engine's rows.
import { describe, expect, it } from 'vitest';
import { MigrateClass } from '../engine/protocol';
import { fakeCtx } from './fake_ctx';
import { windowData } from './fixtures';
import { CPU_LANE_H, GUTTER_W } from './layout';
import { drawMigrationArrows, MIGRATION_STYLE, migrationArrows, migrationKind } from './migrations';
import { renderCpuLanes } from './render_cpu';
import { makeTimeScale } from './time_scale';

// 1 ns per px over [0, 1000] ns.
const width = GUTTER_W + 1000;
const scale = makeTimeScale(0, 1000, GUTTER_W, width);
const geom = { a: { k: 1, t0: 0, x0: GUTTER_W }, plotX0: GUTTER_W, plotX1: width, top: 0, laneH: CPU_LANE_H, cpus: 3 };

describe('migrationKind', () => {
  it('styles wakeups, balancing and the rest apart', () => {
    expect(migrationKind(MigrateClass.wake)).toBe('wake');
    for (const c of [MigrateClass.periodic, MigrateClass.newidle, MigrateClass.nohz, MigrateClass.active]) expect(migrationKind(c)).toBe('balance');
    expect(migrationKind(MigrateClass.affinity)).toBe('other');
    expect(migrationKind(MigrateClass.exec)).toBe('other');
    expect(migrationKind(null)).toBe('trace');
  });
});

describe('migrationArrows', () => {
  it('runs from the middle of the source lane to the middle of the destination lane', () => {
    const rows = { t: [500, 200], from: [0, 2], to: [2, 1], class: [MigrateClass.wake, MigrateClass.periodic] };
    const arrows = migrationArrows(rows, geom);
    expect(arrows).toEqual([
      { row: 0, x: GUTTER_W + 500, ya: CPU_LANE_H / 2, yb: 2 * CPU_LANE_H + CPU_LANE_H / 2, kind: 'wake' },
      { row: 1, x: GUTTER_W + 200, ya: 2 * CPU_LANE_H + CPU_LANE_H / 2, yb: CPU_LANE_H + CPU_LANE_H / 2, kind: 'balance' },
    ]);
  });

  it('draws a stub for an unknown or same-lane source, and skips what is outside', () => {
    const rows = { t: [100, 300, -50, 400], from: [-1, 1, 0, 0], to: [1, 1, 1, 5] };
    const arrows = migrationArrows(rows, geom);
    expect(arrows.map((r) => r.row)).toEqual([0, 1]);
    for (const r of arrows) {
      expect(r.yb).toBe(CPU_LANE_H + CPU_LANE_H / 2);
      expect(r.ya).toBe(CPU_LANE_H + 2);
      expect(r.kind).toBe('trace');
    }
  });
});

describe('drawMigrationArrows', () => {
  it('strokes each kind once in its style, with the head at the destination', () => {
    const ctx = fakeCtx();
    const arrows = migrationArrows({ t: [100, 200, 300], from: [0, 1, 0], to: [1, 0, 2], class: [MigrateClass.wake, MigrateClass.newidle, MigrateClass.active] }, geom);
    const counts = drawMigrationArrows(ctx, arrows);
    expect(counts).toEqual({ wake: 1, balance: 2, other: 0, trace: 0 });
    expect(ctx.count('stroke')).toBe(2);
    expect(ctx.of('setLineDash').map((c) => c.args[0])).toEqual([MIGRATION_STYLE.wake.dash, MIGRATION_STYLE.balance.dash, []]);
    // The wake arrow's head: its last lineTo ends at the destination lane's middle.
    const heads = ctx.of('lineTo').filter((c) => c.args[0] === GUTTER_W + 100);
    expect(heads.every((c) => c.args[1] === CPU_LANE_H + CPU_LANE_H / 2)).toBe(true);
  });
});

describe('renderCpuLanes migrations', () => {
  it('draws the window’s migration rows between the lanes', () => {
    const data = windowData(0, 1000, [{ cpu: 0, task: 0, start: 0, end: 1000 }], [], [], [], [
      { t: 250, from: 0, to: 1, class: MigrateClass.wake },
      { t: 600, from: 1, to: 0, class: MigrateClass.periodic },
      { t: 700, from: 1, to: 0, class: MigrateClass.exec },
    ]);
    const r = renderCpuLanes(fakeCtx(), { data, scale, width, top: 0, cpus: 2, taskNames: ['a'], selection: null });
    expect(r.migrations).toEqual({ wake: 1, balance: 1, other: 1, trace: 0 });
    // A zoomed view showing [0, 400] ns only has the first one.
    const zoom = makeTimeScale(0, 400, GUTTER_W, width);
    expect(renderCpuLanes(fakeCtx(), { data, scale: zoom, width, top: 0, cpus: 2, taskNames: ['a'], selection: null }).migrations.wake).toBe(1);
    expect(renderCpuLanes(fakeCtx(), { data, scale: zoom, width, top: 0, cpus: 2, taskNames: ['a'], selection: null }).migrations.balance).toBe(0);
  });
});
