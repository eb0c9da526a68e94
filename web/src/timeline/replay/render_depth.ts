// Pure canvas painting of the replay view's runqueue-depth tracks: one track under each CPU
// lane, a step chart of that CPU's nr_running (the running task and the runnable ones waiting)
// as the engine computed it from the trace (import::depth: wakeups, switch-outs in a sleeping
// state, migrations). Depth 1 is drawn muted, more than one (tasks waiting) in orange, with a
// grid line at each depth while they are far enough apart. Segments merged below a bucket
// carry the largest depth among them.
import type { ReplayWindowData } from '../../engine/protocol';
import { COLOURS } from '../palette';
import { GUTTER_W, type Ctx2D } from '../layout';
import { affineOf, type TimeScale } from '../time_scale';

export const DEPTH_ONE_COLOUR = '#90a4ae';
export const DEPTH_MORE_COLOUR = '#ef6c00';

export interface DepthOpts {
  data: ReplayWindowData | null;
  scale: TimeScale;
  width: number;
  cpus: number;
  /** y of CPU c's depth track, CSS px. */
  trackTop: (cpu: number) => number;
  trackHeight: number;
  /** The depth at the top of every track (the trace's largest, at least 2). */
  maxDepth: number;
  /** Gutter text per CPU (e.g. the idle-while-overloaded figure). */
  labels?: readonly string[];
  gutter?: number;
}

export interface DepthResult {
  /** Segments drawn (depth > 0 and on screen). */
  segments: number;
  /** Of them, with more than one runnable task. */
  overloaded: number;
}

/** Draws the depth tracks; see the file comment. */
export function renderDepthTracks(ctx: Ctx2D, o: DepthOpts): DepthResult {
  const gutter = o.gutter ?? GUTTER_W;
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  const h = o.trackHeight;
  const max = Math.max(2, o.maxDepth);
  const unit = (h - 4) / max;
  const res: DepthResult = { segments: 0, overloaded: 0 };
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  for (let c = 0; c < o.cpus; c++) {
    const top = o.trackTop(c);
    const base = top + h - 1;
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(gutter, top, o.width - gutter, h);
    // Grid: a line per depth while they stay 6 px apart, else at 1 and at the top.
    ctx.strokeStyle = '#e0e0e0';
    ctx.lineWidth = 1;
    ctx.beginPath();
    const step = unit >= 6 ? 1 : max;
    for (let d = 1; d <= max; d += step) {
      const y = Math.round(base - d * unit) + 0.5;
      ctx.moveTo(gutter, y);
      ctx.lineTo(o.width, y);
    }
    ctx.stroke();
    // Labels: the track's name and scale in the gutter.
    ctx.fillStyle = COLOURS.mutedText;
    ctx.textAlign = 'left';
    const lines = (o.labels?.[c] ?? 'runnable').split('\n');
    lines.forEach((l, j) => ctx.fillText(l, 6, top + h / 2 + (j - (lines.length - 1) / 2) * 12));
    ctx.textAlign = 'right';
    ctx.fillText(String(max), gutter - 4, top + 6);
    ctx.fillText('0', gutter - 4, base - 4);
  }
  ctx.textAlign = 'left';
  const d = o.data;
  if (!d) return res;
  ctx.save();
  ctx.beginPath();
  for (let c = 0; c < o.cpus; c++) ctx.rect(gutter, o.trackTop(c), o.width - gutter, h);
  ctx.clip();
  for (const more of [false, true]) {
    ctx.fillStyle = more ? DEPTH_MORE_COLOUR : DEPTH_ONE_COLOUR;
    for (let i = 0; i < d.depth_cpu.length; i++) {
      const n = d.depth_n[i];
      const c = d.depth_cpu[i];
      if (n === 0 || c >= o.cpus || n > 1 !== more) continue;
      const xa = Math.max(x(d.depth_start[i]), gutter - 1);
      const xb = Math.min(x(d.depth_end[i]), o.width + 1);
      if (xb < gutter || xa > o.width) continue;
      const bh = Math.min(n, max) * unit;
      ctx.fillRect(xa, o.trackTop(c) + h - 1 - bh, Math.max(xb - xa, 1), bh);
      res.segments++;
      if (more) res.overloaded++;
    }
  }
  ctx.restore();
  return res;
}
