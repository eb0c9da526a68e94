// The A/B comparison in the replay view: "Open B…" (a file input, or a file dropped on the
// panel), B's CPU timeline under A's on relative time (both from 0, A's view window driving
// both), and the diff of the two captures: the tables with the rule's legend, the noise level,
// the CSV, and each matched task's wakeup-latency CDFs of A and B.
import { memo, useMemo, useRef, useState, type DragEvent } from 'react';
import type { Ab } from './ab';
import type { Replay } from './replay';
import type { ImportedTrace } from '../engine/protocol';
import { useStore } from '../state/store';
import { formatBytes } from '../state/trace_import';
import { ReplayTimeline } from '../timeline/replay/ReplayTimeline';
import { formatNs } from '../timeline/time_scale';
import { ImportProgressBar } from '../panels/import/ImportProgressBar';
import { CsvButtons } from '../panels/MetricsPanel';
import { diffCsv, parseMatches, presence, splitLatencies } from '../panels/ab/ab_diff';
import { DiffTable } from '../panels/ab/DiffTable';
import { A_COLOUR, B_COLOUR, LatencyCdf } from '../panels/ab/LatencyCdf';

/** At most this many CDFs (the task rows are by CPU share, largest first). */
const MAX_CDFS = 12;
const noop = () => {};

/** The "Open B…" button and its file input (`ab-open`, `ab-input`, suffixed by `where`). */
export function AbOpen({ ab, where = '' }: { ab: Ab; where?: string }) {
  const input = useRef<HTMLInputElement>(null);
  const has = useStore(ab.store, (s) => s.b !== null);
  return (
    <span className="ab-open">
      <button onClick={() => input.current?.click()} data-testid={`ab-open${where}`} title="Open a second capture of the same workload (any supported format) to compare with this one">
        {has ? 'Replace B…' : 'Open B…'}
      </button>
      <input
        ref={input}
        type="file"
        hidden
        data-testid={`ab-input${where}`}
        onChange={(e) => {
          const f = e.target.files?.[0];
          if (f) ab.open(f);
          e.target.value = '';
        }}
      />
    </span>
  );
}

/** B's import progress and B's timeline, on A's view. */
export function AbTimeline({ ab, replay }: { ab: Ab; replay: Replay }) {
  const st = useStore(ab.store, (s) => s);
  const { view, cursor, trace } = useStore(replay.store, (s) => ({ view: s.view, cursor: s.cursor, trace: s.trace }));
  const b = st.bShown;
  return (
    <>
      {st.progress && <ImportProgressBar file={`B: ${st.progress.file}`} progress={st.progress.progress} onCancel={ab.cancel} />}
      {b && trace && (
        <div className="ab-b" data-testid="ab-b-timeline">
          <div className="ab-b-head">
            <b>
              B: <span data-testid="ab-b-file">{b.file}</span>
            </b>
            <span className="muted">
              {b.report.summary.format_name} · {formatBytes(b.size)} · {formatNs(b.report.timeline.duration_ns)} · {b.report.timeline.cpus} CPUs · {b.report.summary.total_events.toLocaleString('en-US')} events · on A&apos;s time from 0
            </span>
            <button onClick={ab.close} data-testid="ab-close">
              Close B
            </button>
          </div>
          {st.window.error && (
            <div className="error" role="alert">
              B could not be read here: {st.window.error}
            </div>
          )}
          <ReplayTimeline
            trace={b}
            data={st.window.data}
            eevdf={null}
            view={view}
            cursor={cursor}
            selection={null}
            onView={replay.setView}
            onCursor={replay.setCursor}
            onHover={noop}
            onPick={noop}
            duration={trace.report.timeline.duration_ns}
            keys={false}
          />
        </div>
      )}
    </>
  );
}

/** The renames (`--match OLD=NEW`), applied on Enter or when the field is left. */
function MatchInput({ ab, matches }: { ab: Ab; matches: [string, string][] }) {
  const shown = matches.map(([a, b]) => `${a}=${b}`).join(', ');
  const [text, setText] = useState(shown);
  const [bad, setBad] = useState<string | null>(null);
  const apply = () => {
    const r = parseMatches(text);
    if ('error' in r) return setBad(r.error);
    setBad(null);
    if (r.matches.map(([a, b]) => `${a}=${b}`).join(', ') !== shown) ab.setMatches(r.matches);
  };
  return (
    <label className="ab-match" title="renamed tasks: a comm of A = the comm of B it is compared with (schedlab diff --match)">
      match{' '}
      <input
        type="text"
        value={text}
        placeholder="OLD=NEW, …"
        data-testid="ab-match"
        aria-invalid={bad !== null}
        onChange={(e) => setText(e.target.value)}
        onBlur={apply}
        onKeyDown={(e) => {
          if (e.key === 'Enter') apply();
        }}
      />
      {bad && (
        <small className="error" role="alert">
          {' '}
          {bad}
        </small>
      )}
    </label>
  );
}

