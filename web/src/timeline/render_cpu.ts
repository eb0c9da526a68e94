// Pure canvas renderer of the CPU lanes: one lane per CPU with a rect per run slice coloured
// by task, task names where they fit, markers (wakeups, yields, wakeup preemptions,
// sleeps, exits) and migration arrows between lanes (migrations.ts). Returns how much it drew and a hit-test index for clicks. Above
// BITMAP_MIN_SLICES visible slices the rectangles are rasterized into one bitmap instead
// (raster_cpu.ts), since one canvas call per slice is what makes dense views slow to paint.
import { EventKind, NO_TASK, SwitchReason, type WindowData } from '../engine/protocol';
import { COLOURS, taskColour, taskColourMerged, taskTextColour } from './palette';
import { affineOf, type TimeScale } from './time_scale';
import { groupByCached, lastAtOrBefore, type Groups } from './columns';
import { rasterCpuLanes } from './raster_cpu';
import { drawKvmOverlay, type KvmOverlayResult } from './render_kvm';
import { CPU_LANE_H, GUTTER_W, type Ctx2D } from './layout';
import { LabelBoxes } from './label_layout';
import { drawMigrationArrows, migrationArrows, type MigrationCounts } from './migrations';

export interface CpuLanesOpts {
  /** The window to draw; null draws empty lanes. */
  data: WindowData | null;
  /** ns → CSS px over the plot area (right of the gutter). */
  scale: TimeScale;
  /** Canvas width, CSS px. */
  width: number;
  /** y of the first lane, CSS px. */
  top: number;
  cpus: number;
  taskNames: readonly string[];
  selection: number | null;
  gutter?: number;
  laneHeight?: number;
  /** Device pixels per CSS px (the canvas transform's scale); the bitmap path needs it. */
  dpr?: number;
  /** Lane labels (default "CPU n"). */
  labels?: readonly string[];
}

/** From this many visible slices on, the slices are rasterized into a bitmap. */
export const BITMAP_MIN_SLICES = 2000;

/** Finds the task under a point of the CPU lanes. */
export interface CpuHitIndex {
  top: number;
  bottom: number;
  /** The CPU lane at y, or null outside the lanes. */
  laneAt(y: number): number | null;
  /** The task whose slice is under (x, y) (within 2 px), or null on idle time. */
  taskAt(x: number, y: number): number | null;
}

export interface CpuLanesResult {
  rects: number;
  markers: number;
  /** The KVM overlay: pause-loop exits, IPI arrows, directed-yield arrows. */
  kvm: KvmOverlayResult;
  /** Migration arrows drawn, per style. */
  migrations: MigrationCounts;
  hit: CpuHitIndex;
}

function makeHitIndex(opts: CpuLanesOpts, laneH: number, gutter: number, byCpu: Groups): CpuHitIndex {
  const { data, scale, top, cpus } = opts;
  const { order, start: laneStart } = byCpu;
  const bottom = top + cpus * laneH;
  const laneAt = (y: number) => (y < top || y >= bottom ? null : Math.floor((y - top) / laneH));
  return {
    top,
    bottom,
    laneAt,
    taskAt(x: number, y: number) {
      const lane = laneAt(y);
      if (lane === null || !data || x < gutter) return null;
      const { start, end, task } = data.slices;
      const t = scale.invert(x);
      const tol = Math.abs(scale.invert(x + 2) - t);
      const first = laneStart[lane];
      const last = laneStart[lane + 1] - 1;
      const found = lastAtOrBefore(order, start, first, last + 1, t);
      let best: number | null = null;
      let bestDist = Infinity;
      for (let j = Math.max(first, found - 1); j <= Math.min(last, found + 1); j++) {
        if (j < first) continue;
        const s = order[j];
        const d = t < start[s] ? start[s] - t : t > end[s] ? t - end[s] : 0;
        if (d <= tol && d < bestDist) {
          bestDist = d;
          best = task[s];
        }
      }
      return best;
    },
  };
}

