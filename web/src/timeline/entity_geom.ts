// Geometry shared by the entity-lane renderers (vector and bitmap): a lane's y-scale and the
// visible part of one sample-to-sample segment, computed into a shared scratch array.
import type { SampleCols } from '../engine/protocol';
import type { Affine } from './time_scale';

/** Geometry and y-scale of one entity lane. */
export interface EntityLane {
  task: number;
  top: number;
  bottom: number;
  /** The lane's midline: V in relative mode, the centre of the range in absolute mode. */
  mid: number;
  /** The virtual-time value at the midline (0 in relative mode). */
  centre: number;
  /** Virtual ns from the midline to the plot's top and bottom edge. */
  halfRange: number;
  /** CSS px from the midline to the plot's top and bottom edge. */
  halfPx: number;
}

/** The y (CSS px) of a virtual-time value (an offset from V in relative mode) in a lane. */
export function laneY(lane: EntityLane, value: number): number {
  return lane.mid - ((value - lane.centre) / lane.halfRange) * lane.halfPx;
}

// Scratch for one segment: [xa, xb, vruntime a, vruntime b, deadline, deadline, V a, V b].
export const seg = new Float64Array(8);

/**
 * Fills `seg` with the visible part [lo, hi] (ns) of the segment from sample `i` to sample `j`
 * (or to `tEnd` when j < 0): vruntime and V interpolated linearly, deadline held at sample i's.
 * Returns false when nothing of it is visible.
 */
export function segment(s: SampleCols, i: number, j: number, tEnd: number, lo: number, hi: number, a: Affine): boolean {
  const ta = s.t[i];
  const tb = j >= 0 ? s.t[j] : tEnd;
  const ca = Math.max(ta, lo);
  const cb = Math.min(tb, hi);
  if (!(cb >= ca) || tb < ta) return false;
  const span = tb - ta;
  const vrB = j >= 0 ? s.vruntime[j] : s.vruntime[i];
  const avB = j >= 0 ? s.avg[j] : s.avg[i];
  const fa = span > 0 ? (ca - ta) / span : 0;
  const fb = span > 0 ? (cb - ta) / span : 0;
  seg[0] = a.x0 + (ca - a.t0) * a.k;
  seg[1] = a.x0 + (cb - a.t0) * a.k;
  seg[2] = s.vruntime[i] + (vrB - s.vruntime[i]) * fa;
  seg[3] = s.vruntime[i] + (vrB - s.vruntime[i]) * fb;
  seg[4] = seg[5] = s.deadline[i];
  seg[6] = s.avg[i] + (avB - s.avg[i]) * fa;
  seg[7] = s.avg[i] + (avB - s.avg[i]) * fb;
  return true;
}

