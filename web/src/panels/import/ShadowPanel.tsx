// Shadow re-simulation from the browser (`schedlab replay`): the workload the trace shows,
// simulated under the baseline or a variant, held against the trace. An optional layout file
// gives what a trace cannot show (cgroups, shares, bandwidth, HZ); it is the replay view's
// (`layout`, `onLayout`): its `[tasks]` cgroups also name the thread tracks' cgroups. Each run adds a column of
// simulated shares to one table, so variants compare side by side with the observed shares.
import { memo, useRef, useState } from 'react';
import { PRESETS, parseOverrides } from '../../state/variants';
import { bandwidthLine, shadowRows, tickPhaseLine, unseenMovesLine, type ShadowRun } from '../../state/trace_import';
import { errorMessage } from '../../base/errors';
import type { SpreadTable } from '../../engine/protocol';
import type { SpreadAsk } from '../../base/share_replay';
import { SpreadControls, SpreadTableView, type SpreadKind } from './ShadowSpread';

interface Props {
  runs: ShadowRun[];
  running: boolean;
  error: string | null;
  onRun: (key: string, layout: string, pin: string, variants: [string, string][]) => void;
  /** The same run opened as B in the A/B comparison (absent: no A/B view). */
  onCompare?: (key: string, layout: string, pin: string, variants: [string, string][]) => void;
  /** The layout file loaded (its name and text), or null. */
  layoutFile: { name: string; text: string } | null;
  onLayout: (layout: { name: string; text: string } | null) => void;
  /** The spread of the shadow over seeds or tick phases, under the chosen variant (absent: none). */
  onSpread?: (layout: string, pin: string, variants: [string, string][], kind: SpreadKind, n: number) => void;
  spread?: SpreadTable | null;
  /** What the spread on screen was asked (its kind and runs fill the controls). */
  spreadAsked?: SpreadAsk | null;
}

const pct = (x: number) => x.toFixed(2);

/** The tasks whose bursts the shadow replays as wall-clock spins (`shadow::wall_paced`). */
const wallPaced = (r: ShadowRun['report']) => r.tasks.filter((t) => t.wall_paced).map((t) => t.name);

