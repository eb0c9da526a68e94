// The replay view of an imported trace: the time axis, a legend, and one canvas holding the
// CPU lanes (real run spans with the state each task left in, wakeup links, migrations) and,
// when an EEVDF dump is present, one lane per dumped task with its real vruntime and deadline.
// The canvas reports what it drew in data attributes (data-spans-drawn, data-state-caps-*,
// data-wakeup-links, data-migrations, data-eevdf-lanes, data-eevdf-points, …).
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type RefObject } from 'react';
import type { EevdfWindowData, ImportedTrace, ReplayWindowData } from '../../engine/protocol';
import { CPU_LANE_H, ENTITY_LANE_H, GUTTER_W, SECTION_GAP } from '../layout';
import { TimeAxis } from '../TimeAxis';
import { cancelRedraw, scheduleRedraw } from '../raf_scheduler';
import { renderCpuLanes, type CpuHitIndex } from '../render_cpu';
import { makeTimeScale } from '../time_scale';
import { eevdfLanes, renderEevdfLanes, type EevdfHit } from './render_eevdf';
import { asWindowData, MIGRATE_COLOUR, renderReplayOverlay, WAKE_COLOUR } from './render_replay';
import { STATE_COLOURS, STATE_WORDS, type StateKind } from './states';
import { timeAtX, useReplayInput } from './use_replay_input';

/** How far from the pointer a record may be to count as under it, px. */
export const HOVER_PX = 24;

/** What is under the pointer. */
export type ReplayTarget =
  | { kind: 'cpu'; cpu: number; t: number; tol: number; span: number | null }
  | { kind: 'eevdf'; row: number };

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
}

function useWidth(ref: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    if (typeof ResizeObserver === 'undefined') return;
    const ro = new ResizeObserver((entries) => {
      const w = entries[0]?.contentRect.width;
      if (w !== undefined) setWidth(Math.floor(w));
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
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
  const cpuHit = useRef<CpuHitIndex | null>(null);
  const eevdfHit = useRef<EevdfHit | null>(null);
  const cpus = trace.report.timeline.cpus;
  const duration = trace.report.timeline.duration_ns;
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
  const cpuLabels = useMemo(() => Array.from({ length: cpus }, (_, c) => `CPU ${c}`), [cpus]);
  const eevdfTop = cpus * CPU_LANE_H + SECTION_GAP;
  const height = eevdfTop + lanes.length * ENTITY_LANE_H;

  const onWidth = p.onWidth;
  useEffect(() => {
    if (width > GUTTER_W) onWidth?.(width - GUTTER_W);
  }, [width, onWidth]);

  const target = (x: number, y: number): ReplayTarget | null => {
    if (x < GUTTER_W) return null;
    const t = timeAtX({ view, width }, x);
    const px = (view.t1 - view.t0) / Math.max(1, width - GUTTER_W);
    if (y >= 0 && y < cpus * CPU_LANE_H) {
      const cpu = Math.floor(y / CPU_LANE_H);
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
      const cpu = renderCpuLanes(ctx, { data: data ? asWindowData(data) : null, scale, width, top: 0, cpus, taskNames, selection, dpr, labels: cpuLabels });
      cpuHit.current = cpu.hit;
      const ov = data ? renderReplayOverlay(ctx, { data, scale, width, top: 0, cpus, wakeKinds }) : null;
      const ev = renderEevdfLanes(ctx, { data: eevdf, lanes, scale, width, top: eevdfTop });
      eevdfHit.current = ev.hit;
      const ds = canvas.dataset;
      ds.cpuLanes = String(cpus);
      ds.spansDrawn = String(cpu.rects);
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
      ds.paintMs = (performance.now() - started).toFixed(2);
    }, canvas);
  }, [data, eevdf, view, width, height, cpus, taskNames, selection, cpuLabels, wakeKinds, lanes, eevdfTop]);

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
        {lanes.length > 0 && <span title="EEVDF lanes: vruntime (dot: green eligible, red not) to deadline (tick), relative to zero_vruntime">EEVDF lanes: v − zero_vruntime ● … d ▬</span>}
      </div>
      <TimeAxis t0={view.t0} t1={view.t1} width={width} />
      <div ref={box} style={{ position: 'relative', touchAction: 'none', cursor: 'crosshair' }}>
        <canvas ref={canvasRef} data-testid="replay-canvas" style={{ display: 'block', width: Math.max(width, 0), height }} />
        {cursorVisible && (
          <div style={{ position: 'absolute', top: 0, bottom: 0, left: Math.round(cursorX), width: 1, background: '#d32f2f', pointerEvents: 'none' }} />
        )}
      </div>
    </div>
  );
}

export const ReplayTimeline = memo(ReplayTimelineImpl);
