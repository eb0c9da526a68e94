// The replay view's thread-state tracks, as Perfetto shows them: one track per thread, grouped
// by process, busiest first; a filter by name, pid or `cgroup:<path substring>` (the cgroup
// shows in each track's title and hover); pinned threads on top; processes that
// collapse; the selected thread's wakeups as arrows from waker to wakee, and a click on a
// Runnable stretch that began at a wakeup goes to the waker's track. Only the rows in the
// scrolled viewport are drawn (one sticky canvas) and asked of the
// engine (onVisible); the labels are buttons, so the tracks are reachable from the keyboard:
// Enter on a process collapses it, on a thread selects it, P pins or unpins it (the pin
// button beside each name does it with the mouse). The canvas
// reports what it drew in data attributes (data-thread-tracks, data-thread-segments,
// data-thread-states-*).
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { ThreadStateCode, ThreadStateCodeWords, type ImportedTrace, type ReplayWindowData, type ThreadStateData, type TraceTask } from '../../engine/protocol';
import { GUTTER_W } from '../layout';
import { cancelRedraw, scheduleRedraw } from '../raf_scheduler';
import { formatNs, makeTimeScale } from '../time_scale';
import { renderThreadTracks, THREAD_ROW_H, THREAD_STATE_COLOURS } from './render_threads';
import { processOf, trackRows, visibleTasks, type TrackRow } from './thread_tracks';
import { useWidth } from '../use_width';
import { AreaBand } from './ReplayTimeline';
import type { Area } from './area';

/** Height of the scrolled viewport at most, CSS px. */
const VIEWPORT_MAX = 420;

export interface ThreadTracksProps {
  trace: ImportedTrace;
  /** The task table to show (the trace's, or with a layout file's cgroups); default the trace's. */
  tasks?: readonly TraceTask[];
  /** The filter text and the pinned task ids (the replay controller's, so a link restores them). */
  filter: string;
  pinned: readonly number[];
  onFilter: (filter: string) => void;
  /** Pins or unpins a thread (the controller reads its latest pins: two quick pins both stay). */
  onTogglePin: (task: number) => void;
  data: ThreadStateData | null;
  /** The replay window (its wakeups: who woke whom). */
  wakes: ReplayWindowData | null;
  view: { t0: number; t1: number };
  selection: number | null;
  /** The task ids of the thread rows now visible (the engine is asked for their states). */
  onVisible: (tasks: number[]) => void;
  onSelect: (task: number | null) => void;
  /** The selected area (a band over the tracks it covers). */
  area?: Area | null;
  /** Shift+drag over the tracks: the time range and the tasks whose tracks it covers. */
  onArea?: (a: Area) => void;
}

interface Hover {
  x: number;
  y: number;
  text: string;
}

/** The wakeup of `task` at exactly `t` (the start of a Runnable segment after a sleep), if the
 * window holds it. */
export function wakeupAt(w: ReplayWindowData | null, task: number, t: number): number | null {
  if (!w) return null;
  for (let j = 0; j < w.wake_t.length; j++) if (w.wake_wakee[j] === task && w.wake_t[j] === t) return j;
  return null;
}

/** The segment of `task` under time t in `data`, if any. */
function segmentAt(data: ThreadStateData, task: number, t: number, tol: number): number | null {
  const row = data.tasks.indexOf(task);
  if (row < 0) return null;
  let best: number | null = null;
  let bestD = Infinity;
  for (let j = 0; j < data.row.length; j++) {
    if (data.row[j] !== row) continue;
    const d = t < data.start[j] ? data.start[j] - t : t > data.end[j] ? t - data.end[j] : 0;
    if (d <= tol && d < bestD) [best, bestD] = [j, d];
  }
  return best;
}

