// Pure canvas renderer of the entity lanes: one lane per task (meta order) showing its EEVDF
// state over time. "relative" mode plots vruntime − V and deadline − V around V (the queue's
// avg_vruntime, the zero line), with the lag band shaded green where the task is eligible
// (vruntime ≤ V) and red where not; "absolute" mode plots vruntime, deadline and V. A bar
// along each lane's bottom shows running, queued, delayed and sleeping time. Lanes with more
// samples than pixel columns are rasterized into a bitmap instead (raster_entity.ts).
import { Flag, type SampleCols, type WindowData } from '../engine/protocol';
import { entityKeys, groupByCached, lastAtOrBefore } from './columns';
import type { LaneSpec } from './lanes';
import { rasterEntityLane } from './raster_entity';
import { COLOURS, taskColour } from './palette';
import { affineOf, formatNs, type TimeScale } from './time_scale';
import { laneY, seg, segment, type EntityLane } from './entity_geom';

export { laneY, type EntityLane };
import { ENTITY_LANE_H, GUTTER_W, MIN_HALF_RANGE_NS, STATE_BAR_H, type Ctx2D } from './layout';

export type EntityMode = 'relative' | 'absolute';

export interface EntityLanesOpts {
  data: WindowData | null;
  /** ns → CSS px over the plot area (right of the gutter). */
  scale: TimeScale;
  /** Canvas width, CSS px. */
  width: number;
  /** y of the first lane, CSS px. */
  top: number;
  /** Task names in meta order (indexed by task id). */
  taskNames: readonly string[];
  /** Task ids to draw, one lane each, in order (default: every task). */
  tasks?: readonly number[];
  /** Lanes to draw, tasks and group entities (overrides `tasks`). */
  lanes?: readonly LaneSpec[];
  /** How many task groups there are (group nodes' keys go after the tasks). */
  groups?: number;
  selection: number | null;
  mode: EntityMode;
  gutter?: number;
  laneHeight?: number;
  /** Device pixels per CSS px (the canvas transform's scale); the bitmap path needs it. */
  dpr?: number;
}

export interface EntityHitIndex {
  top: number;
  bottom: number;
  lanes: EntityLane[];
  laneAt(y: number): number | null;
  /** The task whose lane contains y (the gutter included), or null (also on group lanes). */
  taskAt(x: number, y: number): number | null;
  /** The task group whose group lane contains y, or null. */
  groupAt(x: number, y: number): number | null;
}

export interface EntityLanesResult {
  samplesDrawn: number;
  lanes: number;
  groupLanes: number;
  hit: EntityHitIndex;
}

