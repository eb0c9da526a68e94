// The replay view's area selection (Shift+drag over CPU lanes or thread tracks): the figures of
// the selected time range as the engine computes them (import::metrics): per task its CPU time,
// time in each thread state, wakeup latency percentiles, switches and migrations; per CPU its
// busy share, idle time (and idle while another CPU was overloaded) and runqueue depth. Copy or
// download as CSV (the engine's CSV of the same table); Escape or Clear drops the selection.
import { memo, useEffect } from 'react';
import type { TaskMetrics, WindowMetrics } from '../../engine/protocol';
import { formatNs } from '../../timeline/time_scale';
import type { Area } from '../../timeline/replay/area';
import { CsvButtons } from '../MetricsPanel';

interface Props {
  area: Area | null;
  result: { area: Area; metrics: WindowMetrics; csv: string } | null;
  error: string | null;
  file: string;
  onClear: () => void;
}

const pct = (a: number, b: number) => (b > 0 ? `${((100 * a) / b).toFixed(1)} %` : '–');
const lat = (v: number | null) => (v === null ? '–' : formatNs(v));

function TaskRow({ t, window }: { t: TaskMetrics; window: number }) {
  const s = t.states;
  return (
    <tr data-task={t.task}>
      <td>
        {t.comm} <span className="muted">{t.pid}</span>
      </td>
      <td>{formatNs(t.cpu_ns)}</td>
      <td data-key="cpu-share">{pct(t.cpu_ns, window)}</td>
      <td>{formatNs(s.runnable_ns)}</td>
      <td>{formatNs(s.preempted_ns)}</td>
      <td>{formatNs(s.sleeping_ns)}</td>
      <td>{formatNs(s.uninterruptible_ns)}</td>
      <td>{t.wakeup_latency.count}</td>
      <td>{lat(t.wakeup_latency.p50_ns)}</td>
      <td>{lat(t.wakeup_latency.p90_ns)}</td>
      <td>{lat(t.wakeup_latency.p99_ns)}</td>
      <td>{lat(t.wakeup_latency.max_ns)}</td>
      <td data-key="switches">{t.switches}</td>
      <td>{t.involuntary}</td>
      <td data-key="migrations">{t.migrations}</td>
    </tr>
  );
}

export const SelectionPanel = memo(function SelectionPanel({ area, result, error, file, onClear }: Props) {
  useEffect(() => {
    if (!area) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClear();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [area, onClear]);
  if (!area) {
    return (
      <p className="muted selection-hint" data-testid="selection-hint">
        Shift+drag over the CPU lanes or the thread tracks to select an area: its figures (time in each state, wakeup latency, switches, migrations, CPU shares) appear here, as CSV too.
      </p>
    );
  }
  const m = result?.metrics;
  const tasks = m ? [...m.tasks].sort((a, b) => b.cpu_ns - a.cpu_ns || a.pid - b.pid) : [];
  const where = area.tasks.length > 0 ? `${area.tasks.length} thread${area.tasks.length > 1 ? 's' : ''}` : area.cpus.length > 0 ? `CPU ${area.cpus.join(', ')}` : 'every CPU';
  return (
    <section className="selection" aria-label="selected area" data-testid="selection">
      <h3>
        Selection {formatNs(area.t0)} – {formatNs(area.t1)} ({formatNs(area.t1 - area.t0)}) · {where}{' '}
        {result && <CsvButtons csv={() => result.csv} name={`${file.replace(/[^\w.-]+/g, '-')}-selection.csv`} testid="selection-csv" />}
        <button onClick={onClear} title="Escape">
          Clear
        </button>
      </h3>
      {error && (
        <p className="error" role="alert">
          The figures could not be computed: {error}
        </p>
      )}
      {area.live && <p className="muted">… let go to compute</p>}
      {m && !area.live && (
        <>
          <table className="selection-tasks" data-testid="selection-tasks">
            <thead>
              <tr>
                <th scope="col">task</th>
                <th scope="col">CPU time</th>
                <th scope="col" title="CPU time over the selected time range">of window</th>
                <th scope="col" title="Runnable (R): woken or yielded, waiting for a CPU">R</th>
                <th scope="col" title="Runnable (Preempted): R+">R+</th>
                <th scope="col">S</th>
                <th scope="col">D</th>
                <th scope="col" title="wakeups whose wake record is in the range">wakeups</th>
                <th scope="col">p50</th>
                <th scope="col">p90</th>
                <th scope="col">p99</th>
                <th scope="col">max</th>
                <th scope="col" title="switch-ins">switches</th>
                <th scope="col" title="switched out still runnable (R or R+)">invol.</th>
                <th scope="col">migr.</th>
              </tr>
            </thead>
            <tbody>
              {tasks.map((t) => (
                <TaskRow key={t.task} t={t} window={m.window_ns} />
              ))}
            </tbody>
          </table>
          <table className="selection-cpus" data-testid="selection-cpus">
            <thead>
              <tr>
                <th scope="col">CPU</th>
                <th scope="col">busy</th>
                <th scope="col">idle</th>
                <th scope="col" title="idle while another CPU had more than one runnable task">idle·ovl</th>
                <th scope="col">mean runnable</th>
                <th scope="col">max</th>
              </tr>
            </thead>
            <tbody>
              {m.cpus.map((c) => (
                <tr key={c.cpu} data-cpu={c.cpu}>
                  <td>{c.cpu}</td>
                  <td data-key="busy">{pct(c.busy_ns, m.window_ns)}</td>
                  <td>{formatNs(c.idle_ns)}</td>
                  <td>{formatNs(c.idle_while_overloaded_ns)}</td>
                  <td>{(c.mean_depth_milli / 1000).toFixed(2)}</td>
                  <td>{c.max_depth}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
});
