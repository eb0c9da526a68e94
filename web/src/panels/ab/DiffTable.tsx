// The A/B diff's tables (TraceDiff): one row per comm and one per CPU, a column per figure, each
// cell A → B with B − A and the relative difference, flagged cells marked (the engine's rule).
// Comms with nothing to compare are left out (counted under the table). Cells carry the raw figures in data attributes (data-figure, data-a, data-b, data-delta,
// data-flagged).
import { memo } from 'react';
import type { CpuDiff, Figure, TaskDiff, TraceDiff } from '../../engine/protocol';
import { CPU_COLUMNS, emptyRow, figureOf, formatFigure, formatRelative, presence, TASK_COLUMNS, taskLabel, UNIT_NAMES, type FigureColumn } from './ab_diff';

function Cell({ f }: { f: Figure | undefined }) {
  if (!f) return <td className="ab-cell none">–</td>;
  const sign = (f.delta ?? 0) > 0 ? 'up' : (f.delta ?? 0) < 0 ? 'down' : '';
  const counts = f.counts ? ` (counts ${f.counts[0]} → ${f.counts[1]})` : '';
  return (
    <td
      className={`ab-cell${f.flagged ? ` flagged ${sign}` : ''}`}
      data-figure={f.name}
      data-a={f.a ?? ''}
      data-b={f.b ?? ''}
      data-delta={f.delta ?? ''}
      data-flagged={f.flagged}
      title={`${f.name} (${UNIT_NAMES[f.unit]}): A ${formatFigure(f.unit, f.a)}, B ${formatFigure(f.unit, f.b)}, B − A ${formatFigure(f.unit, f.delta, true)} ${formatRelative(f)}${counts}${f.flagged ? ' — flagged' : ''}`}
    >
      <span className="ab-ab">
        {formatFigure(f.unit, f.a)} → {formatFigure(f.unit, f.b)}
      </span>
      <span className="ab-delta">
        {f.flagged && <b aria-label="flagged">{sign === 'up' ? '▲' : '▼'} </b>}
        {formatFigure(f.unit, f.delta, true)} {formatRelative(f) && <small>({formatRelative(f)})</small>}
      </span>
    </td>
  );
}

function Head({ first, cols }: { first: string; cols: FigureColumn[] }) {
  return (
    <thead>
      <tr>
        <th scope="col">{first}</th>
        {cols.map((c) => (
          <th key={c.name} scope="col" title={c.title}>
            {c.label}
          </th>
        ))}
      </tr>
    </thead>
  );
}

const where = { a: 'A only', b: 'B only', both: '' };

function TaskRow({ t }: { t: TaskDiff }) {
  const p = presence(t);
  return (
    <tr data-comm={t.comm} data-flagged={t.flagged} data-presence={p}>
      <th scope="row" title={`${t.tasks_a} task(s) in A, ${t.tasks_b} in B`}>
        {taskLabel(t)} {p !== 'both' && <small className="muted">{where[p]}</small>}
      </th>
      {TASK_COLUMNS.map((c) => (
        <Cell key={c.name} f={figureOf(t, c.name)} />
      ))}
    </tr>
  );
}

function CpuRow({ c }: { c: CpuDiff }) {
  return (
    <tr data-cpu={c.cpu} data-flagged={c.flagged}>
      <th scope="row">CPU {c.cpu}</th>
      {CPU_COLUMNS.map((col) => (
        <Cell key={col.name} f={figureOf(c, col.name)} />
      ))}
    </tr>
  );
}

export const DiffTable = memo(function DiffTable({ diff }: { diff: TraceDiff }) {
  const shown = diff.tasks.filter((t) => !emptyRow(t));
  const hidden = diff.tasks.length - shown.length;
  return (
    <>
      <table className="ab-table" data-testid="ab-task-table" aria-label="A/B diff per task">
        <Head first="task (comm)" cols={TASK_COLUMNS} />
        <tbody>
          {shown.map((t) => (
            <TaskRow key={`${t.comm}:${t.comm_b ?? ''}:${presence(t)}`} t={t} />
          ))}
        </tbody>
      </table>
      {hidden > 0 && (
        <p className="muted ab-hidden" data-testid="ab-hidden" data-hidden={hidden}>
          {hidden} more {hidden === 1 ? 'comm' : 'comms'} with no CPU time and no events on the traced CPUs in either trace (wakees only): in the CSV.
        </p>
      )}
      <table className="ab-table" data-testid="ab-cpu-table" aria-label="A/B diff per CPU">
        <Head first="CPU" cols={CPU_COLUMNS} />
        <tbody>
          {diff.cpus.map((c) => (
            <CpuRow key={c.cpu} c={c} />
          ))}
        </tbody>
      </table>
    </>
  );
});
