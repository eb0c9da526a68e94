// The bitmap path of the CPU lanes, for views with thousands of visible slices: the idle lane
// backgrounds and the slice rectangles are rasterized into one reusable ImageData (one row per
// lane, copied down the lane's height) and put on the canvas with a single putImageData. The
// caller draws names, the selection outline and markers on top with the normal canvas API.
import type { SliceCols } from '../engine/protocol';
import type { Groups } from './columns';
import { COLOURS, taskColour, taskColourMerged } from './palette';
import { copyRow, parseColour, rasterFor, spanX, type Colour } from './raster';
import type { Affine } from './time_scale';
import type { Ctx2D } from './layout';

export interface CpuRasterArgs {
  slices: SliceCols;
  /** The slices grouped by CPU, each group in time order. */
  byCpu: Groups;
  a: Affine;
  plotX0: number;
  plotX1: number;
  top: number;
  laneH: number;
  cpus: number;
  dpr: number;
}

const colourCache: Colour[] = [];

/** The parsed fill of task `task` (merged: the darker colour of merged slices). */
function sliceColour(task: number, merged: boolean): Colour {
  const key = task * 2 + (merged ? 1 : 0);
  let c = colourCache[key];
  if (!c) c = colourCache[key] = parseColour(merged ? taskColourMerged(task) : taskColour(task));
  return c;
}

/**
 * Rasterizes the lanes and puts them on the canvas; returns the slices drawn and fills
 * `named` with those wide enough (> 24 CSS px) to hold a name.
 */
export function rasterCpuLanes(ctx: Ctx2D, args: CpuRasterArgs, named: number[]): number {
  const { slices, byCpu, a, plotX0, plotX1, top, laneH, cpus, dpr } = args;
  const { task, start, end, count } = slices;
  const rx0 = Math.floor(plotX0 * dpr);
  const ry0 = Math.round(top * dpr);
  const w = Math.ceil(plotX1 * dpr) - rx0;
  const h = Math.round((top + cpus * laneH) * dpr) - ry0;
  if (w <= 0 || h <= 0) return 0;
  const r = rasterFor(ctx, 'cpu', w, h);
  const idle = parseColour(COLOURS.idle);
  const { order, start: laneStart } = byCpu;
  let drawn = 0;
  for (let c = 0; c < cpus; c++) {
    // The lane rect spans [y + 1, y + laneH − 1) in CSS px; edges snap to device pixels.
    const y0 = Math.round((top + c * laneH + 1) * dpr) - ry0;
    const y1 = Math.round((top + (c + 1) * laneH - 1) * dpr) - ry0;
    if (y1 <= y0) continue;
    spanX(r, y0, plotX0 * dpr - rx0, plotX1 * dpr - rx0, idle);
    for (let p = laneStart[c]; p < laneStart[c + 1]; p++) {
      const i = order[p];
      let xa = a.x0 + (start[i] - a.t0) * a.k;
      let xb = a.x0 + (end[i] - a.t0) * a.k;
      if (xb < plotX0 || xa > plotX1) continue;
      if (xa < plotX0 - 1) xa = plotX0 - 1;
      if (xb > plotX1 + 1) xb = plotX1 + 1;
      const sw = Math.max(xb - xa, 1);
      spanX(r, y0, xa * dpr - rx0, (xa + sw) * dpr - rx0, sliceColour(task[i], count[i] > 1));
      drawn++;
      if (sw > 24) named.push(i);
    }
    copyRow(r, y0, y0 + 1, y1);
  }
  ctx.putImageData(r.img, rx0, ry0);
  return drawn;
}