/** Draws the CPU lanes; see the file comment. */
export function renderCpuLanes(ctx: Ctx2D, opts: CpuLanesOpts): CpuLanesResult {
  const laneH = opts.laneHeight ?? CPU_LANE_H;
  const gutter = opts.gutter ?? GUTTER_W;
  const { data, scale, width, top, cpus, taskNames, selection } = opts;
  const byCpu = data ? groupByCached(data.slices.cpu, data.slices.start, cpus) : { order: new Int32Array(0), start: new Int32Array(cpus + 1) };
  const hit = makeHitIndex(opts, laneH, gutter, byCpu);
  const plotX0 = gutter;
  const plotX1 = width;
  const { k, t0, x0 } = affineOf(scale);
  const visibleCount = data ? countVisible(data.slices, cpus, { k, t0, x0 }, plotX0, plotX1) : 0;
  const bitmap = visibleCount >= BITMAP_MIN_SLICES;

  // Lane backgrounds (idle time is what stays visible; the bitmap holds its own) and labels.
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (let c = 0; c < cpus; c++) {
    const y = top + c * laneH;
    if (!bitmap) {
      ctx.fillStyle = COLOURS.idle;
      ctx.fillRect(plotX0, y + 1, plotX1 - plotX0, laneH - 2);
    }
    ctx.fillStyle = COLOURS.mutedText;
    ctx.fillText(opts.labels?.[c] ?? `CPU ${c}`, 6, y + laneH / 2);
  }
  if (!data) {
    const kvm = { pleExits: 0, ipiArrows: 0, yieldArrows: 0, reasonLabels: 0, lockHolds: 0, spinBands: 0 };
    return { rects: 0, markers: 0, kvm, migrations: { wake: 0, balance: 0, other: 0, trace: 0 }, hit };
  }

  const { cpu, task, start, end, count } = data.slices;
  const n = cpu.length;
  const nameWidth: number[] = [];
  const shortWidth: number[] = [];
  // Every label of the lanes, so that the markers' and overlays' labels never cover a name.
  const boxes = new LabelBoxes();
  let rects = 0;
  const named: number[] = [];
  if (bitmap) {
    // putImageData ignores the transform and the clip, so it goes before the clipped drawing.
    const args = { slices: data.slices, byCpu, a: { k, t0, x0 }, plotX0, plotX1, top, laneH, cpus, dpr: opts.dpr ?? 1 };
    rects = rasterCpuLanes(ctx, args, named);
  }

  ctx.save();
  ctx.beginPath();
  ctx.rect(plotX0, top, plotX1 - plotX0, cpus * laneH);
  ctx.clip();
  // Visible slices, then painted grouped by colour: setting fillStyle costs more than a
  // fillRect, so each colour is set once per paint.
  const visible: number[] = [];
  for (let i = 0; i < n && !bitmap; i++) {
    if (cpu[i] >= cpus) continue;
    const xa = x0 + (start[i] - t0) * k;
    const xb = x0 + (end[i] - t0) * k;
    if (xb < plotX0 || xa > plotX1) continue;
    visible.push(i);
  }
  const colourKey = (i: number) => task[i] * 2 + (count[i] > 1 ? 1 : 0);
  visible.sort((p, q) => colourKey(p) - colourKey(q));
  let lastKey = -1;
  for (const i of visible) {
    let xa = x0 + (start[i] - t0) * k;
    let xb = x0 + (end[i] - t0) * k;
    if (xa < plotX0 - 1) xa = plotX0 - 1;
    if (xb > plotX1 + 1) xb = plotX1 + 1;
    const w = Math.max(xb - xa, 1);
    const key = colourKey(i);
    if (key !== lastKey) {
      ctx.fillStyle = count[i] > 1 ? taskColourMerged(task[i]) : taskColour(task[i]);
      lastKey = key;
    }
    ctx.fillRect(xa, top + cpu[i] * laneH + 1, w, laneH - 2);
    rects++;
    if (w > 24) named.push(i);
  }
  // Names are placed now (their boxes keep the overlay's labels off them) and drawn last, over
  // the markers and the KVM bands.
  const nameAt: [string, number, number, number][] = [];
  for (const i of named) {
    const id = task[i];
    const xa = Math.max(x0 + (start[i] - t0) * k, plotX0 - 1);
    const xb = Math.min(x0 + (end[i] - t0) * k, plotX1 + 1);
    // The full name, else its last path component ("vm0/vcpu2" → "vcpu2") where only that fits.
    let name = taskNames[id] ?? `#${id}`;
    let tw = nameWidth[id];
    if (tw === undefined) tw = nameWidth[id] = ctx.measureText(name).width;
    if (tw + 6 > xb - xa && name.includes('/')) {
      name = name.slice(name.lastIndexOf('/') + 1);
      tw = shortWidth[id];
      if (tw === undefined) tw = shortWidth[id] = ctx.measureText(name).width;
    }
    if (tw + 6 <= xb - xa) {
      const tx = Math.max(xa, plotX0) + 3;
      const ty = top + cpu[i] * laneH + 1 + (laneH - 2) / 2;
      nameAt.push([name, tx, ty, id]);
      boxes.add({ x: tx, y: ty - 6, w: tw, h: 12 });
    }
  }

  // The selected task's slices, outlined.
  if (selection !== null) {
    ctx.beginPath();
    for (let i = 0; i < n; i++) {
      if (task[i] !== selection || cpu[i] >= cpus) continue;
      const xa = x0 + (start[i] - t0) * k;
      const xb = x0 + (end[i] - t0) * k;
      if (xb < plotX0 || xa > plotX1) continue;
      ctx.rect(xa + 0.75, top + cpu[i] * laneH + 1.75, Math.max(xb - xa - 1.5, 0.5), laneH - 3.5);
    }
    ctx.strokeStyle = COLOURS.selection;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }

  const markers = drawMarkers(ctx, data, { k, t0, x0 }, plotX0, plotX1, top, laneH, cpus, boxes);
  const kvm = drawKvmOverlay(ctx, data, { k, t0, x0 }, plotX0, plotX1, top, laneH, cpus, boxes);
  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (const [name, tx, ty, id] of nameAt) {
    ctx.fillStyle = taskTextColour(id);
    ctx.fillText(name, tx, ty);
  }
  const arrows = migrationArrows(data.migrations, { a: { k, t0, x0 }, plotX0, plotX1, top, laneH, cpus });
  const migrations = drawMigrationArrows(ctx, arrows);
  ctx.restore();
  return { rects, markers, kvm, migrations, hit };
}

