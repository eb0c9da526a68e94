// The replay of an imported trace: its own timeline (per-CPU runs with the state each ended
// in, wakeup links, migrations, and real EEVDF lanes when a dump is present), the record under
// the pointer, the import diagnostics, and the shadow re-simulation. Fetches windows of columns
// from the worker as the view moves, as the scenario timeline does.

import { useCallback, useEffect, useRef, useState } from 'react';
import type { EngineClient } from '../engine/client';
import type { Alignment, EevdfWindowData, ImportedTrace, ImportProgress, ReplayWindowData, SpanInfo, TraceRecordView } from '../engine/protocol';
import { formatBytes, type ShadowRun } from '../state/trace_import';
import { fetchCovers, fetchRange, type Fetched } from '../state/window_cache';
import { ReplayTimeline, type ReplayTarget } from '../timeline/replay/ReplayTimeline';
import { formatNs } from '../timeline/time_scale';
import { DiagnosticsPanel } from '../panels/import/DiagnosticsPanel';
import { RecordInspector, type EevdfSampleRef, type HoveredSpan } from '../panels/import/RecordInspector';
import { ShadowPanel } from '../panels/import/ShadowPanel';
import { ImportProgressBar } from '../panels/import/ImportProgressBar';
import { ErrorBoundary } from './ErrorBoundary';
import './replay.css';

/** Wakeups and migrations are sent for windows with at most this many of each. */
const MARKER_LIMIT = 20_000;
const EEVDF_LIMIT = 50_000;

/** The span row `i` of a window, for the inspector. */
function spanAt(d: ReplayWindowData, i: number, trace: ImportedTrace): HoveredSpan {
  const t = trace.tasks[d.span_task[i]];
  return { cpu: d.span_cpu[i], comm: t?.comm ?? '?', pid: t?.pid ?? -1, start: d.span_start[i], end: d.span_end[i], state: d.span_state[i], count: d.span_count[i] };
}

interface Props {
  client: EngineClient;
  trace: ImportedTrace;
  alignment: Alignment | null;
  onClose: () => void;
}

