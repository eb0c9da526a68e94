// Pure canvas renderers of CFS bandwidth: on the CPU lanes, a hatched red strip along the lane
// bottom while a group's cfs_rq on that CPU is throttled, a green tick at each unthrottle and a
// small red triangle where a task was throttled (moved to the limbo list); below the CPU lanes,
// one counter track per bandwidth-limited group and CPU plotting the cfs_rq's runtime_remaining
// (a step line, the zero line marked, negative values shaded) and the group's pool (dashed,
// scaled to the quota).
import { CounterKind, EventKind, SwitchReason, type ScenarioMeta, type WindowData } from '../engine/protocol';
import { counterSeries, type CounterTrack, type ThrottleData } from './bandwidth';
import { COUNTER_TRACK_H, CPU_LANE_H, GUTTER_W, type Ctx2D } from './layout';
import { COLOURS } from './palette';
import { affineOf, formatNs, type TimeScale } from './time_scale';

const STRIP_H = 6;

export interface ThrottleOpts {
  data: WindowData | null;
  throttle: ThrottleData;
  scale: TimeScale;
  width: number;
  /** y of the first CPU lane, CSS px. */
  top: number;
  cpus: number;
}

export interface ThrottleResult {
  strips: number;
  unthrottles: number;
  taskThrottled: number;
}

/** Draws throttled strips, unthrottle ticks and task-throttled marks on the CPU lanes. */
export function renderThrottles(ctx: Ctx2D, o: ThrottleOpts): ThrottleResult {
  const res = { strips: 0, unthrottles: 0, taskThrottled: 0 };
  if (!o.data) return res;
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  const laneBottom = (cpu: number) => o.top + (cpu + 1) * CPU_LANE_H - 1;
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER_W, o.top, o.width - GUTTER_W, o.cpus * CPU_LANE_H);
  ctx.clip();
  for (const iv of o.throttle.intervals) {
    if (iv.cpu >= o.cpus) continue;
    const xa = Math.max(x(iv.t0), GUTTER_W - 1);
    const xb = Math.min(x(iv.t1), o.width + 1);
    if (xb < GUTTER_W || xa > o.width) continue;
    const y = laneBottom(iv.cpu) - STRIP_H;
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(xa, y, Math.max(xb - xa, 1), STRIP_H);
    ctx.fillStyle = COLOURS.throttled;
    ctx.fillRect(xa, y + STRIP_H - 1.5, Math.max(xb - xa, 1), 1.5);
    ctx.beginPath();
    for (let hx = Math.floor(xa / 4) * 4; hx < xb; hx += 4) {
      ctx.moveTo(Math.max(hx, xa), y + STRIP_H);
      ctx.lineTo(Math.min(hx + STRIP_H, xb), y);
    }
    ctx.strokeStyle = COLOURS.throttled;
    ctx.lineWidth = 1;
    ctx.stroke();
    res.strips++;
  }
  ctx.beginPath();
  for (const u of o.throttle.unthrottles) {
    const ux = x(u.t);
    if (u.cpu >= o.cpus || ux < GUTTER_W || ux > o.width) continue;
    ctx.moveTo(ux, laneBottom(u.cpu) - 9);
    ctx.lineTo(ux, laneBottom(u.cpu));
    res.unthrottles++;
  }
  ctx.strokeStyle = COLOURS.unthrottle;
  ctx.lineWidth = 2;
  ctx.stroke();
  // Task throttled: the task_throttled marker, or (when the engine sends none) a switch whose
  // reason is "throttle".
  const m = o.data.markers;
  let hasTaskMarkers = false;
  for (let i = 0; i < m.t.length && !hasTaskMarkers; i++) hasTaskMarkers = m.kind[i] === EventKind.taskThrottled;
  ctx.beginPath();
  for (let i = 0; i < m.t.length; i++) {
    const hit = hasTaskMarkers ? m.kind[i] === EventKind.taskThrottled : m.kind[i] === EventKind.switch && m.val[i] === SwitchReason.throttle;
    const mx = x(m.t[i]);
    if (!hit || m.cpu[i] >= o.cpus || mx < GUTTER_W - 4 || mx > o.width + 4) continue;
    const yb = laneBottom(m.cpu[i]) - STRIP_H;
    ctx.moveTo(mx - 3.5, yb);
    ctx.lineTo(mx + 3.5, yb);
    ctx.lineTo(mx, yb - 6);
    ctx.closePath();
    res.taskThrottled++;
  }
  ctx.fillStyle = COLOURS.taskThrottled;
  ctx.fill();
  ctx.restore();
  return res;
}

