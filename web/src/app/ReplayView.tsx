// The replay of an imported trace: its own timeline (per-CPU runs with the state each ended
// in, each CPU's runqueue depth under its lane, wakeup links, migrations, and real EEVDF lanes
// when a dump is present), each thread's state track grouped by process, the per-CPU runqueue figures, the record under
// the pointer, the import diagnostics, the A/B comparison with a second capture (panels/ab/), and
// the shadow re-simulation. Its state and queries are
// the replay controller's (replay.ts); this renders its store.

import type { Alignment } from '../engine/protocol';
import { formatBytes } from '../state/trace_import';
import { useStore } from '../state/store';
import { ReplayTimeline } from '../timeline/replay/ReplayTimeline';
import { ThreadTracks } from '../timeline/replay/ThreadTracks';
import { formatNs } from '../timeline/time_scale';
import { DiagnosticsPanel } from '../panels/import/DiagnosticsPanel';
import { RecordInspector } from '../panels/import/RecordInspector';
import { ShadowPanel } from '../panels/import/ShadowPanel';
import { SelectionPanel } from '../panels/import/SelectionPanel';
import { ImportProgressBar } from '../panels/import/ImportProgressBar';
import { ErrorBoundary } from './ErrorBoundary';
import type { Replay } from './replay';
import type { Ab } from './ab';
import { AbOpen, AbPanel, AbTimeline } from './AbPanel';
import './replay.css';

interface Props {
  replay: Replay;
  /** The A/B comparison (a second capture beside this one). */
  ab?: Ab;
  alignment: Alignment | null;
  onClose: () => void;
  onCancel: () => void;
}

export function ReplayView({ replay, ab, alignment, onClose, onCancel }: Props) {
  const st = useStore(replay.store, (s) => s);
  const trace = st.trace;
  if (!trace) return null;
  const s = trace.report.summary;
  const error = st.window.error ?? st.lookupError;
  return (
    <div className="main replay" data-testid="replay-view" data-export-root>
      <div className="center">
        <div className="replay-head">
          <b data-testid="replay-file">{trace.file}</b>
          <span className="muted">
            {s.format_name} · {formatBytes(trace.size)} · {formatNs(trace.report.timeline.duration_ns)} · {trace.report.timeline.cpus} CPUs · {s.total_events.toLocaleString('en-US')} events
            {trace.eevdfFile && ` · EEVDF dump ${trace.eevdfFile}`}
            {trace.cpuAvgFile && ` · CPU averages ${trace.cpuAvgFile}`}
            {trace.balanceFile && ` · balance passes ${trace.balanceFile}`}
          </span>
          <span className="replay-window muted">
            window {formatNs(st.view.t0)} – {formatNs(st.view.t1)}
          </span>
          {ab && <AbOpen ab={ab} />}
          <button onClick={onClose} data-testid="replay-close" title="Close the trace and go back to the scenarios">
            Close trace
          </button>
        </div>
        {error && (
          <div className="error" role="alert" data-testid="replay-query-error">
            The trace could not be read here: {error}
          </div>
        )}
        <div className="timeline-wrap">
          <ErrorBoundary name="replay timeline">
            <ReplayTimeline
              trace={trace}
              data={st.window.data?.spans ?? null}
              eevdf={st.window.data?.eevdf ?? null}
              view={st.view}
              cursor={st.cursor}
              selection={st.selection}
              onView={replay.setView}
              onCursor={replay.setCursor}
              onHover={replay.hover}
              onPick={replay.pick}
              onWidth={replay.setWidth}
              area={st.area}
              onArea={replay.selectArea}
            />
          </ErrorBoundary>
          {ab && (
            <ErrorBoundary name="trace B timeline">
              <AbTimeline ab={ab} replay={replay} />
            </ErrorBoundary>
          )}
          <ErrorBoundary name="thread tracks">
            <ThreadTracks
              trace={trace}
              tasks={st.layoutTasks ?? undefined}
              filter={st.filter}
              pinned={st.pinned}
              onFilter={replay.setFilter}
              onTogglePin={replay.togglePin}
              data={st.threads} wakes={st.window.data?.spans ?? null} view={st.view} selection={st.selection} onVisible={replay.setThreadTasks} onSelect={replay.select} area={st.area} onArea={replay.selectArea} />
          </ErrorBoundary>
        </div>
        <ErrorBoundary name="selection">
          <SelectionPanel area={st.area} result={st.areaMetrics} error={st.areaError} file={trace.file} onClear={replay.clearArea} />
        </ErrorBoundary>
        {s.runqueues.length > 0 && (
          <div className="runqueues">
            <table className="runqueue-table" data-testid="runqueue-table" aria-label="runqueues per CPU" aria-describedby="runqueue-note">
              <thead>
                <tr>
                  <th scope="col">CPU</th>
                  <th scope="col">max runnable</th>
                  <th scope="col">mean runnable</th>
                  <th scope="col">idle</th>
                  <th scope="col" title="time this CPU was idle while another CPU had more than one runnable task">
                    idle·ovl
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.runqueues.map((r) => (
                  <tr key={r.cpu} data-cpu={r.cpu}>
                    <td>{r.cpu}</td>
                    <td>{r.max_depth}</td>
                    <td>{(r.mean_depth_milli / 1000).toFixed(2)}</td>
                    <td>{formatNs(r.idle_ns)}</td>
                    <td data-key="idle-overloaded">{formatNs(r.idle_while_overloaded_ns)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="muted" id="runqueue-note">
              Runnable tasks per CPU (the running one included), counted from the trace&apos;s wakeups, sleeps and migrations; drawn under each CPU lane. <b>idle·ovl</b>: time the CPU was idle while another CPU
              had more than one runnable task (work it could have taken). Idle counts from a CPU&apos;s first sched_switch.
            </p>
          </div>
        )}
        {ab && (
          <ErrorBoundary name="A/B diff">
            <AbPanel ab={ab} a={trace} />
          </ErrorBoundary>
        )}
        {st.shadowBusy && (
          <ImportProgressBar file={st.shadowBusy.phase === 'simulating' ? `shadow runs of ${trace.file}` : `re-reading ${trace.file}`} progress={st.shadowBusy} onCancel={onCancel} />
        )}
        <ErrorBoundary name="shadow re-simulation">
          {st.layoutError && (
            <div className="error" role="alert" data-testid="layout-error">
              The layout file could not be read: {st.layoutError}
            </div>
          )}
          <ShadowPanel
            layoutFile={st.layout}
            onLayout={replay.setLayout}
            runs={st.runs} running={st.shadowBusy !== null} error={st.shadowError} onRun={replay.runShadow} onCompare={ab?.openShadow}
            onSpread={(layout, pin, variants, kind, n) => void replay.runSpread(layout, pin, variants, kind, n)} spread={st.spread?.table ?? null} spreadAsked={st.spread?.asked ?? null} />
        </ErrorBoundary>
      </div>
      <aside className="inspector replay-side" aria-label="trace inspector">
        <RecordInspector hovered={st.hovered} hoveredSpan={st.hoveredSpan} hoveredDepth={st.hoveredDepth} sample={st.sample} span={st.span} />
        <ErrorBoundary name="diagnostics">
          <DiagnosticsPanel trace={trace} alignment={alignment} />
        </ErrorBoundary>
      </aside>
    </div>
  );
}
