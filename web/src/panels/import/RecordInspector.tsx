// The replay view's inspector: the record under the pointer (time, event, CPU, source line,
// current task and every field as the trace had it), the span picked with a click (task, times,
// the state it left the CPU in, and the sched_switch records that began and ended it), and an
// EEVDF sample under the pointer.
import { memo } from 'react';
import type { EevdfWindowData, SpanInfo, TraceRecordView } from '../../engine/protocol';
import { formatNs } from '../../timeline/time_scale';
import { spanState } from '../../timeline/replay/states';

const abs = (ns: number) => (ns / 1e9).toFixed(9).replace(/0{3}$/, '');

export function RecordTable({ r, testid }: { r: TraceRecordView; testid?: string }) {
  return (
    <table className="fields" data-testid={testid} data-event={r.event}>
      <tbody>
        <tr>
          <th>event</th>
          <td>
            <b>{r.event}</b>
          </td>
        </tr>
        <tr>
          <th>time</th>
          <td>
            {abs(r.ts_ns)} s <span className="muted">(+{formatNs(r.t)})</span>
          </td>
        </tr>
        <tr>
          <th>CPU</th>
          <td>{r.cpu}</td>
        </tr>
        <tr>
          <th>line</th>
          <td>{r.line}</td>
        </tr>
        {r.comm !== null && (
          <tr>
            <th>current</th>
            <td>
              {r.comm}-{r.pid}
            </td>
          </tr>
        )}
        {r.fields.map(([k, v], i) => (
          <tr key={i} data-field={k}>
            <th>{k || '(text)'}</th>
            <td className="mono">{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export interface EevdfSampleRef {
  data: EevdfWindowData;
  row: number;
  comm: string;
  origin: number;
}

function EevdfSample({ s }: { s: EevdfSampleRef }) {
  const d = s.data;
  const i = s.row;
  const ns = (x: number) => `${x >= 0 ? '+' : ''}${x.toLocaleString('en-US')} ns`;
  const rows: [string, string][] = [
    ['line', d.kind[i] === 0 ? 'S (the task)' : 'G (its parent group entity)'],
    ['time', `${abs(s.origin + d.t[i])} s (+${formatNs(d.t[i])})`],
    ['task', `${s.comm} (${d.pid[i]}) on CPU ${d.cpu[i]}`],
    ['vruntime − zero_vruntime', ns(d.v[i])],
    ['deadline − zero_vruntime', ns(d.d[i])],
    ['vruntime ≤ zero_vruntime', d.v[i] <= 0 ? 'yes (eligible against it)' : 'no'],
  ];
  if (d.kind[i] === 0) {
    rows.push(['vlag / vprot (union)', d.lag[i].toLocaleString('en-US')]);
    rows.push(['prev_state', String(d.state[i])]);
  }
  rows.push(['slice', formatNs(d.slice[i])], ['weight', d.weight[i].toLocaleString('en-US')], ['cfs_rq nr_queued', String(d.nr[i])]);
  return (
    <table className="fields" data-testid="eevdf-sample">
      <tbody>
        {rows.map(([k, v]) => (
          <tr key={k}>
            <th>{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The span under the pointer (from the window's columns). */
export interface HoveredSpan {
  cpu: number;
  comm: string;
  pid: number;
  start: number;
  end: number;
  state: number;
  /** Runs merged into it (> 1 at coarse zoom). */
  count: number;
}

function SpanLine({ s }: { s: HoveredSpan }) {
  const st = spanState(s.state);
  return (
    <p data-testid="hovered-span">
      {s.count > 1 ? (
        <>
          {s.count} runs merged at this zoom, longest <b>{s.comm}</b> ({s.pid}): {formatNs(s.start)} → {formatNs(s.end)}
        </>
      ) : (
        <>
          <b>{s.comm}</b> ({s.pid}) on CPU {s.cpu}: {formatNs(s.start)} → {formatNs(s.end)} ({formatNs(s.end - s.start)}),{' '}
          {st.kind === 'open' ? 'still running at the end' : <>left in <b title={st.words}>{st.label}</b></>}
        </>
      )}
    </p>
  );
}

/** The runqueue-depth segment under the pointer (count 0: no depth known there). */
export interface HoveredDepth {
  cpu: number;
  n: number;
  start: number;
  end: number;
  /** Segments merged into it (> 1 at coarse zoom: n is their largest depth). */
  count: number;
}

function DepthLine({ d }: { d: HoveredDepth }) {
  if (d.count === 0) return <p data-testid="hovered-depth">CPU {d.cpu}: no runqueue depth known here (before its first record, or idle).</p>;
  return (
    <p data-testid="hovered-depth">
      CPU {d.cpu}: <b>{d.n}</b> runnable {d.count > 1 ? `at most (${d.count} changes merged at this zoom)` : `(the running task ${d.n > 1 ? `and ${d.n - 1} waiting` : 'alone'})`}, {formatNs(d.start)} → {formatNs(d.end)} ({formatNs(d.end - d.start)})
    </p>
  );
}

interface Props {
  hovered: TraceRecordView | null;
  hoveredSpan: HoveredSpan | null;
  hoveredDepth?: HoveredDepth | null;
  sample: EevdfSampleRef | null;
  span: SpanInfo | null;
}

export const RecordInspector = memo(function RecordInspector({ hovered, hoveredSpan, hoveredDepth, sample, span }: Props) {
  return (
    <section className="record-inspector" aria-label="record inspector" data-testid="record-inspector">
      <h3>Under the pointer</h3>
      {sample ? (
        <EevdfSample s={sample} />
      ) : hoveredDepth ? (
        <DepthLine d={hoveredDepth} />
      ) : (
        <>
          {hoveredSpan && <SpanLine s={hoveredSpan} />}
          {hovered ? <RecordTable r={hovered} testid="hovered-record" /> : <p className="muted">Point at a CPU lane to see the nearest record, or at a depth track for its runnable tasks.</p>}
        </>
      )}
      <h3>Picked run</h3>
      {span ? (
        <div data-testid="picked-span">
          <p>
            <b>{span.comm}</b> <span className="muted">pid {span.pid}{span.prio !== null ? `, prio ${span.prio}` : ''}</span> on CPU {span.cpu}: {formatNs(span.start)} → {formatNs(span.end)} ({formatNs(span.end - span.start)}),{' '}
            {span.state === 'running' ? 'still running at the end of the trace' : <>left the CPU in <b title={spanState(span.state_code).words}>{span.state}</b> ({spanState(span.state_code).words})</>}
          </p>
          {span.switch_in && (
            <>
              <h4>switched in</h4>
              <RecordTable r={span.switch_in} />
            </>
          )}
          {span.switch_out && (
            <>
              <h4>switched out</h4>
              <RecordTable r={span.switch_out} testid="span-switch-out" />
            </>
          )}
        </div>
      ) : (
        <p className="muted">Click a run to pick it.</p>
      )}
    </section>
  );
});
