// Pure canvas painting of an imported trace's CPU lanes. The run spans go through the scenario
// timeline's CPU-lane painter (render_cpu.ts: same colours, names, merged-span shading, bitmap
// path for dense views); on top of them this draws what only a real trace has: the state each
// task left its CPU in (a cap at the span's end, coloured per state, lettered where it fits),
// wakeup links from the waker's CPU to the wakee's next switch-in, and migration arrows.
import type { ReplayWindowData, WindowData } from '../../engine/protocol';
import { CPU_LANE_H, GUTTER_W, type Ctx2D } from '../layout';
import { affineOf, type TimeScale } from '../time_scale';
import { drawMigrationArrows, migrationArrows, MIGRATION_STYLE } from '../migrations';
import { spanState, type StateKind } from './states';

const EMPTY_F64 = new Float64Array(0);
const EMPTY_U32 = new Uint32Array(0);

/** The replay columns as the CPU-lane painter's WindowData (spans as slices, no markers).
 * With `cpu`, only that CPU's spans (the engine sends them CPU by CPU), as lane 0. */
export function asWindowData(d: ReplayWindowData, cpu?: number): WindowData {
  if (cpu !== undefined) return cpuWindowData(d, cpu);
  return {
    variant: 'trace',
    t0: d.t0,
    t1: d.t1,
    bucket: d.bucket,
    tasks: [],
    slices: { cpu: d.span_cpu, task: d.span_task, start: d.span_start, end: d.span_end, count: d.span_count },
    samples: { t: EMPTY_F64, task: EMPTY_U32, cpu: EMPTY_U32, vruntime: EMPTY_F64, deadline: EMPTY_F64, vlag: EMPTY_F64, vprot: EMPTY_F64, avg: EMPTY_F64, flags: EMPTY_U32 },
    markers: { t: EMPTY_F64, kind: EMPTY_U32, cpu: EMPTY_U32, task: EMPTY_U32, arg: EMPTY_U32, val: EMPTY_F64 },
    counters: { t: EMPTY_F64, kind: EMPTY_U32, key: EMPTY_U32, value: EMPTY_F64 },
    migrations: { t: EMPTY_F64, task: EMPTY_U32, from: EMPTY_U32, to: EMPTY_U32, class: EMPTY_U32 },
  };
}

const perCpu = new WeakMap<ReplayWindowData, WindowData[]>();
let zeros = new Uint32Array(0);

/** CPU `cpu`'s spans of `d` as lane 0 (views into the columns, cached per window). */
function cpuWindowData(d: ReplayWindowData, cpu: number): WindowData {
  let list = perCpu.get(d);
  if (!list) perCpu.set(d, (list = []));
  const hit = list[cpu];
  if (hit) return hit;
  let a = 0;
  while (a < d.span_cpu.length && d.span_cpu[a] < cpu) a++;
  let b = a;
  while (b < d.span_cpu.length && d.span_cpu[b] === cpu) b++;
  if (zeros.length < b - a) zeros = new Uint32Array(Math.max(b - a, zeros.length * 2));
  const whole = asWindowData(d);
  const out: WindowData = {
    ...whole,
    slices: { cpu: zeros.subarray(0, b - a), task: d.span_task.subarray(a, b), start: d.span_start.subarray(a, b), end: d.span_end.subarray(a, b), count: d.span_count.subarray(a, b) },
  };
  list[cpu] = out;
  return out;
}

/** Cap width at a span's end, CSS px. */
export const CAP_W = 3;
/** Spans at least this wide get an end-state cap (zoom in to see the states of short runs). */
export const CAP_MIN_PX = 3 * CAP_W;
/** Spans at least this wide get their state letters. */
export const LETTER_MIN_PX = 16;
/** More wakeup links than one per this many px of plot width are not drawn (a lane of
 * overlapping lines says nothing); the wake points still are. */
export const LINK_PX = 4;

export const WAKE_COLOUR = '#1b5e20';
export const MIGRATE_COLOUR = MIGRATION_STYLE.trace.colour;

export interface OverlayOpts {
  data: ReplayWindowData;
  scale: TimeScale;
  width: number;
  top: number;
  cpus: number;
  /** Wake kinds to link (0 sched_waking, 1 sched_wakeup, 2 sched_wakeup_new). */
  wakeKinds: ReadonlySet<number>;
  gutter?: number;
  laneHeight?: number;
  /** Distance from one CPU lane's top to the next one's (default the lane height: no gap). */
  pitch?: number;
}

export interface OverlayResult {
  /** Caps drawn per state kind. */
  caps: Record<StateKind, number>;
  letters: number;
  wakePoints: number;
  wakeLinks: number;
  migrations: number;
}

