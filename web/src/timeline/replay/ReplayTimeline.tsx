// The replay view of an imported trace: the time axis, a legend, and one canvas holding the
// CPU rows (per CPU: its lane of real run spans with the state each task left in, and its
// runqueue-depth track; wakeup links and migrations across them) and,
// when an EEVDF dump is present, one lane per dumped task with its real vruntime and deadline.
// The canvas reports what it drew in data attributes (data-spans-drawn, data-state-caps-*,
// data-wakeup-links, data-migrations, data-eevdf-lanes, data-eevdf-points, data-depth-*, …) and
// its geometry (data-lane-h, data-row-pitch, data-eevdf-top) and the view window it drew (data-view-t0/-t1).
import { memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { EevdfWindowData, ImportedTrace, ReplayWindowData } from '../../engine/protocol';
import { ENTITY_LANE_H, GUTTER_W, SECTION_GAP } from '../layout';
import { TimeAxis } from '../TimeAxis';
import { cancelRedraw, scheduleRedraw } from '../raf_scheduler';
import { renderCpuLanes } from '../render_cpu';
import { eevdfLanes, renderEevdfLanes, type EevdfHit } from './render_eevdf';
import { asWindowData, MIGRATE_COLOUR, renderReplayOverlay, WAKE_COLOUR } from './render_replay';
import { DEPTH_MORE_COLOUR, DEPTH_ONE_COLOUR, renderDepthTracks } from './render_depth';
import { formatNs, makeTimeScale } from '../time_scale';
import { STATE_COLOURS, STATE_WORDS, type StateKind } from './states';
import { timeAtX, useReplayInput } from './use_replay_input';
import { useWidth } from '../use_width';
import type { Area } from './area';

/** How far from the pointer a record may be to count as under it, px. */
export const HOVER_PX = 24;

/** The replay view's rows: per CPU its lane of runs, then its runqueue-depth track, then a
 * gap. Few CPUs get tall rows (the view has the page to itself); many get the compact ones. */
export function replayRows(cpus: number): { laneH: number; depthH: number; pitch: number } {
  const [laneH, depthH, gap] = cpus <= 2 ? [64, 56, 12] : cpus <= 4 ? [44, 40, 10] : cpus <= 16 ? [28, 24, 6] : [22, 16, 4];
  return { laneH, depthH, pitch: laneH + 2 + depthH + gap };
}

/** What is under the pointer. */
export type ReplayTarget =
  | { kind: 'cpu'; cpu: number; t: number; tol: number; span: number | null }
  | { kind: 'depth'; cpu: number; t: number; row: number | null }
  | { kind: 'eevdf'; row: number };

/** The runqueue-depth segment row of `data` on `cpu` covering time t, if any. */
export function depthRowAt(data: ReplayWindowData, cpu: number, t: number): number | null {
  for (let i = 0; i < data.depth_cpu.length; i++) {
    if (data.depth_cpu[i] === cpu && data.depth_start[i] <= t && t < data.depth_end[i]) return i;
  }
  return null;
}

export interface ReplayTimelineProps {
  trace: ImportedTrace;
  data: ReplayWindowData | null;
  eevdf: EevdfWindowData | null;
  view: { t0: number; t1: number };
  cursor: number;
  /** The selected task id (its spans outlined). */
  selection: number | null;
  onView: (t0: number, t1: number) => void;
  onCursor: (t: number) => void;
  onHover: (t: ReplayTarget | null) => void;
  onPick: (t: ReplayTarget | null) => void;
  /** Reports the plot width (for the window's bucket). */
  onWidth?: (w: number) => void;
  /** The time range zoom and pan stay in (default: this trace's duration); a second trace
   * following another's view (A/B) takes the other's. */
  duration?: number;
  /** False: the keyboard does not move this view (the other timeline's does). */
  keys?: boolean;
  /** The selected area (drawn as a band over the lanes it covers). */
  area?: Area | null;
  /** Shift+drag over the CPU lanes: the time range and the CPUs covered. */
  onArea?: (a: Area) => void;
}

/** The CPUs whose rows [y0, y1] (canvas px) cross, for rows of `pitch` px. */
export function cpusCovered(y0: number, y1: number, pitch: number, cpus: number): number[] {
  const [a, b] = [Math.min(y0, y1), Math.max(y0, y1)];
  const first = Math.max(0, Math.floor(a / pitch));
  const last = Math.min(cpus - 1, Math.floor(b / pitch));
  return Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i);
}

