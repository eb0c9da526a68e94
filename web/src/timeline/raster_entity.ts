// The bitmap path of one entity lane, for lanes with more samples than pixel columns. Every
// segment is folded into per-device-pixel-column aggregates: the extent of the lag band on each
// side of V, the min/max y of each line (vruntime, deadline and, in absolute mode, V) and the
// share of the column spent running, queued and delayed. The lane (background, separator, band,
// V line, lines, state bar) is then rasterized column by column into a reusable ImageData and
// put on the canvas at once; the caller draws the gutter and the "V" label with the canvas API.
import { Flag, type SampleCols } from '../engine/protocol';
import { laneY, seg, segment, type EntityLane } from './entity_geom';
import { STATE_BAR_H, type Ctx2D } from './layout';
import { COLOURS } from './palette';
import { fillRectPx, over, pack, parseColour, rasterFor, scratch, spanY, type Colour } from './raster';
import type { Affine } from './time_scale';

export interface EntityRasterArgs {
  s: SampleCols;
  /** The task's samples in time order are order[first..last]; its group ends before groupEnd. */
  order: Int32Array;
  first: number;
  last: number;
  groupEnd: number;
  tEnd: number;
  lo: number;
  hi: number;
  a: Affine;
  lane: EntityLane;
  gutter: number;
  width: number;
  dpr: number;
  relative: boolean;
  /** The task's colour and the lane's background. */
  colour: string;
  background: string;
}

// Aggregate columns, by index into the scratch arrays.
const E_MIN = 0; // the lowest offset below V (≤ 0) in the column
const I_MAX = 1; // the highest offset above V (≥ 0)
const SERIES = 2; // then min and max y (device px) of up to three lines: 2..7
const COVER = 8; // then the share of the column running, queued, delayed: 8..10
const COLUMNS = 11;
const values = new Float64Array(6);

/** Rasterizes one lane into a bitmap and puts it on the canvas; see the file comment. */
export function rasterEntityLane(ctx: Ctx2D, args: EntityRasterArgs): void {
  const { s, order, first, last, groupEnd, tEnd, lo, hi, a, lane, gutter, width, dpr, relative } = args;
  const rx0 = Math.floor(gutter * dpr);
  const ry0 = Math.round(lane.top * dpr);
  const w = Math.ceil(width * dpr) - rx0;
  const h = Math.round(lane.bottom * dpr) - ry0;
  if (w <= 0 || h <= 0) return;
  const r = rasterFor(ctx, 'entity', w, h);
  const col = scratch(ctx, 'entity', COLUMNS, w);
  for (let k = 0; k < COLUMNS; k++) col[k].fill(k >= SERIES && k < COVER ? (k % 2 ? -Infinity : Infinity) : 0, 0, w);
  const nSeries = relative ? 2 : 3;
  const yOf = (v: number) => laneY(lane, v) * dpr - ry0;

  for (let p = first; p <= last; p++) {
    const i = order[p];
    if (!segment(s, i, p + 1 < groupEnd ? order[p + 1] : -1, tEnd, lo, hi, a)) continue;
    const f = s.flags[i];
    const onRq = (f & Flag.onRq) !== 0;
    const state = f & Flag.delayed ? 2 : f & Flag.curr ? 0 : onRq ? 1 : -1;
    if (!onRq && state < 0) continue;
    const xa = seg[0] * dpr - rx0;
    const xb = seg[1] * dpr - rx0;
    const span = xb - xa;
    // Each line's value at the segment's ends (relative: offsets from V), in draw order.
    if (relative) {
      values[0] = seg[4] - seg[6];
      values[1] = seg[5] - seg[7];
      values[2] = seg[2] - seg[6];
      values[3] = seg[3] - seg[7];
    } else {
      values[0] = seg[6];
      values[1] = seg[7];
      values[2] = seg[4];
      values[3] = seg[5];
      values[4] = seg[2];
      values[5] = seg[3];
    }
    const c0 = Math.max(0, Math.floor(xa));
    const c1 = Math.min(w - 1, Math.floor(xb));
    for (let c = c0; c <= c1; c++) {
      const u0 = Math.max(xa, c);
      const u1 = Math.min(xb, c + 1);
      if (state >= 0 && u1 > u0) col[COVER + state][c] += u1 - u0;
      if (!onRq) continue;
      const fa = span > 0 ? (u0 - xa) / span : 0;
      const fb = span > 0 ? (u1 - xa) / span : 0;
      for (let k = 0; k < nSeries; k++) {
        const va = values[2 * k];
        const vd = values[2 * k + 1] - va;
        const ya = yOf(va + vd * fa);
        const yb = yOf(va + vd * fb);
        const mn = col[SERIES + 2 * k];
        const mx = col[SERIES + 2 * k + 1];
        mn[c] = Math.min(mn[c], ya, yb);
        mx[c] = Math.max(mx[c], ya, yb);
      }
      if (relative) {
        // The vruntime offset (the last line's values) bounds the lag band.
        const va = values[2] + (values[3] - values[2]) * fa;
        const vb = values[2] + (values[3] - values[2]) * fb;
        col[E_MIN][c] = Math.min(col[E_MIN][c], va, vb);
        col[I_MAX][c] = Math.max(col[I_MAX][c], va, vb);
      }
    }
  }
  paintLane(r, col, args, w, h, ry0, rx0);
  ctx.putImageData(r.img, rx0, ry0);
}