/** Draws the end-state caps, wakeup links and migrations; see the file comment. */
export function renderReplayOverlay(ctx: Ctx2D, o: OverlayOpts): OverlayResult {
  const laneH = o.laneHeight ?? CPU_LANE_H;
  const pitch = o.pitch ?? laneH;
  const gutter = o.gutter ?? GUTTER_W;
  const { data: d, top, cpus } = o;
  const { k, t0, x0 } = affineOf(o.scale);
  const x = (t: number) => x0 + (t - t0) * k;
  const plotX1 = o.width;
  const caps = { preempted: 0, runnable: 0, sleeping: 0, disk: 0, idle: 0, stopped: 0, raw: 0, lost: 0, open: 0 } as Record<StateKind, number>;
  const res: OverlayResult = { caps, letters: 0, wakePoints: 0, wakeLinks: 0, migrations: 0 };
  ctx.save();
  ctx.beginPath();
  ctx.rect(gutter, top, plotX1 - gutter, (cpus - 1) * pitch + laneH);
  ctx.clip();

  // End-state caps, one colour at a time; letters where the span is wide enough.
  const byColour = new Map<string, number[]>();
  const n = d.span_cpu.length;
  for (let i = 0; i < n; i++) {
    if (d.span_count[i] !== 1 || d.span_cpu[i] >= cpus) continue;
    const st = spanState(d.span_state[i]);
    if (st.kind === 'open') continue;
    const xb = x(d.span_end[i]);
    // A cap needs room: on a span narrower than CAP_MIN_PX the cap would be all there is.
    if (xb < gutter || xb > plotX1 + CAP_W || xb - x(d.span_start[i]) < CAP_MIN_PX) continue;
    let list = byColour.get(st.colour);
    if (!list) byColour.set(st.colour, (list = []));
    list.push(i);
    caps[st.kind]++;
  }
  for (const [colour, rows] of byColour) {
    ctx.fillStyle = colour;
    for (const i of rows) {
      const xa = x(d.span_start[i]);
      const xb = x(d.span_end[i]);
      ctx.fillRect(xb - CAP_W, top + d.span_cpu[i] * pitch + 1, Math.min(CAP_W, xb - xa), laneH - 2);
    }
  }
  ctx.font = 'bold 9px system-ui, sans-serif';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'top';
  for (const [colour, rows] of byColour) {
    ctx.fillStyle = colour;
    for (const i of rows) {
      const xa = Math.max(x(d.span_start[i]), gutter);
      const xb = x(d.span_end[i]);
      if (xb - xa < LETTER_MIN_PX) continue;
      // On a white chip so it reads on any task colour.
      const label = spanState(d.span_state[i]).label;
      const tw = label.length * 6 + 2;
      const y = top + d.span_cpu[i] * pitch + 1;
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(xb - CAP_W - tw - 1, y, tw, 10);
      ctx.fillStyle = colour;
      ctx.fillText(label, xb - CAP_W - 2, y + 1);
      res.letters++;
    }
  }
  ctx.textAlign = 'left';

  // Wakeups: a dot where the wakeup fired (on the waker's CPU) and, unless too dense, a line
  // to where the wakee next got a CPU.
  const wn = d.wake_t.length;
  const visible: number[] = [];
  for (let i = 0; i < wn; i++) {
    if (!o.wakeKinds.has(d.wake_kind[i]) || d.wake_cpu[i] >= cpus) continue;
    const xa = x(d.wake_t[i]);
    const runT = d.wake_run_t[i];
    const xb = runT >= 0 ? x(runT) : xa;
    if (Math.max(xa, xb) < gutter || Math.min(xa, xb) > plotX1) continue;
    visible.push(i);
  }
  ctx.fillStyle = WAKE_COLOUR;
  ctx.beginPath();
  for (const i of visible) {
    const xa = x(d.wake_t[i]);
    if (xa < gutter || xa > plotX1) continue;
    const y = top + d.wake_cpu[i] * pitch + laneH / 2;
    ctx.rect(xa - 1.5, y - 1.5, 3, 3);
    res.wakePoints++;
  }
  ctx.fill();
  if (visible.length * LINK_PX <= plotX1 - gutter) {
    ctx.strokeStyle = WAKE_COLOUR;
    ctx.lineWidth = 1;
    ctx.beginPath();
    for (const i of visible) {
      const runT = d.wake_run_t[i];
      const rc = d.wake_run_cpu[i];
      if (runT < 0 || rc >= cpus) continue;
      const xa = x(d.wake_t[i]);
      const ya = top + d.wake_cpu[i] * pitch + laneH / 2;
      const xb = x(runT);
      const yb = top + rc * pitch + (rc === d.wake_cpu[i] ? laneH / 2 : rc > d.wake_cpu[i] ? 2 : laneH - 2);
      ctx.moveTo(xa, ya);
      ctx.lineTo(xb, yb);
      // Arrowhead at the switch-in.
      ctx.moveTo(xb, yb);
      ctx.lineTo(xb - 4, yb - 3);
      ctx.moveTo(xb, yb);
      ctx.lineTo(xb - 4, yb + 3);
      res.wakeLinks++;
    }
    ctx.stroke();
  }

  // Migrations: an arrow from the old CPU's lane to the new one's at the migration time
  // (the simulated view's arrows, migrations.ts).
  const arrows = migrationArrows({ t: d.mig_t, from: d.mig_orig, to: d.mig_dest }, { a: { k, t0, x0 }, plotX0: gutter, plotX1, top, laneH, cpus, pitch });
  res.migrations = drawMigrationArrows(ctx, arrows).trace;
  ctx.restore();
  return res;
}
