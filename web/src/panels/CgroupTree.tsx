// The cgroup tree: root → task groups (path, shares, quota/period) with their tasks and, at the
// cursor for the focused variant, each group entity's state on every CPU where it has been
// queued (vruntime, deadline, lag against its parent queue's V, eligibility), whether the
// group's cfs_rq there is throttled, its runtime_remaining and the group's pool. The state is
// read from a window around the cursor, fetched by the shell: the group nodes' latest samples
// at or before the cursor and the counters (each series starts with its last value before the
// window).
import { memo, type ReactNode } from 'react';
import { CounterKind, Flag, type GroupMeta, type ScenarioMeta, type WindowData } from '../engine/protocol';
import { counterSeries, throttleData, throttledAt, type ThrottleData } from '../timeline/bandwidth';
import { taskColor } from '../timeline/palette';
import { formatNs } from '../timeline/time_scale';

interface Props {
  meta: ScenarioMeta;
  /** The focused variant's window from LOOKBACK_NS before the cursor (null until it comes). */
  data: WindowData | null;
  /** Why the window could not be read. */
  error: string | null;
  cursor: number;
  collapsed: ReadonlySet<number>;
  onToggleGroup: (tg: number) => void;
}

/** How far before the cursor the panel's window starts (throttle markers live in it). */
export const LOOKBACK_NS = 20_000_000;

/** The value of a step series at t (its last point at or before t), or null. */
function valueAt(s: { t: number[]; v: number[] }, t: number): number | null {
  let out: number | null = null;
  for (let i = 0; i < s.t.length && s.t[i] <= t; i++) out = s.v[i];
  return out;
}

interface EntityRow {
  cpu: number;
  queued: boolean;
  curr: boolean;
  vruntime: number;
  deadline: number;
  lag: number;
  eligible: boolean;
  t: number;
}

/** The group entity's latest sample at or before t on each CPU it has samples for. */
function entityRows(data: WindowData, node: number, t: number): EntityRow[] {
  const s = data.samples;
  const latest = new Map<number, number>();
  for (let i = 0; i < s.t.length; i++) {
    if (s.task[i] !== node || s.t[i] > t) continue;
    const prev = latest.get(s.cpu[i]);
    if (prev === undefined || s.t[i] >= s.t[prev]) latest.set(s.cpu[i], i);
  }
  return [...latest.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([cpu, i]) => ({
      cpu,
      queued: (s.flags[i] & Flag.onRq) !== 0,
      curr: (s.flags[i] & Flag.curr) !== 0,
      vruntime: s.vruntime[i],
      deadline: s.deadline[i],
      lag: s.avg[i] - s.vruntime[i],
      eligible: (s.flags[i] & Flag.eligible) !== 0,
      t: s.t[i],
    }));
}

