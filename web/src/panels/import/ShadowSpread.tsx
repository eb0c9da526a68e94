// The shadow run several times, differing in the seed or in where its ticks fall
// (`schedlab replay --seeds N` / `--tick-phases N`): each task's CPU time over the runs (least,
// mean, most) beside the real one. One capture of a chaotic workload is one draw; the range
// says how far a shadow's figure depends on what the trace does not decide.
import { memo, useState } from 'react';
import type { SpreadTable } from '../../engine/protocol';
import { MAX_SPREAD_RUNS, type SpreadAsk } from '../../base/share_replay';

export type SpreadKind = SpreadAsk['kind'];

interface ControlsProps {
  /** The spread on screen's kind and runs (a restored link's), or null for the defaults. */
  initial?: SpreadAsk | null;
  running: boolean;
  onSpread: (kind: SpreadKind, n: number) => void;
}

/** The spread's kind and count, and its Run button. */
export const SpreadControls = memo(function SpreadControls({ initial, running, onSpread }: ControlsProps) {
  const [kind, setKind] = useState<SpreadKind>(initial?.kind ?? 'tick_phases');
  const [n, setN] = useState(initial?.n ?? 8);
  const ok = Number.isInteger(n) && n >= 1 && n <= MAX_SPREAD_RUNS;
  return (
    <div className="shadow-controls" data-testid="spread-controls">
      <label>
        spread over{' '}
        <select aria-label="spread over" value={kind} onChange={(e) => setKind(e.target.value as SpreadKind)}>
          <option value="tick_phases">phases of the tick</option>
          <option value="seeds">seeds</option>
        </select>
      </label>
      <label>
        runs{' '}
        <input aria-label="spread runs" type="number" min={1} max={MAX_SPREAD_RUNS} value={n} onChange={(e) => setN(Number(e.target.value))} style={{ width: '4em' }} />
      </label>
      <button onClick={() => onSpread(kind, n)} disabled={running || !ok} data-testid="spread-run" title="schedlab replay --tick-phases N / --seeds N, with the variant above">
        Run spread
      </button>
      {!ok && <span className="error">1 to {MAX_SPREAD_RUNS} runs</span>}
    </div>
  );
});

const pct = (x: number) => x.toFixed(2);

/** The spread's table: per task, the real CPU time and the model's least, mean and most. */
export const SpreadTableView = memo(function SpreadTableView({ table }: { table: SpreadTable }) {
  return (
    <div data-testid="spread">
      <p className="muted small" data-testid="spread-title">
        {table.scenario} ({table.given.length ? table.given.join(' ') : 'baseline'}) {table.under}: CPU time, % of one CPU. The real figure lies inside the
        model&apos;s range at {table.inside} of {table.rows.length} tasks.{table.same && ` ${table.same[0].toUpperCase()}${table.same.slice(1)}.`}
      </p>
      <table className="fields shadow-table spread-table" data-testid="spread-table">
        <thead>
          <tr>
            <th>task</th>
            <th>real %</th>
            <th>least</th>
            <th>mean</th>
            <th>most</th>
            <th>real inside</th>
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r) => (
            <tr key={r.name} data-task={r.name}>
              <td>{r.name}</td>
              <td>{pct(r.observed_cpu_pct)}</td>
              <td>{pct(r.least)}</td>
              <td>{pct(r.mean)}</td>
              <td>{pct(r.most)}</td>
              <td className={r.inside ? '' : 'warn'}>{r.inside ? 'yes' : 'no'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
});
