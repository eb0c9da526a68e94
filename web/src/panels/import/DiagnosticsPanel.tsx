// The import diagnostics: the format found, lines read and skipped by reason (with line:column
// examples), lost events, out-of-order CPUs, missing switch-outs, other events kept, the EEVDF
// dump and its alignment, and what a view needs that the trace lacks, with how to capture it.
import { memo } from 'react';
import type { Alignment, ImportedTrace } from '../../engine/protocol';
import { diagnostics } from '../../state/trace_import';

const int = (n: number) => n.toLocaleString('en-US');

function Alignment({ a, file }: { a: Alignment; file: string | null }) {
  return (
    <p data-testid="eevdf-alignment" data-accepted={a.accepted} className={a.accepted ? '' : 'warn'}>
      {a.accepted
        ? `EEVDF dump ${file ?? ''} put on the trace clock: offset ${(a.offset_ns / 1e6).toFixed(3)} ms; ${a.matched} of the ${a.in_trace} S lines inside the trace lie on a switch-out of their task (median ${(a.median_error_ns / 1e3).toFixed(1)} µs away).`
        : `The EEVDF dump was not attached: ${a.reason}.`}
    </p>
  );
}

export const DiagnosticsPanel = memo(function DiagnosticsPanel({ trace, alignment }: { trace: ImportedTrace; alignment: Alignment | null }) {
  const r = trace.report;
  const s = r.summary;
  const busiest = [...s.tasks].filter((t) => t.switches > 0 && t.pid !== 0).sort((a, b) => b.switches - a.switches || a.pid - b.pid).slice(0, 12);
  return (
    <section className="diagnostics" aria-label="import diagnostics" data-testid="diagnostics">
      <h2>{trace.file}</h2>
      <dl>
        {diagnostics(r).map((d) => (
          <div key={d.key} data-key={d.key} className={d.warn ? 'warn' : ''}>
            <dt>{d.label}</dt>
            <dd>{d.value}</dd>
          </div>
        ))}
      </dl>
      {s.skipped.length > 0 && (
        <>
          <h3>Skipped lines</h3>
          <table className="fields" data-testid="skipped">
            <thead>
              <tr>
                <th>reason</th>
                <th>lines</th>
                <th>line:column</th>
              </tr>
            </thead>
            <tbody>
              {s.skipped.map((k) => (
                <tr key={k.reason}>
                  <td>{k.reason}</td>
                  <td>{int(k.count)}</td>
                  <td className="mono">{k.examples.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      <h3>Events</h3>
      <table className="fields" data-testid="event-counts">
        <tbody>
          {Object.entries(s.events).map(([e, n]) => (
            <tr key={e} data-event={e}>
              <th>{e}</th>
              <td>{int(n)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {(r.eevdf.samples > 0 || alignment) && (
        <>
          <h3>EEVDF state</h3>
          {alignment && <Alignment a={alignment} file={trace.eevdfFile} />}
          <p>
            {int(r.eevdf.samples)} samples of {r.eevdf.tasks.length} tasks
            {r.eevdf.tasks.length > 0 && `: ${r.eevdf.tasks.filter((t) => t.samples > 0).map((t) => `${t.comm} (${t.pid})`).slice(0, 8).join(', ')}`}
          </p>
        </>
      )}
      {busiest.length > 0 && (
        <>
          <h3>Busiest tasks</h3>
          <table className="fields" data-testid="busiest">
            <thead>
              <tr>
                <th>task</th>
                <th>switches</th>
                <th>R / R+</th>
                <th>wakeups</th>
              </tr>
            </thead>
            <tbody>
              {busiest.map((t) => (
                <tr key={`${t.pid}.${t.generation}`}>
                  <td>
                    {t.comm} <span className="muted">{t.pid}</span>
                  </td>
                  <td>{int(t.switches)}</td>
                  <td>
                    {int(t.switches_runnable)} / {int(t.switches_preempted)}
                  </td>
                  <td>{int(t.wakeups)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
      {s.missing.length > 0 && (
        <>
          <h3>What the views miss, and how to capture it</h3>
          <ul className="missing" data-testid="missing">
            {s.missing.map((m) => (
              <li key={m.what}>
                <b>{m.what}</b>: needed for {m.needed_for}.<br />
                <code>{m.capture}</code>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
});