/** Paints the lane's pixels from the aggregate columns, in the vector path's draw order. */
function paintLane(r: ReturnType<typeof rasterFor>, col: Float64Array[], args: EntityRasterArgs, w: number, h: number, ry0: number, rx0: number) {
  const { lane, dpr, relative, gutter } = args;
  const task = parseColour(args.colour);
  fillRectPx(r, 0, 0, w, h, parseColour(args.background));
  fillRectPx(r, 0, h - 0.5 * dpr, w, h, parseColour(COLOURS.laneSep));
  const mid = lane.mid * dpr - ry0;
  const yOf = (v: number) => laneY(lane, v) * dpr - ry0;
  if (relative) {
    const eligible = parseColour(COLOURS.eligible);
    const ineligible = parseColour(COLOURS.ineligible);
    for (let c = 0; c < w; c++) {
      if (col[E_MIN][c] < 0) spanY(r, c, mid, yOf(col[E_MIN][c]), eligible);
      if (col[I_MAX][c] > 0) spanY(r, c, yOf(col[I_MAX][c]), mid, ineligible);
    }
    const vRow = Math.round(lane.mid) * dpr - ry0;
    fillRectPx(r, 0, vRow, w, vRow + dpr, parseColour(COLOURS.vLine));
  }
  // The lines: [colour, width (CSS px), dashed] in draw order.
  const lines: [Colour, number, boolean][] = relative
    ? [[task, 1.25, true], [task, 1.75, false]]
    : [[parseColour(COLOURS.vLine), 1, false], [task, 1.25, true], [task, 1.75, false]];
  lines.forEach(([colour, lw, dashed], k) => {
    const mn = col[SERIES + 2 * k];
    const mx = col[SERIES + 2 * k + 1];
    const half = (lw * dpr) / 2;
    for (let c = 0; c < w; c++) {
      if (!(mn[c] <= mx[c])) continue;
      // Dashes of 4 px on, 3 px off, measured along x from the plot's left edge.
      if (dashed && ((c + rx0) / dpr - gutter) % 7 >= 4) continue;
      spanY(r, c, mn[c] - half, mx[c] + half, colour);
    }
  });
  // The state bar: each column mixes the running, queued and delayed colours by time share
  // over the background (sleeping time leaves it blank).
  const states = [task, parseColour(COLOURS.queued), parseColour(COLOURS.delayed)];
  const barY0 = (lane.bottom - STATE_BAR_H - 1) * dpr - ry0;
  const barY1 = barY0 + STATE_BAR_H * dpr;
  const mixed: Colour = { r: 0, g: 0, b: 0, a: 1, word: 0 };
  for (let c = 0; c < w; c++) {
    let total = 0;
    mixed.r = mixed.g = mixed.b = 0;
    for (let k = 0; k < 3; k++) {
      const f = col[COVER + k][c];
      if (f <= 0) continue;
      total += f;
      mixed.r += states[k].r * f;
      mixed.g += states[k].g * f;
      mixed.b += states[k].b * f;
    }
    if (total <= 0) continue;
    mixed.r /= total;
    mixed.g /= total;
    mixed.b /= total;
    const cov = Math.min(1, total);
    mixed.word = pack(mixed.r, mixed.g, mixed.b, 1);
    for (let j = Math.max(0, Math.floor(barY0)); j < Math.min(h, Math.ceil(barY1)); j++) {
      const vcov = Math.min(j + 1, barY1) - Math.max(j, barY0);
      r.px[j * w + c] = over(r.px[j * w + c], mixed, cov * vcov);
    }
  }
}