export const ShadowPanel = memo(function ShadowPanel({ runs, running, error, onRun, onCompare, layoutFile, onLayout, onSpread, spread, spreadAsked }: Props) {
  const layout = layoutFile?.text ?? '';
  const layoutName = layoutFile?.name ?? null;
  const [pin, setPin] = useState('');
  const [variant, setVariant] = useState('baseline');
  const [custom, setCustom] = useState('');
  const [customError, setCustomError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  const run = (go: (key: string, layout: string, pin: string, variants: [string, string][]) => void) => {
    if (custom.trim()) {
      const o = parseOverrides(custom);
      if (typeof o === 'string') return setCustomError(o);
      setCustomError(null);
      return go(o.map(([k, v]) => `${k}=${v}`).join(','), layout, pin, o);
    }
    const p = PRESETS.find((x) => x.key === variant);
    go(variant, layout, pin, p ? p.overrides : []);
  };
  const rows = shadowRows(runs);
  /** The chosen named variant: what it does and where it comes from, under the picker. */
  const chosen = PRESETS.find((x) => x.key === variant);
  return (
    <section className="shadow" aria-label="shadow re-simulation" data-testid="shadow-panel">
      <h3>Shadow re-simulation</h3>
      <p className="muted small">
        Each fair-class task of the trace becomes a scenario task with the bursts, yields and sleeps it showed and its nice value. By default the tasks
        are free: the model places and balances them on every CPU the trace covers (a layout file&apos;s <code>[affinity]</code> restricts them), and
        each wakeup a task raised wakes its wakee from its own CPU. &quot;Pinned&quot; keeps each task on the CPU it ran on most, with its sleeps as
        observed. The table holds the model&apos;s CPU shares, CPU time and migrations against the trace&apos;s.
      </p>
      <div className="shadow-controls">
        <label>
          variant{' '}
          <select aria-label="shadow variant" aria-describedby="shadow-variant-desc" value={variant} onChange={(e) => setVariant(e.target.value)}>
            {PRESETS.map((p) => (
              <option key={p.key} value={p.key} title={`${p.doc}\nSource: ${p.source}`}>
                {p.key}
              </option>
            ))}
          </select>
        </label>
        <input aria-label="shadow custom variant" placeholder="or NAME=VALUE, …" value={custom} onChange={(e) => setCustom(e.target.value)} />
        <button onClick={() => fileInput.current?.click()} title="A layout file: cgroups, their shares or bandwidth, and which task ran in which (traces/linux-6.18/*.layout.toml)">
          {layoutName ? `layout: ${layoutName}` : 'Layout file…'}
        </button>
        {layoutName && (
          <button
            aria-label="no layout file"
            onClick={() => onLayout(null)}
          >
            ×
          </button>
        )}
        <input
          ref={fileInput}
          type="file"
          accept=".toml,text/plain"
          hidden
          data-testid="layout-input"
          onChange={(e) => {
            const f = e.target.files?.[0];
            e.target.value = '';
            if (f)
              f.text().then(
                (text) => {
                  onLayout({ name: f.name, text });
                  setCustomError(null);
                },
                (err: unknown) => setCustomError(`${f.name} could not be read: ${errorMessage(err)}`),
              );
          }}
        />
        <label>
          tasks{' '}
          <select aria-label="shadow tasks" value={pin} onChange={(e) => setPin(e.target.value)} title="schedlab replay --pin">
            <option value="">as the layout says (free)</option>
            <option value="free">free: placed and balanced by the model</option>
            <option value="observed">pinned where each ran most</option>
          </select>
        </label>
        <button onClick={() => run(onRun)} disabled={running} data-testid="shadow-run">
          {running ? 'Simulating…' : 'Run'}
        </button>
        {onCompare && (
          <button
            onClick={() => run(onCompare)}
            disabled={running}
            data-testid="shadow-as-b"
            title="Open this variant's shadow run as B in the A/B comparison: the trace against what the model under the variant does with the same workload"
          >
            as B
          </button>
        )}
      </div>
      {chosen && (
        <p className="muted small variant-line" id="shadow-variant-desc" data-testid="shadow-variant-desc">
          <b>{chosen.key}</b>: {chosen.short} <i>Source: {chosen.source}</i>
        </p>
      )}
      {onSpread && (
        <SpreadControls
          key={spreadAsked ? `${spreadAsked.kind}:${spreadAsked.n}` : ''}
          initial={spreadAsked}
          running={running}
          onSpread={(kind, n) => run((_, l, p, v) => onSpread(l, p, v, kind, n))}
        />
      )}
      {customError && <div className="error">{customError}</div>}
      {error && (
        <div className="error" data-testid="shadow-error">
          {error}
        </div>
      )}
      {spread && <SpreadTableView table={spread} />}
      {rows.length > 0 && (
        <table className="fields shadow-table" data-testid="shadow-table">
          <thead>
            <tr>
              <th>task</th>
              <th>CPU</th>
              <th>real %</th>
              {runs.map((r) => (
                <th key={r.key}>{r.key} %</th>
              ))}
              <th>Δ pp ({runs[runs.length - 1].key})</th>
              <th title="CPU time over the window, one CPU = 100 %">real CPU %</th>
              <th>model CPU %</th>
              <th>real migrations</th>
              <th>model migrations</th>
              <th>real switches</th>
              <th>model switches</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((t) => {
              const last = t.simulated[t.simulated.length - 1];
              return (
                <tr key={`${t.name}.${t.pid}`} data-task={t.name}>
                  <td>
                    {t.name} <span className="muted">{t.pid}</span>
                  </td>
                  <td>{t.cpu}</td>
                  <td>{pct(t.observed)}</td>
                  {t.simulated.map((s, i) => (
                    <td key={i}>{Number.isNaN(s) ? '—' : pct(s)}</td>
                  ))}
                  <td className={Math.abs(last - t.observed) >= 1 ? 'up' : ''}>{(last - t.observed >= 0 ? '+' : '') + pct(last - t.observed)}</td>
                  <td>{pct(t.observedCpu)}</td>
                  <td>{Number.isNaN(t.simulatedCpu) ? '—' : pct(t.simulatedCpu)}</td>
                  <td>{t.observedMigrations}</td>
                  <td>{t.simulatedMigrations ?? '—'}</td>
                  <td>{t.observedSwitches.toLocaleString('en-US')}</td>
                  <td>{t.simulatedSwitches?.toLocaleString('en-US') ?? '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {runs.map((r) => (
        <p key={r.key} className="small" data-testid="shadow-agreement" data-variant={r.key}>
          <b>{r.key}</b>: the model ran the same task on the same CPU {r.report.agreement_pct.toFixed(1)} % of the observed time; largest share error{' '}
          {r.report.max_share_error_pp.toFixed(2)} pp over {(r.report.window_ns / 1e6).toFixed(1)} ms. Replayed along the real schedule, the model
          picked as the kernel did at{' '}
          <span data-testid="shadow-decisions">
            {r.report.decisions.agreed.toLocaleString('en-US')} of {r.report.decisions.scored.toLocaleString('en-US')} picks (
            {r.report.decisions.agreement_pct.toFixed(1)} %)
          </span>{' '}
          and placed as the kernel did at{' '}
          <span data-testid="shadow-placements">
            {r.report.decisions.placements.agreed.toLocaleString('en-US')} of {r.report.decisions.placements.scored.toLocaleString('en-US')} wakeups (
            {r.report.decisions.placements.agreement_pct.toFixed(1)} %)
          </span>
          {r.report.decisions.cpu_avg && (
            <span data-testid="shadow-cpu-avg">
              {' '}
              {r.report.decisions.cpu_avg.used
                ? `(asked at the kernel's own CPU averages: the attached dump's ${r.report.decisions.cpu_avg.matched.toLocaleString('en-US')} samples inside the trace line up with its switches and set the model's CPU averages ${r.report.decisions.cpu_avg.applied.toLocaleString('en-US')} times)`
                : `(the attached CPU-averages dump is not on the trace's clock: ${r.report.decisions.cpu_avg.matched} of ${r.report.decisions.cpu_avg.in_trace} samples inside the trace found their switch; capture both with the trace clock mono; nothing was set from it)`}
            </span>
          )}
          , and decided wakeup preemption as the kernel did at{' '}
          <span data-testid="shadow-preemptions">
            {r.report.decisions.preemptions.agreed.toLocaleString('en-US')} of {r.report.decisions.preemptions.scored.toLocaleString('en-US')} wakeups (
            {r.report.decisions.preemptions.agreement_pct.toFixed(1)} %)
          </span>
          {r.report.decisions.seed?.alignment?.accepted && (
            <span data-testid="shadow-seed">
              {' '}
              {r.report.decisions.seed.queues.length === 0
                ? "(the attached EEVDF dump seeded no queue: none had its whole population recorded at the model's weights and hierarchy; does the layout give the kernel's cgroups and autogroups?)"
                : `(seeded from the attached EEVDF dump: ${r.report.decisions.seed.queues.length} queues moved to the kernel's lags, group weights from ${r.report.decisions.seed.group_weights.toLocaleString('en-US')} records; after the first seed ${r.report.decisions.seed.agreed_after.toLocaleString('en-US')} of ${r.report.decisions.seed.scored_after.toLocaleString('en-US')} picks, ${r.report.decisions.seed.agreement_after_pct.toFixed(1)} %)`}
            </span>
          )}
          {r.report.decisions.placements.balance_migrations > 0 &&
            `; of ${r.report.decisions.placements.balance_migrations} balance migrations, the model's balancer pulls from the same CPU at ${r.report.decisions.placements.balance_same_source}`}
          {r.report.decisions.balance_passes && (
            <span data-testid="shadow-balance-passes">
              {r.report.decisions.balance_passes.used
                ? `; of the ${r.report.decisions.balance_passes.scored} balance passes the attached dump recorded inside the trace, the model, given the kernel's nr_balance_failed and interval, ended ${r.report.decisions.balance_passes.agreed} as the kernel did (${r.report.decisions.balance_passes.agreement_pct.toFixed(1)} %: balanced, failed or moved)`
                : r.report.decisions.balance_passes.passes === 0
                  ? "; the attached balance-pass dump's softirq records hold no balance pass (no domain's last_balance moved while it ran): no pass was asked"
                  : `; the attached balance-pass dump does not line up with the trace (${r.report.decisions.balance_passes.in_trace} of its ${r.report.decisions.balance_passes.passes} passes inside it; a busy pass must follow its tick's record and a balance move lie within a pass; capture both with the trace clock mono): no pass was asked`}
            </span>
          )}
          ; tasks {r.report.pin === 'free' ? `free, ${r.report.causal_wakeups.toLocaleString('en-US')} wakeups replayed from their wakers` : 'pinned where each ran most'}.{' '}
          <span data-testid="shadow-switch-gaps">
            Switches take {(r.report.wakeup_switch_latency_ns / 1e3).toFixed(1)} µs after a preempting wakeup (charged to the wakee) and{' '}
            {(r.report.schedule_clock_lead_ns / 1e3).toFixed(1)} µs after the clock read otherwise, as the trace shows
            {r.report.cpu_switch_gaps_ns.map(([cpu, w, l]) => `; on CPU ${cpu}, its own: ${(w / 1e3).toFixed(1)} µs and ${(l / 1e3).toFixed(1)} µs`).join('')}
            {wallPaced(r.report).length > 0 && `; bursts of ${wallPaced(r.report).join(', ')} replayed as wall-clock spins`}.
          </span>
          <span data-testid="shadow-tick-phase"> {tickPhaseLine(r.report)}</span>
          {bandwidthLine(r.report.decisions) && <span data-testid="shadow-bandwidth"> {bandwidthLine(r.report.decisions)}</span>}
          {unseenMovesLine(r.report) && <span data-testid="shadow-unseen-moves"> {unseenMovesLine(r.report)}</span>}
          {r.report.left_out.length > 0 && ` Left out (not fair class): ${r.report.left_out.map((l) => `${l.comm} (prio ${l.prio})`).join(', ')}.`}
        </p>
      ))}
      {runs.map(
        (r) =>
          r.report.decisions.placements.balance_disagreements.length > 0 && (
            <details key={`${r.key}-balance`} className="small" data-testid="shadow-balance-misses" data-variant={r.key}>
              <summary>
                <b>{r.key}</b>: the first balance migrations the model's balancer did not make ({r.report.decisions.placements.balance_disagreements.length})
              </summary>
              <ul>
                {r.report.decisions.placements.balance_disagreements.map((b) => (
                  <li key={b.at_ns}>
                    {(b.at_ns / 1e6).toFixed(3)} ms: the kernel moved {b.task} from CPU {b.src_cpu} to CPU {b.dst_cpu}; the model: {b.model}
                  </li>
                ))}
              </ul>
            </details>
          ),
      )}
    </section>
  );
});