/** How many slices on the drawn CPUs overlap [plotX0, plotX1]. */
function countVisible(sl: WindowData['slices'], cpus: number, a: { k: number; t0: number; x0: number }, plotX0: number, plotX1: number): number {
  const { cpu, start, end } = sl;
  let visible = 0;
  for (let i = 0; i < cpu.length; i++) {
    if (cpu[i] >= cpus) continue;
    if (a.x0 + (end[i] - a.t0) * a.k < plotX0 || a.x0 + (start[i] - a.t0) * a.k > plotX1) continue;
    visible++;
  }
  return visible;
}

type MarkerShape = (x: number, laneTop: number, laneH: number) => void;

/** Draws the markers, one batched path per kind; returns how many were drawn. */
function drawMarkers(
  ctx: Ctx2D,
  data: WindowData,
  a: { k: number; t0: number; x0: number },
  plotX0: number,
  plotX1: number,
  top: number,
  laneH: number,
  cpus: number,
  boxes: LabelBoxes,
): number {
  const { t, kind, cpu, task, val } = data.markers;
  const n = t.length;
  let drawn = 0;
  const pass = (accept: (i: number) => boolean, colour: string, filled: boolean, shape: MarkerShape) => {
    ctx.beginPath();
    let any = false;
    for (let i = 0; i < n; i++) {
      if (cpu[i] >= cpus || !accept(i)) continue;
      const x = a.x0 + (t[i] - a.t0) * a.k;
      if (x < plotX0 - 4 || x > plotX1 + 4) continue;
      shape(x, top + cpu[i] * laneH, laneH);
      drawn++;
      any = true;
    }
    if (!any) return;
    if (filled) {
      ctx.fillStyle = colour;
      ctx.fill();
    } else {
      ctx.strokeStyle = colour;
      ctx.lineWidth = 1.25;
      ctx.stroke();
    }
  };
  const tick = (from: number, to: number): MarkerShape => (x, y) => {
    ctx.moveTo(x, y + from);
    ctx.lineTo(x, y + to);
  };

  // Sleeps: a short gray tick at the lane bottom.
  pass((i) => kind[i] === EventKind.sleep, COLOURS.sleep, false, (x, y, h) => tick(h - 6, h - 1)(x, y, h));
  // Exits: a black tick at the lane bottom.
  pass((i) => kind[i] === EventKind.exit, COLOURS.exit, false, (x, y, h) => tick(h - 8, h - 1)(x, y, h));
  // Wakeup preemptions: a red tick across the lane.
  pass(
    (i) => kind[i] === EventKind.switch && val[i] === SwitchReason.wakeupPreempt && task[i] !== NO_TASK,
    COLOURS.preempt,
    false,
    (x, y, h) => tick(0, h)(x, y, h),
  );
  // Yields: a tick in the upper half, labelled "Y" below.
  pass((i) => kind[i] === EventKind.yield, COLOURS.yield, false, (x, y) => tick(1, 8)(x, y, 0));
  // Wakeups (and first wakeups): a small downward triangle at the lane top.
  pass(
    (i) => kind[i] === EventKind.wakeup || kind[i] === EventKind.wakeupNew,
    COLOURS.wakeup,
    true,
    (x, y) => {
      ctx.moveTo(x - 3.5, y + 1);
      ctx.lineTo(x + 3.5, y + 1);
      ctx.lineTo(x, y + 6);
      ctx.closePath();
    },
  );
  // The "Y" letters of the yields, only when they are not crammed together nor on a name.
  const lastX = new Float64Array(cpus).fill(-Infinity);
  ctx.font = 'bold 8px system-ui, sans-serif';
  ctx.fillStyle = COLOURS.yield;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (let i = 0; i < n; i++) {
    if (kind[i] !== EventKind.yield || cpu[i] >= cpus) continue;
    const x = a.x0 + (t[i] - a.t0) * a.k;
    if (x < plotX0 || x > plotX1 || x - lastX[cpu[i]] < 8) continue;
    if (!boxes.place([{ x: x - 3, y: top + cpu[i] * laneH + 9, w: 6, h: 9 }])) continue;
    ctx.fillText('Y', x, top + cpu[i] * laneH + 9);
    lastX[cpu[i]] = x;
  }
  ctx.textAlign = 'left';
  return drawn;
}