function drop(ab: Ab) {
  return {
    onDragOver: (e: DragEvent) => e.preventDefault(),
    onDrop: (e: DragEvent) => {
      // Not the page's drop (which would replace A).
      e.preventDefault();
      e.stopPropagation();
      const f = e.dataTransfer.files[0];
      if (f) ab.open(f);
    },
  };
}

/** The diff: its rule, noise level, tables, CSV and CDFs; or where to open B. */
export const AbPanel = memo(function AbPanel({ ab, a }: { ab: Ab; a: ImportedTrace | null }) {
  const st = useStore(ab.store, (s) => s);
  const d = st.diff;
  const lat = useMemo(() => (d ? splitLatencies(d.latencies, d.diff.tasks.length) : []), [d]);
  const cdfs = d ? d.diff.tasks.map((t, i) => ({ t, l: lat[i] })).filter(({ t, l }) => presence(t) === 'both' && l.a.length + l.b.length > 0) : [];
  if (!st.b) {
    return (
      <section className="ab" aria-label="A/B comparison" data-testid="ab-panel" {...drop(ab)}>
        <h3>A/B comparison</h3>
        {st.error && (
          <p className="error" role="alert" data-testid="ab-error">
            {st.error} <button onClick={ab.dismissError}>Dismiss</button>
          </p>
        )}
        <p className="muted ab-drop">
          <AbOpen ab={ab} where="-panel" /> or drop a second capture of the same workload here: its CPU timeline shows under this one on the same relative time, with the per-task and per-CPU diff (<code>schedlab diff</code>) and the wakeup latency CDFs.
        </p>
      </section>
    );
  }
  const r = d?.diff.rule;
  return (
    <section className="ab" aria-label="A/B comparison" data-testid="ab-panel" {...drop(ab)}>
      <h3>
        A/B diff{' '}
        <small className="muted">
          A <i className="ab-key" style={{ background: A_COLOUR }} /> {a?.file ?? ''} {d ? `${formatNs(d.diff.a.window_ns)}, ${d.diff.a.tasks} tasks` : ''} · B <i className="ab-key" style={{ background: B_COLOUR }} /> {st.b.file}
          {d ? ` ${formatNs(d.diff.b.window_ns)}, ${d.diff.b.tasks} tasks` : ''}
        </small>
        <label className="ab-noise">
          noise level{' '}
          <input
            type="number"
            min={0}
            step={0.5}
            value={st.noisePct}
            data-testid="ab-noise"
            onChange={(e) => ab.setNoise(Number(e.target.value))}
          />{' '}
          %
        </label>
        <MatchInput ab={ab} matches={st.matches} />
        {d && <CsvButtons csv={() => diffCsv(d.diff)} name={`diff-${st.b.file.replace(/[^\w.-]+/g, '-')}.csv`} testid="ab-csv" />}
      </h3>
      {st.error && (
        <p className="error" role="alert" data-testid="ab-error">
          {st.error}
        </p>
      )}
      {r && d && (
        <p className="muted ab-legend" data-testid="ab-legend" data-flagged={d.diff.flagged} data-noise={r.noise_pct} data-window-a={d.diff.a.window_ns} data-window-b={d.diff.b.window_ns}>
          Each cell: A → B, then B − A and (B − A)/A. <b className="ab-flag-key">▲▼ flagged</b> ({d.diff.flagged}): the relative difference exceeds the noise level of {r.noise_pct} % <em>and</em> the absolute
          difference its floor — shares of time {r.floor_pct_points} percentage points; wakeup latency {r.floor_latency_ns / 1000} µs, a percentile only with ≥ {r.tail_samples} samples above it on
          both sides and {r.quantile_sigmas} σ confidence bands that do not overlap (the maximum never); rates {r.poisson_sigmas} σ of a Poisson count and {r.floor_rate_per_s}/s; mean depth{' '}
          {r.floor_depth} tasks. CPU time is a share of each trace&apos;s window (100 % = one CPU), counts are per second of it; tasks are matched by comm.
        </p>
      )}
      {st.diffBusy && !d && <p className="muted">comparing…</p>}
      {d && <DiffTable diff={d.diff} />}
      {d && (
        <div className="ab-cdfs" data-testid="ab-cdfs">
          <h4>
            Wakeup latency CDFs <small className="muted">(share of wakeups served within a latency; A solid, B dashed)</small>
          </h4>
          <div className="ab-cdf-grid">
            {cdfs.slice(0, MAX_CDFS).map(({ t, l }) => (
              <LatencyCdf key={t.comm} comm={t.comm} a={l.a} b={l.b} />
            ))}
          </div>
          {cdfs.length > MAX_CDFS && <p className="muted">{cdfs.length - MAX_CDFS} more matched tasks with wakeups (see the table).</p>}
        </div>
      )}
    </section>
  );
});
