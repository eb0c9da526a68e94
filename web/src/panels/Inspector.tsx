// The inspector: for each variant, the runqueue of every CPU at the cursor (ordered by
// deadline, eligibility marked), every field of the selected entity, "why this pick", and
// "why this CPU": each CPU's latest placement, migration onto it and balance pass at or
// before the cursor, in words with their numbers (a <details> per CPU, open by default, its
// summary reachable with Tab and toggled with Enter or Space).

import { memo } from 'react';
import type { CpuState, CursorState, EntityState, ScenarioMeta } from '../engine/protocol';
import { formatNs } from '../timeline/time_scale';
import { taskColor } from '../timeline/palette';

interface Props {
  meta: ScenarioMeta;
  cursor: number;
  selection: number | null;
  states: Record<string, CursorState>;
  order: string[];
  /** Why the state at the cursor could not be read. */
  error: string | null;
  onSelect: (t: number | null) => void;
}

const v = (x: number) => x.toLocaleString('en-US');

function EntityFields({ e, meta }: { e: EntityState; meta: ScenarioMeta }) {
  const t = meta.tasks[e.task];
  const rows: [string, string][] = [
    ['task', `${e.name} (nice ${t?.nice ?? '?'}, ${t?.policy ?? '?'})`],
    ['vruntime', v(e.vruntime)],
    ['deadline', v(e.deadline)],
    ['V (avg_vruntime)', v(e.avg_vruntime)],
    ['lag = V − vruntime', `${e.lag >= 0 ? '+' : ''}${v(e.lag)}`],
    ['eligible', e.eligible ? 'yes (lag ≥ 0)' : 'no (lag < 0)'],
    ['vlag (saved)', v(e.vlag)],
    ['vprot', v(e.vprot)],
    ['state', e.curr ? 'running (curr)' : e.delayed ? 'sleeping, still queued (delayed)' : e.on_rq ? 'queued' : 'sleeping (not queued)'],
    ['cpu', String(e.cpu)],
    ['protected (RUN_TO_PARITY)', e.curr ? (e.protected ? 'yes' : 'no') : '—'],
    ['delayed (DELAY_DEQUEUE)', e.delayed ? 'yes' : 'no'],
    ['next buddy', e.buddy ? 'yes' : 'no'],
    ['slice', formatNs(t?.slice_ns ?? meta.base_slice_ns)],
    ['as of', formatNs(e.t)],
  ];
  return (
    <table className="fields" data-testid="entity-fields">
      <tbody>
        {rows.map(([k, val]) => (
          <tr key={k}>
            <th>{k}</th>
            <td>{val}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const WHY_CPU_KIND: Record<CpuState['why_cpu'][number]['kind'], string> = {
  placement: 'Placement',
  migration: 'Migration',
  balance: 'Load balance',
};

function WhyCpu({ c, variant }: { c: CpuState; variant: string }) {
  if (c.why_cpu.length === 0) return null;
  return (
    <details className="why why-cpu" open data-testid="why-cpu" data-variant={variant} data-cpu={c.cpu}>
      <summary>
        <strong>Why CPU {c.cpu}?</strong> <span className="muted">(its latest {c.why_cpu.length === 1 ? 'decision' : `${c.why_cpu.length} decisions`})</span>
      </summary>
      {c.why_cpu.map((w) => (
        <p key={`${w.kind}-${w.t}`} data-testid="why-cpu-entry" data-kind={w.kind} data-t={w.t}>
          <span className="muted">
            {WHY_CPU_KIND[w.kind]} at {formatNs(w.t)}:{' '}
          </span>
          {w.why}
        </p>
      ))}
    </details>
  );
}

export const Inspector = memo(function Inspector({ meta, cursor, selection, states, order, error, onSelect }: Props) {
  return (
    <aside className="inspector" aria-label="inspector" data-testid="inspector">
      <h2>At {formatNs(cursor)}</h2>
      {error && (
        <p className="error" role="alert" data-testid="cursor-error">
          The runqueues at the cursor could not be read: {error}
        </p>
      )}
      {order.map((key) => {
        const st = states[key];
        if (!st) return null;
        const selected = st.tasks.find((e) => e.task === selection);
        return (
          <section key={key} className="variant-state">
            {order.length > 1 && <h3>{key}</h3>}
            {st.cpus
              .filter((c) => c.entities.length > 0 || c.pick || c.why_cpu.length > 0)
              .map((c) => {
                const rq = [...c.entities].sort((a, b) => (a.curr ? -1 : b.curr ? 1 : a.deadline - b.deadline));
                return (
                  <div key={c.cpu} className="rq">
                    <h4>cpu {c.cpu} runqueue</h4>
                    <table className="rq-table">
                      <thead>
                        <tr>
                          <th>task</th>
                          <th>lag</th>
                          <th>deadline − V</th>
                          <th />
                        </tr>
                      </thead>
                      <tbody>
                        {rq.map((e) => (
                          <tr key={e.task} className={`${e.eligible ? 'eligible' : 'ineligible'} ${e.task === selection ? 'sel' : ''}`} onClick={() => onSelect(e.task)}>
                            <td>
                              <span className="swatch" style={{ background: taskColor(e.task) }} /> {e.name}
                            </td>
                            <td>{(e.lag >= 0 ? '+' : '') + formatNs(e.lag)}</td>
                            <td>{formatNs(e.deadline - e.avg_vruntime)}</td>
                            <td>
                              {e.curr ? 'running ' : ''}
                              {e.eligible ? 'eligible' : 'ineligible'}
                              {e.delayed ? ' delayed' : ''}
                              {e.buddy ? ' buddy' : ''}
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                    {c.pick && (
                      <div className="why" data-testid="why-pick" data-variant={key} data-cpu={c.cpu} data-picked={c.pick.name} data-t={c.pick.t}>
                        <strong>Why {c.pick.name}?</strong> <span className="muted">(pick at {formatNs(c.pick.t)})</span>
                        {(c.pick.levels ?? [c.pick]).map((l) => (
                          <p
                            key={l.index}
                            data-testid="why-level"
                            data-level={l.level}
                            data-picked={l.name}
                            data-reason={l.reason}
                            data-buddy={l.buddy_src ?? ''}
                            data-eligible={l.candidates.filter((x) => x.eligible).map((x) => x.name).join('|')}
                            data-ineligible={l.candidates.filter((x) => !x.eligible).map((x) => x.name).join('|')}
                          >
                            <span className="muted">On {l.level}: </span>
                            {l.why}
                          </p>
                        ))}
                      </div>
                    )}
                    <WhyCpu c={c} variant={key} />
                  </div>
                );
              })}
            {selected && <EntityFields e={selected} meta={meta} />}
            {selection !== null && !selected && <p className="muted">{meta.tasks[selection]?.name} has not started at the cursor.</p>}
          </section>
        );
      })}
    </aside>
  );
});