function GroupState({ g, data, throttle, cursor }: { g: GroupMeta; data: WindowData; throttle: ThrottleData; cursor: number }) {
  const rows = entityRows(data, g.node, cursor);
  const limited = g.quota_ns !== null;
  const cpus = new Set(rows.map((r) => r.cpu));
  if (limited) g.cfs_rq.forEach((q, cpu) => counterSeries(data, CounterKind.runtimeRemaining, q).t.length > 0 && cpus.add(cpu));
  if (cpus.size === 0) return <p className="muted">Not queued on any CPU yet.</p>;
  return (
    <table className="rq-table cg-state">
      <thead>
        <tr>
          <th>cpu</th>
          <th>state</th>
          <th>vruntime</th>
          <th>deadline − V</th>
          <th>lag</th>
          {limited && <th>runtime left</th>}
        </tr>
      </thead>
      <tbody>
        {[...cpus].sort((a, b) => a - b).map((cpu) => {
          const r = rows.find((x) => x.cpu === cpu);
          const throttled = limited && throttledAt(throttle, g.tg, cpu, cursor);
          const runtime = limited ? valueAt(counterSeries(data, CounterKind.runtimeRemaining, g.cfs_rq[cpu]), cursor) : null;
          const state = !r || !r.queued ? 'not queued' : `${r.curr ? 'running, ' : ''}${r.eligible ? 'eligible' : 'ineligible'}`;
          return (
            <tr key={cpu} className={r?.queued ? (r.eligible ? 'eligible' : 'ineligible') : ''} data-testid="cgroup-cpu">
              <td>{cpu}</td>
              <td>
                {state}
                {throttled && <strong className="throttled"> throttled</strong>}
              </td>
              <td>{r?.queued ? r.vruntime.toLocaleString('en-US') : '—'}</td>
              <td>{r?.queued ? formatNs(r.deadline - (r.vruntime + r.lag)) : '—'}</td>
              <td>{r?.queued ? (r.lag >= 0 ? '+' : '') + formatNs(r.lag) : '—'}</td>
              {limited && <td>{runtime === null ? '—' : formatNs(runtime)}</td>}
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export const CgroupTree = memo(function CgroupTree({ meta, data, error, cursor, collapsed, onToggleGroup }: Props) {
  const groups = meta.groups ?? [];
  const throttle = throttleData(meta, data);

  const shares = (tg: number) => meta.cgroups[tg - 1]?.shares;
  const tasksOf = (tg: number) =>
    meta.tasks.map((t, id) => ({ t, id })).filter(({ t }) => (t.tg ?? 0) === tg).map(({ t, id }) => (
      <li key={`t${id}`} className="cg-task">
        <span className="swatch" style={{ background: taskColor(id) }} /> {t.name} <span className="muted">nice {t.nice}</span>
      </li>
    ));
  const node = (g: GroupMeta): ReactNode => {
    const shut = collapsed.has(g.tg);
    return (
      <li key={`g${g.tg}`} data-testid="cgroup" data-path={g.path}>
        <div className="cg-head">
          <button className="cg-toggle" aria-expanded={!shut} title="Show or hide its lanes in the timeline" onClick={() => onToggleGroup(g.tg)}>
            {shut ? '▸' : '▾'}
          </button>
          <strong>{g.path}</strong> <span className="muted">shares {shares(g.tg) ?? '?'}</span>
          {g.quota_ns !== null && (
            <span className="cg-quota" data-testid="cgroup-quota">
              {' '}
              quota {formatNs(g.quota_ns)} / {formatNs(g.period_ns ?? 0)}
              {data && <> · pool {formatNs(valueAt(counterSeries(data, CounterKind.poolRuntime, g.tg), cursor) ?? g.quota_ns)}</>}
            </span>
          )}
        </div>
        {data && <GroupState g={g} data={data} throttle={throttle} cursor={cursor} />}
        <ul>
          {tasksOf(g.tg)}
          {groups.filter((c) => c.parent === g.tg).map(node)}
        </ul>
      </li>
    );
  };

  return (
    <aside className="inspector cgroups" aria-label="cgroups" data-testid="cgroup-tree">
      <h2>cgroups at {formatNs(cursor)}</h2>
      {error && (
        <p className="error" role="alert" data-testid="cgroup-error">
          The state at the cursor could not be read: {error}
        </p>
      )}
      {groups.length <= 1 ? (
        <p className="muted">This scenario has no cgroups: every task is in the root group.</p>
      ) : (
        <ul className="cg-tree">
          <li data-testid="cgroup" data-path="/">
            <div className="cg-head">
              <strong>/</strong> <span className="muted">root</span>
            </div>
            <ul>
              {tasksOf(0)}
              {groups.filter((g) => g.parent === 0).map(node)}
            </ul>
          </li>
        </ul>
      )}
      <p className="muted small">
        Group entities are shown against their parent queue&apos;s V. Weights are the configured shares; the engine does not report the
        effective group weight (calc_group_shares) per CPU.
        {throttle.source === 'counters' && ' Throttling is read off runtime_remaining (≤ 0 until refilled).'}
      </p>
    </aside>
  );
});
