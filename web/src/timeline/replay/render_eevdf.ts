// Pure canvas painting of the real EEVDF state from a bpftrace dump: one lane per task, each
// sample (taken as the task left its CPU) drawn where the kernel had it: a dot at vruntime and a
// tick at the deadline, joined (the request still to be served), both relative to the cfs_rq's
// zero_vruntime (the V reference avg_vruntime() last set; the lane's dashed middle line). The
// dot is green when vruntime ≤ zero_vruntime (eligible against that reference) and red after
// it. `G` samples (the task's parent group entity on its own cfs_rq) are hollow and grey.
import type { EevdfWindowData } from '../../engine/protocol';
import { COLOURS, taskColour } from '../palette';
import { ENTITY_LANE_H, GUTTER_W, type Ctx2D } from '../layout';
import { affineOf, type TimeScale } from '../time_scale';

export interface EevdfLane {
  pid: number;
  comm: string;
  samples: number;
  /** The trace's task id for this pid (its colour in the CPU lanes), when known. */
  task?: number;
}

/** Lanes drawn at most (the busiest tasks of the dump). */
export const MAX_EEVDF_LANES = 12;

/** The dump's tasks as lanes: the most sampled first (ties by pid), at most MAX_EEVDF_LANES. */
export function eevdfLanes(tasks: readonly EevdfLane[], max = MAX_EEVDF_LANES): EevdfLane[] {
  return [...tasks]
    .filter((t) => t.samples > 0)
    .sort((a, b) => b.samples - a.samples || a.pid - b.pid)
    .slice(0, max);
}

/** The smallest half-range of a lane's y-scale, ns (a tenth of a millisecond). */
export const MIN_HALF_NS = 100_000;

export interface EevdfOpts {
  data: EevdfWindowData | null;
  lanes: readonly EevdfLane[];
  scale: TimeScale;
  width: number;
  top: number;
  laneHeight?: number;
  gutter?: number;
}

export interface EevdfHit {
  top: number;
  bottom: number;
  /** The sample row nearest (x, y) within 6 px, or null. */
  sampleAt(x: number, y: number): number | null;
}

export interface EevdfResult {
  lanes: number;
  points: number;
  groupPoints: number;
  hit: EevdfHit;
}

export function renderEevdfLanes(ctx: Ctx2D, o: EevdfOpts): EevdfResult {
  const laneH = o.laneHeight ?? ENTITY_LANE_H;
  const gutter = o.gutter ?? GUTTER_W;
  const { data: d, lanes, top } = o;
  const laneOf = new Map(lanes.map((l, i) => [l.pid, i]));
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  // Per-lane half ranges from the visible task samples.
  const half = new Float64Array(lanes.length).fill(MIN_HALF_NS);
  const rows: number[] = [];
  if (d) {
    for (let i = 0; i < d.t.length; i++) {
      const lane = laneOf.get(d.pid[i]);
      const xi = x(d.t[i]);
      if (lane === undefined || xi < gutter - 2 || xi > o.width + 2) continue;
      rows.push(i);
      if (d.kind[i] === 0) half[lane] = Math.max(half[lane], Math.abs(d.v[i]), Math.abs(d.d[i]));
    }
  }
  const yOf = (lane: number, val: number) => top + lane * laneH + laneH / 2 - (val / half[lane]) * (laneH / 2 - 5);

  ctx.font = '11px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (let l = 0; l < lanes.length; l++) {
    const y = top + l * laneH;
    ctx.fillStyle = l % 2 ? COLOURS.laneBgAlt : COLOURS.laneBg;
    ctx.fillRect(gutter, y, o.width - gutter, laneH);
    ctx.fillStyle = taskColour(lanes[l].task ?? l);
    ctx.fillRect(0, y + 4, 3, laneH - 8);
    ctx.fillStyle = COLOURS.text;
    ctx.fillText(`${lanes[l].comm}`, 6, y + 12);
    ctx.fillStyle = COLOURS.mutedText;
    ctx.fillText(`pid ${lanes[l].pid}`, 6, y + 26);
    ctx.fillText(`±${(half[l] / 1e6).toFixed(2)} ms`, 6, y + 40);
  }
  ctx.save();
  ctx.beginPath();
  ctx.rect(gutter, top, o.width - gutter, lanes.length * laneH);
  ctx.clip();
  // zero_vruntime lines.
  ctx.strokeStyle = COLOURS.vLine;
  ctx.lineWidth = 1;
  ctx.setLineDash([3, 3]);
  ctx.beginPath();
  for (let l = 0; l < lanes.length; l++) {
    const y = Math.round(top + l * laneH + laneH / 2) + 0.5;
    ctx.moveTo(gutter, y);
    ctx.lineTo(o.width, y);
  }
  ctx.stroke();
  ctx.setLineDash([]);
  let points = 0;
  let groupPoints = 0;
  if (d) {
    // Requests: vruntime → deadline.
    ctx.strokeStyle = '#90a4ae';
    ctx.beginPath();
    for (const i of rows) {
      if (d.kind[i] !== 0) continue;
      const lane = laneOf.get(d.pid[i])!;
      const xi = Math.round(x(d.t[i])) + 0.5;
      ctx.moveTo(xi, yOf(lane, d.v[i]));
      ctx.lineTo(xi, yOf(lane, d.d[i]));
    }
    ctx.stroke();
    // Deadlines: a short horizontal tick.
    ctx.strokeStyle = COLOURS.text;
    ctx.beginPath();
    for (const i of rows) {
      if (d.kind[i] !== 0) continue;
      const lane = laneOf.get(d.pid[i])!;
      const xi = x(d.t[i]);
      const y = yOf(lane, d.d[i]);
      ctx.moveTo(xi - 3, y);
      ctx.lineTo(xi + 3, y);
    }
    ctx.stroke();
    // vruntime dots, eligible (≤ zero_vruntime) green, else red.
    for (const eligible of [true, false]) {
      ctx.fillStyle = eligible ? '#2e7d32' : COLOURS.preempt;
      ctx.beginPath();
      for (const i of rows) {
        if (d.kind[i] !== 0 || d.v[i] <= 0 !== eligible) continue;
        const lane = laneOf.get(d.pid[i])!;
        ctx.rect(x(d.t[i]) - 2, yOf(lane, d.v[i]) - 2, 4, 4);
        points++;
      }
      ctx.fill();
    }
    // Group entities: hollow grey squares at their vruntime.
    ctx.strokeStyle = COLOURS.group;
    ctx.beginPath();
    for (const i of rows) {
      if (d.kind[i] !== 1) continue;
      const lane = laneOf.get(d.pid[i])!;
      const v = Math.max(-half[lane], Math.min(half[lane], d.v[i]));
      ctx.rect(x(d.t[i]) - 2.5, yOf(lane, v) - 2.5, 5, 5);
      groupPoints++;
    }
    ctx.stroke();
  }
  ctx.restore();
  const bottom = top + lanes.length * laneH;
  return {
    lanes: lanes.length,
    points,
    groupPoints,
    hit: {
      top,
      bottom,
      sampleAt(px: number, py: number) {
        if (!d || py < top || py >= bottom || px < gutter) return null;
        const lane = Math.floor((py - top) / laneH);
        let best: number | null = null;
        let bestD = 6;
        for (const i of rows) {
          if (laneOf.get(d.pid[i]) !== lane) continue;
          const dist = Math.abs(x(d.t[i]) - px);
          if (dist < bestD || (dist === bestD && best !== null && d.kind[i] === 0)) {
            bestD = dist;
            best = i;
          }
        }
        return best;
      },
    },
  };
}