function ThreadTracksImpl(p: ThreadTracksProps) {
  const { trace, data, wakes, view, selection, onVisible, filter, pinned } = p;
  const tasks = p.tasks ?? trace.tasks;
  const root = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const width = useWidth(root);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(new Set());
  const [scrollTop, setScrollTop] = useState(0);
  const [hover, setHover] = useState<Hover | null>(null);
  /** A Shift+drag in progress: where it began (time, row index). */
  const areaStart = useRef<{ id: number; t: number; row: number } | null>(null);
  const rows = useMemo(() => trackRows(tasks, { filter, pinned, collapsed }), [tasks, filter, pinned, collapsed]);
  const threads = rows.filter((r) => r.kind === 'thread').length;
  const processes = useMemo(() => new Set(tasks.filter((t) => t.pid !== 0).map(processOf)).size, [tasks]);
  const total = rows.length * THREAD_ROW_H;
  const viewportH = Math.min(VIEWPORT_MAX, Math.max(total, THREAD_ROW_H));
  const first = Math.floor(scrollTop / THREAD_ROW_H);
  const last = Math.min(rows.length, Math.ceil((scrollTop + viewportH) / THREAD_ROW_H) + 1);
  const offset = scrollTop - first * THREAD_ROW_H;

  const visibleKey = visibleTasks(rows, first, last).join(',');
  // Reported again for each trace: opening one (or attaching a dump to it, which opens it
  // anew) forgets the rows asked for, and its rows can be the last trace's task ids.
  useEffect(() => {
    onVisible(visibleKey ? visibleKey.split(',').map(Number) : []);
  }, [visibleKey, onVisible, trace]);

  // A task selected elsewhere (a CPU lane) is scrolled into view.
  useEffect(() => {
    const el = scroller.current;
    if (selection === null || !el) return;
    const i = rows.findIndex((r) => r.kind === 'thread' && r.task === selection);
    if (i < 0) return;
    const y = i * THREAD_ROW_H;
    if (y < el.scrollTop || y + THREAD_ROW_H > el.scrollTop + viewportH) el.scrollTop = Math.max(0, y - viewportH / 2);
    // Only when the selection changes, not while the user scrolls.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [selection]);

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    scheduleRedraw(() => {
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(0, Math.round(width * dpr));
      const h = Math.max(0, Math.round(viewportH * dpr));
      if (canvas.width !== w) canvas.width = w;
      if (canvas.height !== h) canvas.height = h;
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, viewportH);
      const scale = makeTimeScale(view.t0, view.t1, GUTTER_W, width);
      const r = renderThreadTracks(ctx, { rows, first, last, offset, data, scale, width, height: viewportH, selection, wakes });
      const ds = canvas.dataset;
      ds.threadTracks = String(r.tracks);
      ds.threadSegments = String(r.segments);
      ds.threadWakeArrows = String(r.wakeArrows);
      ds.threadWakeStubs = String(r.wakeStubs);
      for (const [k, n] of Object.entries(r.byState)) ds[`threadStates${k[0].toUpperCase()}${k.slice(1)}`] = String(n);
    }, canvas);
  }, [rows, first, last, offset, data, view, width, viewportH, selection, wakes]);

  useEffect(() => {
    const canvas = canvasRef.current;
    return () => {
      if (canvas) cancelRedraw(canvas);
    };
  }, []);

  const rowAt = (y: number): TrackRow | null => rows[Math.floor((y + scrollTop) / THREAD_ROW_H)] ?? null;
  const at = (e: { clientX: number; clientY: number }) => {
    const r = canvasRef.current?.getBoundingClientRect();
    if (!r) return null;
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    if (x < GUTTER_W || width <= GUTTER_W) return null;
    const row = rowAt(y);
    if (!row || row.kind !== 'thread') return null;
    const px = (view.t1 - view.t0) / (width - GUTTER_W);
    return { x, y, row, t: view.t0 + (x - GUTTER_W) * px, px };
  };
  /** The segment under the pointer and, for a Runnable one that began at a wakeup, its waker. */
  const under = (e: { clientX: number; clientY: number }) => {
    const a = at(e);
    const j = a && data ? segmentAt(data, a.row.task, a.t, a.px) : null;
    if (!a || j === null || !data) return null;
    const w = data.state[j] === ThreadStateCode.runnable && data.count[j] === 1 ? wakeupAt(wakes, a.row.task, data.start[j]) : null;
    const waker = w !== null && wakes ? wakes.wake_waker[w] : null;
    return { a, j, w, waker: waker !== null && tasks[waker]?.pid !== 0 ? waker : null };
  };
  const onMove = (e: React.PointerEvent) => {
    const u = under(e);
    if (!u || !data) return setHover(null);
    const { a, j, w } = u;
    const words = ThreadStateCodeWords[data.state[j]] ?? '?';
    const cpu = data.cpu[j] !== 0xffffffff ? ` on CPU ${data.cpu[j]}` : '';
    const merged = data.count[j] > 1 ? ` (${data.count[j]} merged; the longest named)` : '';
    let by = '';
    if (w !== null && wakes) {
      const t = tasks[wakes.wake_waker[w]];
      by = u.waker !== null && t ? ` — woken by ${t.comm} ${t.pid} on CPU ${wakes.wake_cpu[w]} (click: go to its track)` : ` — woken on CPU ${wakes.wake_cpu[w]} from idle or an interrupt`;
    }
    const cg = tasks[a.row.task]?.cgroup;
    setHover({ x: a.x, y: a.y, text: `${a.row.label}${cg ? ` [${cg}]` : ''}: ${words}${cpu} for ${formatNs(data.end[j] - data.start[j])}, ${formatNs(data.start[j])}–${formatNs(data.end[j])}${merged}${by}` });
  };

  /** Time and row index under a pointer event (clamped to the plot and the rows). */
  const place = (e: { clientX: number; clientY: number }) => {
    const r = canvasRef.current?.getBoundingClientRect();
    if (!r || width <= GUTTER_W) return null;
    const x = Math.min(Math.max(e.clientX - r.left, GUTTER_W), width);
    const row = Math.min(rows.length - 1, Math.max(0, Math.floor((e.clientY - r.top + scrollTop) / THREAD_ROW_H)));
    return { t: view.t0 + ((x - GUTTER_W) / (width - GUTTER_W)) * (view.t1 - view.t0), row };
  };
  const areaOf = (a: { t: number; row: number }, b: { t: number; row: number }, live: boolean): Area => ({
    t0: a.t,
    t1: b.t,
    cpus: [],
    tasks: visibleTasks(rows, Math.min(a.row, b.row), Math.max(a.row, b.row) + 1),
    live,
  });
  const onDown = (e: React.PointerEvent) => {
    if (!e.shiftKey || !p.onArea || e.button !== 0) return;
    const at0 = place(e);
    if (!at0) return;
    areaStart.current = { id: e.pointerId, ...at0 };
    e.currentTarget.setPointerCapture?.(e.pointerId);
    e.preventDefault();
  };
  const onAreaMove = (e: React.PointerEvent, done: boolean) => {
    const a = areaStart.current;
    if (!a || a.id !== e.pointerId) return false;
    const b = place(e);
    if (b) p.onArea?.(areaOf(a, b, !done));
    if (done) areaStart.current = null;
    return true;
  };
  const band = useMemo(() => {
    if (!p.area || p.area.tasks.length === 0) return null;
    const idx = rows.flatMap((r, i) => (r.kind === 'thread' && p.area?.tasks.includes(r.task) ? [i] : []));
    return idx.length ? { top: Math.min(...idx) * THREAD_ROW_H, bottom: (Math.max(...idx) + 1) * THREAD_ROW_H } : null;
  }, [p.area, rows]);

  const togglePin = (task: number) => p.onTogglePin(task);
  const toggleCollapse = (proc: string) =>
    setCollapsed((cs) => {
      const next = new Set(cs);
      if (!next.delete(proc)) next.add(proc);
      return next;
    });
  const onLabelKey = (e: KeyboardEvent, r: TrackRow) => {
    if (r.kind === 'thread' && (e.key === 'p' || e.key === 'P')) {
      e.preventDefault();
      e.stopPropagation();
      togglePin(r.task);
    }
  };

  return (
    <section ref={root} className="thread-tracks" aria-label="thread states" data-testid="thread-tracks">
      <div className="thread-head">
        <b>Threads</b>
        <input
          type="search"
          value={filter}
          placeholder="filter: name, pid or cgroup:path"
          aria-label="filter threads by name, pid or cgroup (cgroup:path)"
          title="a name or pid; cgroup:/sl_A keeps the threads whose cgroup path holds /sl_A"
          data-testid="thread-filter"
          onChange={(e) => p.onFilter(e.target.value)}
        />
        <span className="muted" data-testid="thread-count">
          {threads} of {tasks.filter((t) => t.pid !== 0).length} threads · {processes} processes{pinned.length > 0 && ` · ${pinned.length} pinned`}
        </span>
        <span className="thread-legend" aria-label="thread state colours">
          {ThreadStateCodeWords.map((w, c) => (
            <span key={w}>
              <i style={{ background: THREAD_STATE_COLOURS[c] }} /> {w}
            </span>
          ))}
        </span>
      </div>
      <div
        ref={scroller}
        className="thread-scroll"
        style={{ height: viewportH }}
        onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
        onPointerDown={onDown}
        onPointerMove={(e) => {
          if (!onAreaMove(e, false)) onMove(e);
        }}
        onPointerUp={(e) => onAreaMove(e, true)}
        onPointerLeave={() => setHover(null)}
        onClick={(e) => {
          if (e.shiftKey) return;
          // A Runnable stretch after a wakeup leads to the waker's track (the flow from a
          // wakeup to its waker); anything else selects the track's task.
          const u = under(e);
          if (u?.waker != null) return p.onSelect(u.waker);
          const a = at(e);
          if (a) p.onSelect(a.row.task);
        }}
      >
        <div style={{ position: 'relative', height: Math.max(total, viewportH) }}>
          <canvas ref={canvasRef} data-testid="thread-canvas" style={{ position: 'sticky', top: 0, display: 'block', width: Math.max(width, 0), height: viewportH }} />
          {rows.slice(first, last).map((r, k) => {
            const top = (first + k) * THREAD_ROW_H;
            if (r.kind === 'process')
              return (
                <button
                  key={r.key}
                  className="thread-label process"
                  style={{ top, width: r.pinnedGroup ? GUTTER_W : undefined }}
                  aria-expanded={!r.collapsed}
                  disabled={r.pinnedGroup}
                  title={r.pinnedGroup ? 'pinned threads' : `process ${r.tgid}: ${r.threads} threads, ${formatNs(r.runningNs)} on a CPU — Enter to ${r.collapsed ? 'expand' : 'collapse'}`}
                  onClick={() => toggleCollapse(r.proc)}
                >
                  {r.pinnedGroup ? '📌 pinned' : `${r.collapsed ? '▸' : '▾'} ${r.label} (${r.threads})`}
                </button>
              );
            return (
              <div key={r.key} className={`thread-label${r.task === selection ? ' selected' : ''}`} style={{ top }}>
                <button
                  className="thread-name"
                  style={{ paddingLeft: 4 + r.depth * 10 }}
                  title={`${r.label}${tasks[r.task]?.cgroup ? ` in cgroup ${tasks[r.task].cgroup}` : ''}: ${formatNs(tasks[r.task]?.running_ns ?? 0)} on a CPU — Enter selects, P ${r.pinned ? 'unpins' : 'pins'}`}
                  data-cgroup={tasks[r.task]?.cgroup ?? undefined}
                  data-task={r.task}
                  onClick={(e) => {
                    e.stopPropagation();
                    p.onSelect(r.task === selection ? null : r.task);
                  }}
                  onKeyDown={(e) => onLabelKey(e, r)}
                >
                  {r.label}
                </button>
                <button
                  className={`thread-pin${r.pinned ? ' on' : ''}`}
                  aria-label={`${r.pinned ? 'unpin' : 'pin'} ${r.label}`}
                  aria-pressed={r.pinned}
                  title={r.pinned ? 'unpin' : 'pin to the top'}
                  tabIndex={-1}
                  onClick={(e) => {
                    e.stopPropagation();
                    togglePin(r.task);
                  }}
                >
                  📌
                </button>
              </div>
            );
          })}
          {p.area && band && <AreaBand area={p.area} view={view} width={width} top={band.top} bottom={band.bottom} />}
          {hover && (
            <div className="thread-hover" style={{ left: Math.min(hover.x + 12, Math.max(0, width - 340)), top: scrollTop + hover.y + 14 }} data-testid="thread-hover">
              {hover.text}
            </div>
          )}
        </div>
      </div>
    </section>
  );
}

export const ThreadTracks = memo(ThreadTracksImpl);
