// The replay view's controller: the imported trace's view window, cursor and selection, what is
// under the pointer, and the shadow re-simulation, in one store; its windows (spans, wakeups,
// migrations and EEVDF samples) through the window cache, the record under the pointer one
// lookup at a time. Nothing here waits for a React render.

import type { EevdfWindowData, ImportedTrace, ImportProgress, ReplayWindowData, SpanInfo, SpreadTable, ThreadStateData, TraceRecordView, TraceTask, WindowMetrics } from '../engine/protocol';
import type { EevdfSampleRef, HoveredDepth, HoveredSpan } from '../panels/import/RecordInspector';
import { LatestQuery } from '../state/latest_query';
import { createStore, type Store } from '../state/store';
import type { ShadowRun } from '../state/trace_import';
import type { ViewWindow } from '../state/types';
import { errorMessage } from '../base/errors';
import type { SpreadAsk } from '../base/share_replay';
import { EMPTY_WINDOW, WindowCache, type WindowCacheState } from '../state/window_cache';
import type { ReplayTarget } from '../timeline/replay/ReplayTimeline';
import type { Area } from '../timeline/replay/area';
import type { ShellCtx } from './shell_ctx';

/** Wakeups and migrations are sent for windows with at most this many of each. */
const MARKER_LIMIT = 20_000;
const EEVDF_LIMIT = 50_000;

export interface ReplayWindows {
  spans: ReplayWindowData;
  eevdf: EevdfWindowData | null;
}

export interface ReplayState {
  trace: ImportedTrace | null;
  view: ViewWindow;
  cursor: number;
  /** The selected task id (its spans outlined). */
  selection: number | null;
  window: WindowCacheState<ReplayWindows>;
  plotWidth: number;
  hovered: TraceRecordView | null;
  hoveredSpan: HoveredSpan | null;
  /** The runqueue-depth segment under the pointer. */
  hoveredDepth: HoveredDepth | null;
  sample: EevdfSampleRef | null;
  /** The span picked with a click. */
  span: SpanInfo | null;
  /** Why the last record or span lookup failed. */
  lookupError: string | null;
  runs: ShadowRun[];
  /** The last spread of the shadow over seeds or tick phases, and what was asked (a share
   * link carries the question) with the layout file's text it ran with. */
  spread: { table: SpreadTable; asked: SpreadAsk; layout: string } | null;
  shadowBusy: ImportProgress | null;
  shadowError: string | null;
  /** The thread tracks now visible (task ids) and their states in the view. */
  threadTasks: number[];
  threads: ThreadStateData | null;
  /** The area selected (Shift+drag), while dragged (`live`) and after. */
  area: Area | null;
  /** Its figures once asked for (the area as it was asked). */
  areaMetrics: { area: Area; metrics: WindowMetrics; csv: string } | null;
  areaError: string | null;
  /** The thread tracks' filter (name, pid or `cgroup:path`) and pinned task ids. */
  filter: string;
  pinned: number[];
  /** The layout file loaded in the shadow panel, and the task table with its cgroups (null: the trace's). */
  layout: { name: string; text: string } | null;
  layoutTasks: TraceTask[] | null;
  layoutError: string | null;
}

const INITIAL: ReplayState = {
  trace: null,
  view: { t0: 0, t1: 1 },
  cursor: 0,
  selection: null,
  window: EMPTY_WINDOW,
  plotWidth: 1200,
  hovered: null,
  hoveredSpan: null,
  hoveredDepth: null,
  sample: null,
  span: null,
  lookupError: null,
  runs: [],
  spread: null,
  shadowBusy: null,
  shadowError: null,
  threadTasks: [],
  threads: null,
  area: null,
  areaMetrics: null,
  areaError: null,
  filter: '',
  pinned: [],
  layout: null,
  layoutTasks: null,
  layoutError: null,
};

/** The span row `i` of a window, for the inspector. */
function spanAt(d: ReplayWindowData, i: number, trace: ImportedTrace): HoveredSpan {
  const t = trace.tasks[d.span_task[i]];
  return { cpu: d.span_cpu[i], comm: t?.comm ?? '?', pid: t?.pid ?? -1, start: d.span_start[i], end: d.span_end[i], state: d.span_state[i], count: d.span_count[i] };
}

export type Replay = ReturnType<typeof createReplay>;

