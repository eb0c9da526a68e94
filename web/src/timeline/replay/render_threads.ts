// Pure canvas painting of the replay view's thread-state tracks: one track per visible thread
// row, each segment coloured by its state (import::thread_states: Running, Runnable, Runnable
// (Preempted), Sleeping, Uninterruptible, Idle, Stopped, Unknown), a Running segment labelled
// with its CPU where it is wide enough; process rows get a faint band. The rows come from
// thread_tracks.ts, the segments from the engine for the visible threads only.
import { THREAD_STATE_NAMES, ThreadStateCode as S, type ReplayWindowData, type ThreadStateData } from '../../engine/protocol';
import { GUTTER_W, type Ctx2D } from '../layout';
import { affineOf, type TimeScale } from '../time_scale';
import type { TrackRow } from './thread_tracks';

/** Height of one track row, CSS px. */
export const THREAD_ROW_H = 18;

/** Fill per state code; the colours of the CPU lanes' end-state caps where they mean the same. */
export const THREAD_STATE_COLOURS: readonly string[] = (() => {
  const c: string[] = [];
  c[S.running] = '#2e7d32';
  c[S.runnable] = '#ef6c00';
  c[S.preempted] = '#d32f2f';
  c[S.sleeping] = '#bbdefb';
  c[S.uninterruptible] = '#6a1b9a';
  c[S.idle] = '#cfd8dc';
  c[S.stopped] = '#212121';
  c[S.unknown] = '#9e9e9e';
  return c;
})();

export interface ThreadPaintOpts {
  rows: readonly TrackRow[];
  /** Rows [first, last) are on the canvas; row i's top is (i - first) * THREAD_ROW_H - offset. */
  first: number;
  last: number;
  offset: number;
  data: ThreadStateData | null;
  scale: TimeScale;
  width: number;
  height: number;
  /** The selected task (its track outlined, its wakeups drawn as arrows from waker to wakee). */
  selection: number | null;
  /** The window's wakeups (the replay window's wake_* columns), for the selection's arrows. */
  wakes?: ReplayWindowData | null;
}

/** The arrows' colour (the CPU lanes' wakeup links). */
export const THREAD_WAKE_COLOUR = '#1b5e20';

export interface ThreadPaintResult {
  tracks: number;
  segments: number;
  /** Wakeup arrows drawn between two visible tracks, and stubs of those with one end off screen. */
  wakeArrows: number;
  wakeStubs: number;
  /** Segments drawn per state name. */
  byState: Record<string, number>;
}