/** Draws the entity lanes; see the file comment. */
export function renderEntityLanes(ctx: Ctx2D, opts: EntityLanesOpts): EntityLanesResult {
  const laneH = opts.laneHeight ?? ENTITY_LANE_H;
  const gutter = opts.gutter ?? GUTTER_W;
  const { data, scale, width, top, taskNames, selection, mode } = opts;
  const nTasks = taskNames.length;
  const specs: readonly LaneSpec[] =
    opts.lanes ?? (opts.tasks ?? taskNames.map((_, i) => i)).map((id) => ({ id, label: taskNames[id], depth: 0, tg: null, collapsed: false }));
  const shown = specs.map((l) => (l.tg === null ? l.id : nTasks + l.tg));
  const s = data?.samples;
  const groups = s ? groupByCached(entityKeys(s.task, nTasks), s.t, nTasks + (opts.groups ?? 0)) : null;
  const dpr = opts.dpr ?? 1;
  const a = affineOf(scale);
  // The visible time range, a little wider than the plot so lines leave it cleanly.
  const lo = scale.invert(gutter - 2);
  const hi = scale.invert(width + 2);
  const tEnd = data ? Math.min(data.t1, hi) : hi;
  const halfPx = laneH / 2 - STATE_BAR_H - 2;
  const lanes: EntityLane[] = [];
  let samplesDrawn = 0;

  for (let li = 0; li < shown.length; li++) {
    const task = shown[li];
    const spec = specs[li];
    const colour = spec.tg === null ? taskColour(task) : COLOURS.group;
    const laneTop = top + li * laneH;
    const lane: EntityLane = { task: spec.id, top: laneTop, bottom: laneTop + laneH, mid: laneTop + laneH / 2, centre: 0, halfRange: MIN_HALF_RANGE_NS, halfPx };
    lanes.push(lane);
    // The samples that matter: from the last one at or before the view start to the first after its end.
    let first = 0;
    let last = -1;
    if (s && groups) {
      const g0 = groups.start[task];
      const g1 = groups.start[task + 1];
      first = Math.max(g0, lastAtOrBefore(groups.order, s.t, g0, g1, lo));
      last = Math.min(g1 - 1, lastAtOrBefore(groups.order, s.t, g0, g1, hi) + 1);
      fitRange(lane, s, groups.order, first, last, mode);
      samplesDrawn += Math.max(0, last - first + 1);
    }
    // More samples than pixel columns: the lane is rasterized column by column into a bitmap
    // that also holds its background, so the canvas API only draws the gutter.
    const bitmap = !!s && !!groups && last - first + 1 > width - gutter;
    const background =
      spec.tg !== null ? COLOURS.groupBg : spec.id === selection ? COLOURS.selectionBg : li % 2 ? COLOURS.laneBgAlt : COLOURS.laneBg;
    const bgWidth = bitmap ? gutter : width;
    ctx.fillStyle = background;
    ctx.fillRect(0, laneTop, bgWidth, laneH);
    ctx.fillStyle = COLOURS.laneSep;
    ctx.fillRect(0, laneTop + laneH - 0.5, bgWidth, 0.5);
    drawGutter(ctx, lane, spec, colour, spec.id === selection, mode);
    if (!s || !groups || last < first) continue;
    if (bitmap) {
      const groupEnd = groups.start[task + 1];
      const args = { s, order: groups.order, first, last, groupEnd, tEnd, lo, hi, a, lane, gutter, width, dpr, relative: mode === 'relative', colour, background };
      rasterEntityLane(ctx, args);
      if (mode === 'relative') vLabel(ctx, lane, gutter);
      continue;
    }
    const next = (p: number) => (p + 1 < groups.start[task + 1] ? groups.order[p + 1] : -1);
    // One segment per pixel column at most: zoomed out, a lane can hold thousands of samples
    // per pixel, and drawing each would cost time without adding anything visible.
    const each = (fn: (flags: number) => void) => {
      let lastPx = -Infinity;
      for (let p = first; p <= last; p++) {
        const i = groups.order[p];
        if (!segment(s, i, next(p), tEnd, lo, hi, a)) continue;
        const px = Math.floor(seg[1]);
        if (px === lastPx && p !== last) continue;
        lastPx = px;
        fn(s.flags[i]);
      }
    };

    ctx.save();
    ctx.beginPath();
    ctx.rect(gutter, laneTop, width - gutter, laneH);
    ctx.clip();
    if (mode === 'relative') {
      // The lag band: green below V (eligible), red above (ineligible).
      for (const eligible of [true, false]) {
        ctx.beginPath();
        each((f) => {
          if (f & Flag.onRq) bandPart(ctx, lane, eligible);
        });
        ctx.fillStyle = eligible ? COLOURS.eligible : COLOURS.ineligible;
        ctx.fill();
      }
      hLine(ctx, lane.mid, gutter, width, COLOURS.vLine);
      vLabel(ctx, lane, gutter);
    }
    const series = (ia: number, ib: number, rel: boolean, dash: number[], stroke: string, w: number) => {
      ctx.beginPath();
      let px = NaN;
      let py = NaN;
      each((f) => {
        if (!(f & Flag.onRq)) return;
        const ya = laneY(lane, seg[ia] - (rel ? seg[6] : 0));
        const yb = laneY(lane, seg[ib] - (rel ? seg[7] : 0));
        if (Math.abs(seg[0] - px) > 0.01 || Number.isNaN(py)) ctx.moveTo(seg[0], ya);
        else ctx.lineTo(seg[0], ya);
        ctx.lineTo(seg[1], yb);
        px = seg[1];
        py = yb;
      });
      ctx.setLineDash(dash);
      ctx.strokeStyle = stroke;
      ctx.lineWidth = w;
      ctx.stroke();
    };
    const rel = mode === 'relative';
    if (!rel) series(6, 7, false, [], COLOURS.vLine, 1);
    series(4, 5, rel, [4, 3], colour, 1.25);
    series(2, 3, rel, [], colour, 1.75);
    ctx.setLineDash([]);

    // The state bar: running, queued and delayed (sleeping is left blank).
    const barY = lane.bottom - STATE_BAR_H - 1;
    const states: [number, string][] = [[Flag.curr, colour], [Flag.onRq, COLOURS.queued], [Flag.delayed, COLOURS.delayed]];
    for (const [bit, fill] of states) {
      ctx.beginPath();
      each((f) => {
        const st = f & Flag.delayed ? Flag.delayed : f & Flag.curr ? Flag.curr : f & Flag.onRq ? Flag.onRq : 0;
        if (st === bit) ctx.rect(seg[0], barY, Math.max(seg[1] - seg[0], 0.5), STATE_BAR_H);
      });
      ctx.fillStyle = fill;
      ctx.fill();
    }
    ctx.restore();
  }

  const bottom = top + shown.length * laneH;
  const laneAt = (y: number) => (y < top || y >= bottom ? null : Math.floor((y - top) / laneH));
  return {
    samplesDrawn,
    lanes: shown.length,
    groupLanes: specs.filter((l) => l.tg !== null).length,
    hit: {
      top,
      bottom,
      lanes,
      laneAt,
      taskAt: (_x: number, y: number) => {
        const li = laneAt(y);
        const spec = li === null ? undefined : specs[li];
        return spec && spec.tg === null ? spec.id : null;
      },
      groupAt: (_x: number, y: number) => {
        const li = laneAt(y);
        return li === null ? null : (specs[li]?.tg ?? null);
      },
    },
  };
}