export function createReplay({ client, hub }: ShellCtx) {
  const store: Store<ReplayState> = createStore(INITIAL, hub);
  const cache = new WindowCache<ReplayWindows>((window) => store.set({ window }));
  const records = new LatestQuery(
    (t: Extract<ReplayTarget, { kind: 'cpu' }>) => client.traces.record(t.cpu, t.t, t.tol),
    (hovered) => store.set({ hovered, lookupError: null }),
    (lookupError) => store.set({ hovered: null, lookupError }),
  );
  const duration = (trace: ImportedTrace) => Math.max(1, trace.report.timeline.duration_ns);
  const bucketOf = (view: ViewWindow, plotWidth: number) => Math.max(1, (view.t1 - view.t0) / Math.max(100, plotWidth));
  const threadQuery = new LatestQuery(
    (a: { tasks: number[]; view: ViewWindow; bucket: number }) => client.traces.threadStates(a.tasks, a.view.t0, a.view.t1, a.bucket),
    (threads) => store.set({ threads }),
    (lookupError) => store.set({ lookupError }),
  );
  let threadKey = '';
  const areaQuery = new LatestQuery(
    (a: Area) => client.traces.windowMetrics(a.t0, a.t1, a.cpus, a.tasks),
    (r, area) => store.set({ areaMetrics: { area, ...r }, areaError: null }),
    (areaError) => store.set({ areaError, areaMetrics: null }),
  );
  const refreshThreads = () => {
    const { trace, view, plotWidth, threadTasks } = store.get();
    if (!trace || threadTasks.length === 0) return;
    const bucket = bucketOf(view, plotWidth);
    const key = `${view.t0}:${view.t1}:${bucket}:${threadTasks.join(',')}`;
    if (key === threadKey) return;
    threadKey = key;
    threadQuery.request({ tasks: threadTasks, view, bucket });
  };

  const refresh = () => {
    const { trace, view, plotWidth } = store.get();
    if (!trace) return;
    const bucket = bucketOf(view, plotWidth);
    refreshThreads();
    const dump = trace.report.eevdf.samples > 0;
    cache.want({ key: 'trace', view, bucket, end: duration(trace) + 1 }, async (r) => {
      const [spans, eevdf] = await Promise.all([client.traces.window(r.t0, r.t1, r.bucket, MARKER_LIMIT), dump ? client.traces.eevdf(r.t0, r.t1, EEVDF_LIMIT) : null]);
      return { spans, eevdf };
    });
  };
  /** A layout file loaded (or none): the task table is asked again with its cgroups. Resolves
   * when the tasks are in (a layout that does not parse is shown, not thrown). */
  const applyLayout = async (layout: { name: string; text: string } | null): Promise<void> => {
    store.set({ layout, layoutError: null, ...(layout ? {} : { layoutTasks: null }) });
    if (!layout || !store.get().trace) return;
    try {
      const tasks = await client.traces.layoutTasks(layout.text);
      if (store.get().layout === layout) store.set({ layoutTasks: tasks });
    } catch (e) {
      if (store.get().layout === layout) store.set({ layoutTasks: null, layoutError: `${layout.name}: ${errorMessage(e)}` });
    }
  };
  return {
    store,
    /** Starts fetching windows as the view moves; returns what stops it. */
    start: () => store.subscribe(refresh),
    /** A new trace (or a dump attached to it): the view starts over; shadow runs of another file go. */
    open: (trace: ImportedTrace) => {
      const prev = store.get().trace;
      const sameFile = prev !== null && prev.file === trace.file && prev.size === trace.size;
      cache.reset();
      records.drop();
      threadQuery.drop();
      areaQuery.drop();
      threadKey = '';
      const keep = store.get();
      // The same file again (a dump attached to it): its runs, layout and tracks' filter stay.
      store.set({
        ...INITIAL,
        trace,
        view: { t0: 0, t1: duration(trace) },
        plotWidth: keep.plotWidth,
        ...(sameFile ? { runs: keep.runs, spread: keep.spread, layout: keep.layout, layoutTasks: keep.layoutTasks, filter: keep.filter, pinned: keep.pinned } : {}),
      });
    },
    close: () => {
      cache.reset();
      records.drop();
      threadQuery.drop();
      areaQuery.drop();
      threadKey = '';
      store.set({ ...INITIAL, plotWidth: store.get().plotWidth });
    },
    setView: (t0: number, t1: number) => store.set({ view: { t0, t1 } }),
    /** The thread filter (a controlled input: published at once). */
    setFilter: (filter: string) => store.set({ filter }, { now: true }),
    setPinned: (pinned: number[]) => store.set({ pinned }, { now: true }),
    /** Pins or unpins one thread against the store's latest pins (two quick pins both stay). */
    togglePin: (task: number) => {
      const cur = store.get().pinned;
      store.set({ pinned: cur.includes(task) ? cur.filter((x) => x !== task) : [...cur, task] }, { now: true });
    },
    /** A layout file loaded in the shadow panel (or none). */
    /** setLayout's end awaited (the share link's restore). */
    applyLayout,
    setLayout: (layout: { name: string; text: string } | null) => {
      void applyLayout(layout);
    },
    setCursor: (cursor: number) => store.set({ cursor }),
    /** The thread tracks scrolled into view (their states are fetched for the view). */
    setThreadTasks: (threadTasks: number[]) => store.set({ threadTasks }),
    /** The area being dragged (live) or let go: its figures are asked for when it is let go. */
    selectArea: (area: Area) => {
      const t0 = Math.max(0, Math.min(area.t0, area.t1));
      const t1 = Math.max(area.t0, area.t1);
      const a = { ...area, t0, t1 };
      store.set({ area: a });
      if (!a.live && t1 > t0) areaQuery.request(a);
    },
    clearArea: () => {
      areaQuery.drop();
      store.set({ area: null, areaMetrics: null, areaError: null });
    },
    /** A task picked on its thread track (or none). */
    select: (selection: number | null) => store.set({ selection, span: null }),
    setWidth: (plotWidth: number) => store.set({ plotWidth }),
    /** What is under the pointer: an EEVDF sample, or a CPU's span and its nearest record. */
    hover: (t: ReplayTarget | null) => {
      // Rows of the window as rendered (the target was found in it).
      const { trace, window } = store.published();
      if (!t || !trace) return;
      if (t.kind === 'eevdf') {
        const eevdf = window.data?.eevdf;
        if (!eevdf) return;
        const pid = eevdf.pid[t.row];
        const comm = trace.report.eevdf.tasks.find((x) => x.pid === pid)?.comm ?? '';
        return store.set({ sample: { data: eevdf, row: t.row, comm, origin: trace.report.timeline.origin_ns }, hoveredDepth: null });
      }
      if (t.kind === 'depth') {
        const d = window.data?.spans;
        const i = t.row;
        const seg = d && i !== null ? { cpu: t.cpu, n: d.depth_n[i], start: d.depth_start[i], end: d.depth_end[i], count: d.depth_count[i] } : { cpu: t.cpu, n: 0, start: t.t, end: t.t, count: 0 };
        return store.set({ sample: null, hoveredSpan: null, hoveredDepth: seg });
      }
      const spans = window.data?.spans;
      store.set({ sample: null, hoveredDepth: null, hoveredSpan: t.span !== null && spans ? spanAt(spans, t.span, trace) : null });
      records.request(t);
    },
    /** A click: the task of the span under the pointer is selected, and a single span described. */
    pick: (t: ReplayTarget | null) => {
      const spans = store.published().window.data?.spans;
      if (!t || t.kind !== 'cpu' || t.span === null || !spans) return store.set({ selection: null, span: null });
      store.set({ selection: spans.span_task[t.span], span: null });
      if (spans.span_count[t.span] !== 1) return;
      const index = spans.span_index[t.span];
      client.traces.span(index).then(
        (span) => store.set({ span, lookupError: null }),
        (e: unknown) => store.set({ lookupError: errorMessage(e) }),
      );
    },
    /** The shadow re-simulation under one variant; its report joins the table. */
    runShadow: (key: string, layout: string, pin: string, variants: [string, string][]) => {
      const trace = store.get().trace;
      if (!trace) return;
      store.set({ shadowError: null, shadowBusy: { phase: 'reading', bytes: 0, total: trace.size, lines: 0, records: 0 } });
      client.traces.shadow(layout, pin, variants, (shadowBusy) => store.set({ shadowBusy })).then(
        (report) => store.set((s) => ({ shadowBusy: null, runs: report ? [...s.runs.filter((r) => r.key !== key), { key, report }] : s.runs })),
        (e: unknown) => store.set({ shadowBusy: null, shadowError: errorMessage(e) }),
      );
    },
    /** The shadow run `n` times, differing in the seed or in where its ticks fall. Resolves
     * when the table is in, or the spread was cancelled or failed (the failure is shown). */
    runSpread: (layout: string, pin: string, variants: [string, string][], kind: SpreadAsk['kind'], n: number): Promise<void> => {
      const trace = store.get().trace;
      if (!trace) return Promise.resolve();
      store.set({ shadowError: null, shadowBusy: { phase: 'reading', bytes: 0, total: trace.size, lines: 0, records: 0 } });
      const asked: SpreadAsk = { kind, n, pin, variants };
      return client.traces.shadowSpread(layout, pin, variants, kind, n, (shadowBusy) => store.set({ shadowBusy })).then(
        (table) => store.set((s) => ({ shadowBusy: null, spread: table ? { table, asked, layout } : s.spread })),
        (e: unknown) => store.set({ shadowBusy: null, shadowError: errorMessage(e) }),
      );
    },
  };
}