const LEGEND: StateKind[] = ['preempted', 'runnable', 'sleeping', 'disk', 'idle', 'stopped', 'lost'];
const LEGEND_LABEL: Partial<Record<StateKind, string>> = { preempted: 'R+', runnable: 'R', sleeping: 'S', disk: 'D', idle: 'I', stopped: 'T/X/Z', lost: '?' };

/** The span row of `data` on `cpu` under time t (within tol), if any. */
export function spanRowAt(data: ReplayWindowData, cpu: number, t: number, tol: number): number | null {
  let best: number | null = null;
  let bestD = Infinity;
  for (let i = 0; i < data.span_cpu.length; i++) {
    if (data.span_cpu[i] !== cpu) continue;
    const s = data.span_start[i];
    const e = data.span_end[i];
    const dist = t < s ? s - t : t > e ? t - e : 0;
    if (dist <= tol && dist < bestD) {
      bestD = dist;
      best = i;
    }
  }
  return best;
}

function ReplayTimelineImpl(p: ReplayTimelineProps) {
  const { trace, data, eevdf, view, cursor, selection } = p;
  const root = useRef<HTMLDivElement>(null);
  const box = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const width = useWidth(root);
  const eevdfHit = useRef<EevdfHit | null>(null);
  const cpus = trace.report.timeline.cpus;
  const duration = p.duration ?? trace.report.timeline.duration_ns;
  const taskNames = useMemo(() => trace.tasks.map((t) => (t.pid === 0 ? '<idle>' : t.comm)), [trace]);
  const lanes = useMemo(() => {
    const byPid = new Map<number, number>();
    trace.tasks.forEach((t, i) => byPid.set(t.pid, i));
    return eevdfLanes(trace.report.eevdf.tasks).map((l) => ({ ...l, task: byPid.get(l.pid) }));
  }, [trace]);
  const wakeKinds = useMemo(() => {
    const ev = trace.report.summary.events;
    return new Set((ev.sched_wakeup ?? 0) + (ev.sched_wakeup_new ?? 0) > 0 ? [1, 2] : [0]);
  }, [trace]);
  const rows = replayRows(cpus);
  const runqueues = trace.report.summary.runqueues;
  const maxDepth = useMemo(() => runqueues.reduce((m, r) => Math.max(m, r.max_depth), 2), [runqueues]);
  const depthLabels = useMemo(
    () => Array.from({ length: cpus }, (_, c) => {
      const r = runqueues.find((x) => x.cpu === c);
      return r ? `runnable\nidle·ovl ${formatNs(r.idle_while_overloaded_ns)}` : 'runnable';
    }),
    [cpus, runqueues],
  );
  const eevdfTop = cpus * rows.pitch + SECTION_GAP;
  const height = eevdfTop + lanes.length * ENTITY_LANE_H;

  const onWidth = p.onWidth;
  useEffect(() => {
    if (width > GUTTER_W) onWidth?.(width - GUTTER_W);
  }, [width, onWidth]);

  const target = (x: number, y: number): ReplayTarget | null => {
    if (x < GUTTER_W) return null;
    const t = timeAtX({ view, width }, x);
    const px = (view.t1 - view.t0) / Math.max(1, width - GUTTER_W);
    if (y >= 0 && y < cpus * rows.pitch) {
      const cpu = Math.floor(y / rows.pitch);
      const dy = y - cpu * rows.pitch;
      if (dy >= rows.laneH + 2 && dy < rows.laneH + 2 + rows.depthH) return { kind: 'depth', cpu, t, row: data ? depthRowAt(data, cpu, t) : null };
      if (dy >= rows.laneH) return null;
      return { kind: 'cpu', cpu, t, tol: HOVER_PX * px, span: data ? spanRowAt(data, cpu, t, px) : null };
    }
    const row = eevdfHit.current?.sampleAt(x, y) ?? null;
    return row === null ? null : { kind: 'eevdf', row };
  };

  useReplayInput(box, {
    duration,
    view,
    cursor,
    width,
    onView: p.onView,
    onCursor: p.onCursor,
    onClick: (x, y) => p.onPick(target(x, y)),
    onHover: (pt) => p.onHover(pt ? target(pt.x, pt.y) : null),
    keys: p.keys,
    onArea: p.onArea
      ? (a) => p.onArea?.({ t0: timeAtX({ view, width }, a.x0), t1: timeAtX({ view, width }, a.x1), cpus: cpusCovered(a.y0, a.y1, rows.pitch, cpus), tasks: [], live: !a.done })
      : undefined,
  });

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    scheduleRedraw(() => {
      const started = performance.now();
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(0, Math.round(width * dpr));
      const h = Math.max(0, Math.round(height * dpr));
      if (canvas.width !== w) canvas.width = w;
      if (canvas.height !== h) canvas.height = h;
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const scale = makeTimeScale(view.t0, view.t1, GUTTER_W, width);
      // Each CPU's lane on its own row (its spans as lane 0 of the CPU-lane painter).
      let rects = 0;
      for (let c = 0; c < cpus; c++) {
        const lane = renderCpuLanes(ctx, {
          data: data ? asWindowData(data, c) : null,
          scale,
          width,
          top: c * rows.pitch,
          cpus: 1,
          taskNames,
          selection,
          dpr,
          labels: [`CPU ${c}`],
          laneHeight: rows.laneH,
        });
        rects += lane.rects;
      }
      const depth = renderDepthTracks(ctx, {
        data,
        scale,
        width,
        cpus,
        trackTop: (c) => c * rows.pitch + rows.laneH + 2,
        trackHeight: rows.depthH,
        maxDepth,
        labels: depthLabels,
      });
      const ov = data ? renderReplayOverlay(ctx, { data, scale, width, top: 0, cpus, wakeKinds, laneHeight: rows.laneH, pitch: rows.pitch }) : null;
      const ev = renderEevdfLanes(ctx, { data: eevdf, lanes, scale, width, top: eevdfTop });
      eevdfHit.current = ev.hit;
      const ds = canvas.dataset;
      ds.cpuLanes = String(cpus);
      ds.spansDrawn = String(rects);
      ds.laneH = String(rows.laneH);
      ds.rowPitch = String(rows.pitch);
      ds.eevdfTop = String(eevdfTop);
      ds.depthTracks = String(cpus);
      ds.depthSegments = String(depth.segments);
      ds.depthOverloaded = String(depth.overloaded);
      ds.spansInWindow = String(data?.span_cpu.length ?? 0);
      ds.mergedSpans = String(data ? data.span_count.reduce((n, c) => n + (c > 1 ? 1 : 0), 0) : 0);
      for (const k of Object.keys(STATE_COLOURS) as StateKind[]) ds[`stateCaps${k[0].toUpperCase()}${k.slice(1)}`] = String(ov?.caps[k] ?? 0);
      ds.stateLetters = String(ov?.letters ?? 0);
      ds.wakePoints = String(ov?.wakePoints ?? 0);
      ds.wakeupLinks = String(ov?.wakeLinks ?? 0);
      ds.migrations = String(ov?.migrations ?? 0);
      ds.markersOmitted = data ? `${data.omitted[0]},${data.omitted[1]}` : '0,0';
      ds.eevdfLanes = String(ev.lanes);
      ds.eevdfPoints = String(ev.points);
      ds.eevdfGroupPoints = String(ev.groupPoints);
      ds.viewT0 = String(view.t0);
      ds.viewT1 = String(view.t1);
      ds.paintMs = (performance.now() - started).toFixed(2);
    }, canvas);
  }, [data, eevdf, view, width, height, cpus, taskNames, selection, wakeKinds, lanes, eevdfTop, rows.pitch, rows.laneH, rows.depthH, maxDepth, depthLabels]);

  useEffect(() => {
    const canvas = canvasRef.current;
    return () => {
      if (canvas) cancelRedraw(canvas);
    };
  }, []);

  const span = view.t1 - view.t0;
  const cursorX = span > 0 ? GUTTER_W + ((cursor - view.t0) / span) * (width - GUTTER_W) : -1;
  const cursorVisible = width > GUTTER_W && cursorX >= GUTTER_W && cursorX <= width;
  return (
    <div ref={root} data-testid="replay-timeline" style={{ position: 'relative', width: '100%', userSelect: 'none' }}>
      <div className="replay-legend" aria-label="legend">
        {LEGEND.map((k) => (
          <span key={k} title={STATE_WORDS[k]}>
            <i style={{ background: STATE_COLOURS[k] }} /> {LEGEND_LABEL[k]}
          </span>
        ))}
        <span title="a wakeup: from the waker's CPU to where the wakee next ran">
          <i style={{ background: WAKE_COLOUR, height: 2 }} /> wakeup → run
        </span>
        <span title="sched_migrate_task: from the old CPU to the new one">
          <i style={{ background: MIGRATE_COLOUR, width: 2 }} /> migration
        </span>
        <span title="under each CPU: its runqueue depth (nr_running: the running task and those waiting) from the trace's wakeups, sleeps and migrations">
          <i style={{ background: DEPTH_ONE_COLOUR }} /> 1 runnable <i style={{ background: DEPTH_MORE_COLOUR }} /> more waiting
        </span>
        {lanes.length > 0 && <span title="EEVDF lanes: vruntime (dot: green eligible, red not) to deadline (tick), relative to zero_vruntime">EEVDF lanes: v − zero_vruntime ● … d ▬</span>}
      </div>
      <TimeAxis t0={view.t0} t1={view.t1} width={width} />
      <div ref={box} style={{ position: 'relative', touchAction: 'none', cursor: 'crosshair' }}>
        <canvas ref={canvasRef} data-testid="replay-canvas" style={{ display: 'block', width: Math.max(width, 0), height }} />
        {p.area && p.area.cpus.length > 0 && <AreaBand area={p.area} view={view} width={width} top={Math.min(...p.area.cpus) * rows.pitch} bottom={(Math.max(...p.area.cpus) + 1) * rows.pitch} />}
        {cursorVisible && (
          <div style={{ position: 'absolute', top: 0, bottom: 0, left: Math.round(cursorX), width: 1, background: '#d32f2f', pointerEvents: 'none' }} />
        )}
      </div>
    </div>
  );
}

/** The selected area's band: its time range over the rows from `top` to `bottom` (px). */
export function AreaBand({ area, view, width, top, bottom }: { area: Area; view: { t0: number; t1: number }; width: number; top: number; bottom: number }) {
  const span = view.t1 - view.t0;
  if (span <= 0 || width <= GUTTER_W) return null;
  const x = (t: number) => GUTTER_W + ((t - view.t0) / span) * (width - GUTTER_W);
  const left = Math.max(GUTTER_W, x(area.t0));
  const right = Math.min(width, x(area.t1));
  if (right <= left) return null;
  return (
    <div
      className="area-band"
      data-testid="area-band"
      style={{ position: 'absolute', left, width: Math.max(1, right - left), top, height: bottom - top, pointerEvents: 'none' }}
    />
  );
}

export const ReplayTimeline = memo(ReplayTimelineImpl);