export interface CounterOpts {
  data: WindowData | null;
  meta: ScenarioMeta;
  tracks: readonly CounterTrack[];
  scale: TimeScale;
  width: number;
  /** y of the first track, CSS px. */
  top: number;
}

/** Draws the counter tracks; returns how many were drawn. */
export function renderCounterTracks(ctx: Ctx2D, o: CounterOpts): number {
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  o.tracks.forEach((tr, i) => {
    const top = o.top + i * COUNTER_TRACK_H;
    const h = COUNTER_TRACK_H;
    ctx.fillStyle = COLOURS.laneBg;
    ctx.fillRect(0, top, o.width, h);
    ctx.fillStyle = COLOURS.laneSep;
    ctx.fillRect(0, top + h - 0.5, o.width, 0.5);
    ctx.textAlign = 'left';
    ctx.textBaseline = 'middle';
    ctx.font = 'bold 10px system-ui, sans-serif';
    ctx.fillStyle = COLOURS.runtime;
    ctx.fillText(tr.label, 6, top + 10);
    ctx.font = '9px system-ui, sans-serif';
    ctx.fillStyle = COLOURS.mutedText;
    ctx.fillText(`CPU ${tr.cpu} · - - pool`, 6, top + 24);
    if (!o.data) return;
    const end = o.data.t1;
    const rt = counterSeries(o.data, CounterKind.runtimeRemaining, tr.cfsRq);
    const pool = counterSeries(o.data, CounterKind.poolRuntime, tr.tg);
    // runtime_remaining on its own scale (0 marked); the pool scaled 0..quota over the track.
    let lo = 0;
    let hi = 1;
    rt.v.forEach((v) => ((lo = Math.min(lo, v)), (hi = Math.max(hi, v))));
    const pad = 4;
    const yRt = (v: number) => top + pad + ((hi - v) / (hi - lo)) * (h - 2 * pad);
    const yPool = (v: number) => top + pad + (1 - Math.min(1, Math.max(0, v / Math.max(tr.quota, 1)))) * (h - 2 * pad);
    ctx.save();
    ctx.beginPath();
    ctx.rect(GUTTER_W, top, o.width - GUTTER_W, h);
    ctx.clip();
    const zero = Math.round(yRt(0)) + 0.5;
    ctx.beginPath();
    ctx.moveTo(GUTTER_W, zero);
    ctx.lineTo(o.width, zero);
    ctx.strokeStyle = COLOURS.vLine;
    ctx.lineWidth = 1;
    ctx.setLineDash([2, 2]);
    ctx.stroke();
    ctx.setLineDash([]);
    // Negative runtime shaded between the line and zero.
    ctx.beginPath();
    rt.t.forEach((t, j) => {
      if (rt.v[j] >= 0) return;
      const xa = x(t);
      const xb = x(j + 1 < rt.t.length ? rt.t[j + 1] : end);
      ctx.rect(xa, zero, Math.max(xb - xa, 0.5), yRt(rt.v[j]) - zero);
    });
    ctx.fillStyle = COLOURS.negative;
    ctx.fill();
    step(ctx, rt, end, x, yRt, COLOURS.runtime, [], 1.5);
    step(ctx, pool, end, x, yPool, COLOURS.pool, [4, 3], 1);
    // The runtime scale at the plot's right edge.
    ctx.font = '9px system-ui, sans-serif';
    ctx.fillStyle = COLOURS.mutedText;
    ctx.textAlign = 'right';
    ctx.fillText(`${formatNs(hi)}`, o.width - 3, top + pad + 3);
    ctx.fillText('0', o.width - 3, zero - 5);
    ctx.textAlign = 'left';
    ctx.restore();
  });
  return o.tracks.length;
}

/** A step line: each value holds until the next one (the last until `end`). */
function step(ctx: Ctx2D, s: { t: number[]; v: number[] }, end: number, x: (t: number) => number, y: (v: number) => number, colour: string, dash: number[], w: number) {
  if (s.t.length === 0) return;
  ctx.beginPath();
  s.t.forEach((t, j) => {
    const xa = x(t);
    const xb = x(j + 1 < s.t.length ? s.t[j + 1] : end);
    const ya = y(s.v[j]);
    if (j === 0) ctx.moveTo(xa, ya);
    else ctx.lineTo(xa, ya);
    ctx.lineTo(xb, ya);
  });
  ctx.strokeStyle = colour;
  ctx.lineWidth = w;
  ctx.setLineDash(dash);
  ctx.stroke();
  ctx.setLineDash([]);
}