/**
 * Sets the lane's y-scale to fit the samples order[first..last] that begin or end a drawn
 * (on_rq) segment.
 */
function fitRange(lane: EntityLane, s: SampleCols, order: Int32Array, first: number, last: number, mode: EntityMode) {
  let m = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let p = first; p <= last; p++) {
    const i = order[p];
    const endsSegment = p > first && (s.flags[order[p - 1]] & Flag.onRq) !== 0;
    if (!(s.flags[i] & Flag.onRq) && !endsSegment) continue;
    const v = s.vruntime[i];
    const d = s.deadline[i];
    const av = s.avg[i];
    m = Math.max(m, Math.abs(v - av), Math.abs(d - av));
    min = Math.min(min, v, d, av);
    max = Math.max(max, v, d, av);
  }
  if (mode === 'relative') {
    lane.centre = 0;
    lane.halfRange = Math.max(m * 1.08, MIN_HALF_RANGE_NS);
  } else if (min <= max) {
    lane.centre = (min + max) / 2;
    lane.halfRange = Math.max(((max - min) / 2) * 1.08, MIN_HALF_RANGE_NS);
  }
}

/** Adds to the path the part of the current segment's lag band on the eligible or ineligible side. */
function bandPart(ctx: Ctx2D, lane: EntityLane, eligible: boolean) {
  const [xa, xb] = [seg[0], seg[1]];
  const oa = seg[2] - seg[6];
  const ob = seg[3] - seg[7];
  const inside = (o: number) => (eligible ? o <= 0 : o >= 0);
  if (!inside(oa) && !inside(ob)) return;
  const clampO = (o: number) => (inside(o) ? o : 0);
  let xc = xb;
  if (inside(oa) !== inside(ob) && oa !== ob) xc = xa + ((xb - xa) * oa) / (oa - ob);
  ctx.moveTo(xa, lane.mid);
  ctx.lineTo(xa, laneY(lane, clampO(oa)));
  if (inside(oa) && !inside(ob)) {
    ctx.lineTo(xc, lane.mid);
  } else if (!inside(oa) && inside(ob)) {
    ctx.lineTo(xc, lane.mid);
    ctx.lineTo(xb, laneY(lane, ob));
  } else {
    ctx.lineTo(xb, laneY(lane, ob));
  }
  ctx.lineTo(xb, lane.mid);
  ctx.closePath();
}

/** The "V" label at the left end of the V line. */
function vLabel(ctx: Ctx2D, lane: EntityLane, gutter: number) {
  ctx.fillStyle = COLOURS.vLine;
  ctx.font = '9px system-ui, sans-serif';
  ctx.textBaseline = 'bottom';
  ctx.fillText('V', gutter + 2, lane.mid - 1);
}

function hLine(ctx: Ctx2D, y: number, x0: number, x1: number, colour: string) {
  ctx.beginPath();
  ctx.moveTo(x0, Math.round(y) + 0.5);
  ctx.lineTo(x1, Math.round(y) + 0.5);
  ctx.strokeStyle = colour;
  ctx.lineWidth = 1;
  ctx.stroke();
}

/** The lane's name (a group's with its ▸/▾ toggle), indented by depth, and its y-scale. */
function drawGutter(ctx: Ctx2D, lane: EntityLane, spec: LaneSpec, colour: string, selected: boolean, mode: EntityMode) {
  const x = 2 + spec.depth * 10;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'middle';
  ctx.fillStyle = colour;
  ctx.fillRect(x, lane.top + 6, 4, lane.bottom - lane.top - 12);
  ctx.fillStyle = COLOURS.text;
  const group = spec.tg !== null;
  ctx.font = `${selected || group ? 'bold ' : ''}11px system-ui, sans-serif`;
  ctx.fillText(group ? `${spec.collapsed ? '▸' : '▾'} ${spec.label}` : spec.label, x + 8, lane.mid - 7);
  ctx.fillStyle = COLOURS.mutedText;
  ctx.font = '9px system-ui, sans-serif';
  const label = mode === 'relative' ? `V ± ${formatNs(lane.halfRange)}` : `± ${formatNs(lane.halfRange)}`;
  ctx.fillText(group ? `group · ${label}` : label, x + 8, lane.mid + 8);
}