/** Draws the visible rows' tracks (the labels are HTML beside the canvas). */
export function renderThreadTracks(ctx: Ctx2D, o: ThreadPaintOpts): ThreadPaintResult {
  const res: ThreadPaintResult = { tracks: 0, segments: 0, wakeArrows: 0, wakeStubs: 0, byState: {} };
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  const top = (i: number) => (i - o.first) * THREAD_ROW_H - o.offset;
  const rowOf = new Map<number, number>();
  for (let i = o.first; i < o.last; i++) {
    const r = o.rows[i];
    const y = top(i);
    if (r.kind === 'process') {
      ctx.fillStyle = '#eceff1';
      ctx.fillRect(0, y, o.width, THREAD_ROW_H - 1);
      continue;
    }
    rowOf.set(r.task, i);
    res.tracks++;
    ctx.fillStyle = i % 2 ? '#fafafa' : '#ffffff';
    ctx.fillRect(GUTTER_W, y, o.width - GUTTER_W, THREAD_ROW_H - 1);
  }
  const d = o.data;
  if (!d) return res;
  ctx.save();
  ctx.beginPath();
  ctx.rect(GUTTER_W, 0, o.width - GUTTER_W, o.height);
  ctx.clip();
  ctx.font = '10px system-ui, sans-serif';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  for (let j = 0; j < d.row.length; j++) {
    const task = d.tasks[d.row[j]];
    const i = rowOf.get(task);
    if (i === undefined) continue;
    const xa = Math.max(x(d.start[j]), GUTTER_W - 1);
    const xb = Math.min(x(d.end[j]), o.width + 1);
    if (xb < GUTTER_W || xa > o.width) continue;
    const st = d.state[j];
    const y = top(i);
    const w = Math.max(xb - xa, 1);
    // Sleeping is the quiet state: a thin band, so runs and waits stand out.
    const [sy, sh] = st === S.sleeping || st === S.idle ? [y + THREAD_ROW_H / 2 - 2, 4] : [y + 2, THREAD_ROW_H - 5];
    ctx.fillStyle = THREAD_STATE_COLOURS[st] ?? '#9e9e9e';
    ctx.fillRect(xa, sy, w, sh);
    if (st === S.running && w > 44 && d.cpu[j] !== 0xffffffff) {
      ctx.fillStyle = '#ffffff';
      ctx.fillText(`CPU ${d.cpu[j]}`, xa + 3, y + THREAD_ROW_H / 2 - 0.5);
    }
    res.segments++;
    const name = THREAD_STATE_NAMES[st] ?? 'unknown';
    res.byState[name] = (res.byState[name] ?? 0) + 1;
  }
  if (o.selection !== null) {
    const i = rowOf.get(o.selection);
    if (i !== undefined) {
      ctx.strokeStyle = '#1a237e';
      ctx.lineWidth = 1.5;
      ctx.strokeRect(GUTTER_W + 0.5, top(i) + 0.5, o.width - GUTTER_W - 1, THREAD_ROW_H - 2);
    }
    drawWakeArrows(ctx, o, o.selection, rowOf, top, x, res);
  }
  ctx.restore();
  return res;
}

/** The wakeups the selected task received or sent in the window: a line from the waker's
 * track to the wakee's at the wakeup, an arrowhead on the wakee; a stub toward the edge when the
 * other end's track is not on screen (filtered out or scrolled away). */
function drawWakeArrows(
  ctx: Ctx2D,
  o: ThreadPaintOpts,
  sel: number,
  rowOf: Map<number, number>,
  top: (i: number) => number,
  x: (t: number) => number,
  res: ThreadPaintResult,
) {
  const w = o.wakes;
  if (!w) return;
  const mid = (i: number) => top(i) + THREAD_ROW_H / 2 - 0.5;
  ctx.strokeStyle = THREAD_WAKE_COLOUR;
  ctx.fillStyle = THREAD_WAKE_COLOUR;
  ctx.lineWidth = 1;
  for (let j = 0; j < w.wake_t.length; j++) {
    const [from, to] = [w.wake_waker[j], w.wake_wakee[j]];
    if (from !== sel && to !== sel) continue;
    const xw = x(w.wake_t[j]);
    if (xw < GUTTER_W || xw > o.width) continue;
    const [a, b] = [rowOf.get(from), rowOf.get(to)];
    if (a === undefined && b === undefined) continue;
    ctx.beginPath();
    if (a !== undefined && b !== undefined) {
      ctx.moveTo(xw, mid(a));
      ctx.lineTo(xw, mid(b));
      res.wakeArrows++;
    } else {
      // The other end's track is filtered out or scrolled away: a stub on the visible one.
      const i = (a ?? b) as number;
      ctx.moveTo(xw, mid(i));
      ctx.lineTo(xw, mid(i) - 7);
      res.wakeStubs++;
    }
    ctx.stroke();
    if (b !== undefined) {
      // Arrowhead on the wakee's track.
      const up = a !== undefined && a > b ? 1 : -1;
      const y = mid(b);
      ctx.beginPath();
      ctx.moveTo(xw, y);
      ctx.lineTo(xw - 3, y + up * 5);
      ctx.lineTo(xw + 3, y + up * 5);
      ctx.closePath();
      ctx.fill();
    }
  }
}