export function ReplayView({ client, trace, alignment, onClose }: Props) {
  const duration = Math.max(1, trace.report.timeline.duration_ns);
  const origin = trace.report.timeline.origin_ns;
  const [view, setView] = useState({ t0: 0, t1: duration });
  const [cursor, setCursor] = useState(0);
  const [data, setData] = useState<ReplayWindowData | null>(null);
  const [eevdf, setEevdf] = useState<EevdfWindowData | null>(null);
  const [selection, setSelection] = useState<number | null>(null);
  const [hovered, setHovered] = useState<TraceRecordView | null>(null);
  const [hoveredSpan, setHoveredSpan] = useState<HoveredSpan | null>(null);
  const [sample, setSample] = useState<EevdfSampleRef | null>(null);
  const [span, setSpan] = useState<SpanInfo | null>(null);
  const [runs, setRuns] = useState<ShadowRun[]>([]);
  const [shadowBusy, setShadowBusy] = useState<ImportProgress | null>(null);
  const [shadowError, setShadowError] = useState<string | null>(null);
  const [plotWidth, setPlotWidth] = useState(1200);
  const fetched = useRef<Fetched | null>(null);

  // A new trace (or a dump attached to it): start over.
  useEffect(() => {
    setView({ t0: 0, t1: duration });
    setCursor(0);
    setSelection(null);
    setSpan(null);
    setHovered(null);
    setSample(null);
    fetched.current = null;
    setData(null);
    setEevdf(null);
  }, [trace, duration]);
  useEffect(() => setRuns([]), [trace.file, trace.size]);

  useEffect(() => {
    const bucket = Math.max(1, (view.t1 - view.t0) / Math.max(100, plotWidth));
    if (fetchCovers(fetched.current, { key: '', view, bucket })) return;
    const r = fetchRange(view, duration + 1);
    let stale = false;
    Promise.all([
      client.traces.window(r.t0, r.t1, bucket, MARKER_LIMIT),
      trace.report.eevdf.samples > 0 ? client.traces.eevdf(r.t0, r.t1, EEVDF_LIMIT) : Promise.resolve(null),
    ]).then(([d, e]) => {
      if (stale) return;
      fetched.current = { ...r, bucket, key: '' };
      setData(d);
      setEevdf(e);
    });
    return () => {
      stale = true;
    };
  }, [client, trace, view, plotWidth, duration]);

  // The record under the pointer: one request in flight at a time, the latest target next.
  const hoverState = useRef<{ busy: boolean; next: ReplayTarget | null }>({ busy: false, next: null });
  const lookUp = useCallback(
    (t: ReplayTarget) => {
      if (t.kind !== 'cpu') return;
      const h = hoverState.current;
      if (h.busy) {
        h.next = t;
        return;
      }
      h.busy = true;
      client.traces
        .record(t.cpu, t.t, t.tol)
        .then(setHovered, () => setHovered(null))
        .finally(() => {
          h.busy = false;
          const n = h.next;
          h.next = null;
          if (n && n.kind === 'cpu') lookUp(n);
        });
    },
    [client],
  );
  const onHover = useCallback(
    (t: ReplayTarget | null) => {
      if (!t) return;
      if (t.kind === 'eevdf') {
        if (eevdf) {
          const pid = eevdf.pid[t.row];
          const comm = trace.report.eevdf.tasks.find((x) => x.pid === pid)?.comm ?? '';
          setSample({ data: eevdf, row: t.row, comm, origin });
        }
        return;
      }
      setSample(null);
      setHoveredSpan(t.span !== null && data ? spanAt(data, t.span, trace) : null);
      lookUp(t);
    },
    [eevdf, trace, origin, lookUp, data],
  );
  const onPick = useCallback(
    (t: ReplayTarget | null) => {
      if (!t || t.kind !== 'cpu' || t.span === null || !data) {
        setSelection(null);
        setSpan(null);
        return;
      }
      setSelection(data.span_task[t.span]);
      if (data.span_count[t.span] === 1) client.traces.span(data.span_index[t.span]).then(setSpan);
      else setSpan(null);
    },
    [client, data],
  );
  const onView = useCallback((t0: number, t1: number) => setView({ t0, t1 }), []);

  const runShadow = useCallback(
    async (key: string, layout: string, variants: [string, string][]) => {
      setShadowError(null);
      setShadowBusy({ phase: 'reading', bytes: 0, total: trace.size, lines: 0, records: 0 });
      try {
        const report = await client.traces.shadow(layout, variants, setShadowBusy);
        if (report) setRuns((rs) => [...rs.filter((r) => r.key !== key), { key, report }]);
      } catch (e) {
        setShadowError(e instanceof Error ? e.message : String(e));
      } finally {
        setShadowBusy(null);
      }
    },
    [client, trace.size],
  );

  const s = trace.report.summary;
  return (
    <div className="main replay" data-testid="replay-view">
      <div className="center">
        <div className="replay-head">
          <b data-testid="replay-file">{trace.file}</b>
          <span className="muted">
            {s.format_name} · {formatBytes(trace.size)} · {formatNs(trace.report.timeline.duration_ns)} · {trace.report.timeline.cpus} CPUs · {s.total_events.toLocaleString('en-US')} events
            {trace.eevdfFile && ` · EEVDF dump ${trace.eevdfFile}`}
          </span>
          <span className="replay-window muted">
            window {formatNs(view.t0)} – {formatNs(view.t1)}
          </span>
          <button onClick={onClose} data-testid="replay-close" title="Close the trace and go back to the scenarios">
            Close trace
          </button>
        </div>
        <div className="timeline-wrap">
          <ErrorBoundary name="replay timeline">
            <ReplayTimeline
              trace={trace}
              data={data}
              eevdf={eevdf}
              view={view}
              cursor={cursor}
              selection={selection}
              onView={onView}
              onCursor={setCursor}
              onHover={onHover}
              onPick={onPick}
              onWidth={setPlotWidth}
            />
          </ErrorBoundary>
        </div>
        {shadowBusy && <ImportProgressBar file={`re-reading ${trace.file}`} progress={shadowBusy} onCancel={() => client.cancel()} />}
        <ErrorBoundary name="shadow re-simulation">
          <ShadowPanel runs={runs} running={shadowBusy !== null} error={shadowError} onRun={runShadow} />
        </ErrorBoundary>
      </div>
      <aside className="inspector replay-side" aria-label="trace inspector">
        <RecordInspector hovered={hovered} hoveredSpan={hoveredSpan} sample={sample} span={span} />
        <ErrorBoundary name="diagnostics">
          <DiagnosticsPanel trace={trace} alignment={alignment} />
        </ErrorBoundary>
      </aside>
    </div>
  );
}
