// Metrics with D3 scales: CPU share per task and wakeup-latency distribution for every
// variant, switches, and a diff table against the first variant.

import { memo, useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { scaleBand, scaleLinear } from 'd3-scale';
import type { EngineClient } from '../engine/client';
import type { LoadedVariant, ScenarioMeta, Summary } from '../engine/protocol';
import { formatNs } from '../timeline/time_scale';
import { taskColor } from '../timeline/palette';
import { useQuery } from '../state/use_query';
import { toCsv } from '../base/csv';
import { download } from './snapshot';

interface Props {
  client: EngineClient;
  run: number | null;
  meta: ScenarioMeta;
  loaded: LoadedVariant[];
}

const W = 420;
const NO_LATENCIES: { key: string; lat: number[] }[] = [];
const BAR_H = 14;

function ShareChart({ meta, loaded }: { meta: ScenarioMeta; loaded: LoadedVariant[] }) {
  const rows = meta.tasks.map((t) => t.name);
  const y = scaleBand<string>().domain(rows).range([0, rows.length * (BAR_H * loaded.length + 6)]).paddingInner(0.1);
  const max = Math.max(1, ...loaded.flatMap((v) => v.summary.tasks.map((t) => t.share_pct)));
  const x = scaleLinear().domain([0, max]).range([0, W - 190]);
  return (
    <svg width={W} height={y.range()[1] + 4} role="img" aria-label="CPU share per task" data-testid="share-chart">
      {rows.map((name, ti) => (
        <g key={name} transform={`translate(0,${y(name)})`}>
          <text x={0} y={BAR_H - 3} className="label">
            {name}
          </text>
          {loaded.map((v, vi) => {
            const share = v.summary.tasks[ti]?.share_pct ?? 0;
            return (
              <g key={v.key} transform={`translate(100,${vi * BAR_H})`}>
                <rect width={x(share)} height={BAR_H - 2} fill={taskColor(ti)} opacity={vi === 0 ? 1 : 0.6} />
                <text x={x(share) + 4} y={BAR_H - 4} className="value">
                  {share.toFixed(2)} %{loaded.length > 1 ? ` ${v.key}` : ''}
                </text>
              </g>
            );
          })}
        </g>
      ))}
    </svg>
  );
}

/** A latency bucket's label: its lower bound (bucket 0: below 1 µs), short enough to fit. */
function latencyLabel(b: number): string {
  if (b === 0) return '<1µs';
  const us = 2 ** (b - 1);
  if (us < 1000) return `${us}µs`;
  const ms = us / 1000;
  return ms < 1000 ? `${ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0)}ms` : `${(ms / 1000).toFixed(2)}s`;
}

/** Width of a tick label at the charts' 11 px font, px: a generous estimate (digits and
 * lower-case letters are at most about 6.5 px wide there). */
function tickWidth(text: string): number {
  return text.length * 6.5;
}

/** The chart's width: its box's, between 200 and W px (the labels keep their size; fewer of
 * them fit a narrower chart). */
function useChartWidth(): [RefObject<HTMLDivElement | null>, number] {
  const ref = useRef<HTMLDivElement>(null);
  const [w, setW] = useState(W);
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === 'undefined') return;
    const fit = (px: number) => setW(Math.max(200, Math.min(W, Math.floor(px))));
    fit(el.clientWidth);
    const ro = new ResizeObserver((entries) => fit(entries[0]?.contentRect.width ?? W));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  return [ref, w];
}

const LatencyChart = memo(function LatencyChart({ data }: { data: { key: string; lat: number[] }[] }) {
  const [box, width] = useChartWidth();
  // Power-of-two buckets from 1 µs; bucket 0 holds latencies below 1 µs (immediate runs).
  const bucketOf = (ns: number) => (ns < 1000 ? 0 : Math.min(24, 1 + Math.floor(Math.log2(ns / 1000))));
  // Loops, not spreads: a run can have hundreds of thousands of wakeups.
  let top = 1;
  for (const d of data) for (const l of d.lat) top = Math.max(top, bucketOf(l));
  const nb = 1 + top;
  const counts = data.map((d) => {
    const c = new Array<number>(nb).fill(0);
    d.lat.forEach((l) => c[bucketOf(l)]++);
    return c;
  });
  const max = counts.reduce((m, c) => c.reduce((a, n) => Math.max(a, n), m), 1);
  // The left margin holds the count at the top of the axis.
  const left = Math.max(24, tickWidth(String(max)) + 6);
  const x = scaleBand<number>().domain([...Array(nb).keys()]).range([left, width - 2]).paddingInner(0.15);
  const y = scaleLinear().domain([0, max]).range([90, 0]);
  const bw = x.bandwidth() / Math.max(1, data.length);
  // Every n-th bucket gets a label, n chosen so the widest label fits between two of them;
  // a label is centred under its bucket but kept inside the chart.
  const labels = [...Array(nb).keys()].map(latencyLabel);
  const widest = labels.reduce((m, l) => Math.max(m, tickWidth(l)), 0);
  const every = Math.max(1, Math.ceil((widest + 8) / x.step()));
  const ticks = [...Array(nb).keys()].filter((b) => b % every === 0);
  return (
    <div ref={box} className="chart-box">
    <svg width={width} height={120} viewBox={`0 0 ${width} 120`} style={{ maxWidth: '100%', height: 'auto' }} role="img" aria-label="wakeup latency distribution" data-testid="latency-chart">
      {counts.map((c, vi) =>
        c.map((n, b) => <rect key={`${vi}-${b}`} x={(x(b) ?? 0) + vi * bw} y={y(n)} width={bw} height={90 - y(n)} className={`lat v${vi}`} />),
      )}
      <line x1={left} x2={width - 2} y1={90.5} y2={90.5} stroke="#bbb" />
      {ticks.map((b) => {
        const w = tickWidth(labels[b]);
        const centre = (x(b) ?? 0) + x.bandwidth() / 2;
        const at = Math.min(Math.max(centre, w / 2 + 1), width - w / 2 - 1);
        return (
          <text key={b} x={at} y={105} className="tick" textAnchor="middle" data-testid="latency-tick">
            {labels[b]}
          </text>
        );
      })}
      <text x={left - 4} y={10} className="tick" textAnchor="end" data-testid="latency-tick">
        {max}
      </text>
      <text x={left - 4} y={92} className="tick" textAnchor="end">
        0
      </text>
    </svg>
    </div>
  );
});

type TaskRow = Summary['tasks'][number];
/** A column of the metrics table: its heading, its CSV name, the value and how it is shown. */
type Col = [string, string, (t: TaskRow) => number, (n: number) => string];

/** The metrics table's columns for these runs (vCPU columns when any run has vCPU activity). */
export function metricColumns(summaries: { s: Summary }[]): Col[] {
  const cols: Col[] = [
    ['share %', 'share_pct', (t) => t.share_pct, (n) => n.toFixed(2)],
    ['switches', 'switches_out', (t) => t.switches_out, (n) => String(n)],
    ['mean run', 'mean_run_ns', (t) => t.mean_run_ns, formatNs],
    ['wakeup p99', 'wakeup_p99_ns', (t) => t.wakeup_latency_ns.p99, formatNs],
    ['yields', 'yields', (t) => t.yields, (n) => String(n)],
  ];
  // vCPU scenarios: guest progress and the directed-yield machinery.
  if (summaries.some(({ s }) => s.tasks.some((t) => t.guest_locks + t.ipis_answered + t.yield_to_calls > 0))) {
    cols.push(
      ['guest ops', 'guest_ops', (t) => t.guest_locks + t.ipis_answered, (n) => String(n)],
      ['PLE exits', 'ple_exits', (t) => t.ple_exits, (n) => String(n)],
      ['yield_to', 'yield_to_calls', (t) => t.yield_to_calls, (n) => String(n)],
      ['IPI latency', 'ipi_latency_ns_mean', (t) => t.ipi_latency_ns_mean, formatNs],
    );
  }
  return cols;
}

/** The metrics of every task under every variant as CSV (raw numbers: ns, %, counts). */
export function metricsCsv(meta: ScenarioMeta, summaries: { key: string; s: Summary }[]): string {
  const extra: [string, (t: TaskRow) => number][] = [
    ['cpu_time_ns', (t) => t.cpu_time_ns],
    ['wakeups', (t) => t.wakeups],
    ['wakeup_p50_ns', (t) => t.wakeup_latency_ns.p50],
    ['wakeup_max_ns', (t) => t.wakeup_latency_ns.max],
  ];
  const cols = metricColumns(summaries);
  const header = ['task', 'variant', ...cols.map((c) => c[1]), ...extra.map((e) => e[0])];
  const rows = meta.tasks.flatMap((task, ti) =>
    summaries.map(({ key, s }) => [task.name, key, ...cols.map((c) => c[2](s.tasks[ti])), ...extra.map((e) => e[1](s.tasks[ti]))]),
  );
  return toCsv(header, rows);
}

function DiffTable({ meta, summaries }: { meta: ScenarioMeta; summaries: { key: string; s: Summary }[] }) {
  const base = summaries[0];
  const cols = metricColumns(summaries);
  return (
    <table className="diff" data-testid="metrics-table">
      <thead>
        <tr>
          <th>task</th>
          <th>variant</th>
          {cols.map(([c]) => (
            <th key={c}>{c}</th>
          ))}
        </tr>
      </thead>
      <tbody>
        {meta.tasks.map((task, ti) =>
          summaries.map(({ key, s }, vi) => (
            <tr key={`${ti}-${key}`}>
              <td>{vi === 0 ? task.name : ''}</td>
              <td>{key}</td>
              {cols.map(([c, , f, fmt]) => {
                const val = f(s.tasks[ti]);
                const d = vi === 0 ? null : val - f(base.s.tasks[ti]);
                return (
                  <td key={c}>
                    {fmt(val)}
                    {d !== null && d !== 0 && <span className={d > 0 ? 'up' : 'down'}> ({d > 0 ? '+' : '−'}{fmt(Math.abs(d))})</span>}
                  </td>
                );
              })}
            </tr>
          )),
        )}
      </tbody>
    </table>
  );
}

/** Copy and download buttons for a CSV text. */
export function CsvButtons({ csv, name, testid }: { csv: () => string; name: string; testid: string }) {
  const [copied, setCopied] = useState<string | null>(null);
  return (
    <span className="csv-buttons" data-testid={testid}>
      <button
        onClick={() => {
          const text = csv();
          navigator.clipboard?.writeText(text).then(
            () => setCopied('copied'),
            () => setCopied('the clipboard refused; use Download'),
          );
        }}
      >
        Copy CSV
      </button>
      <button onClick={() => download(csv(), name, 'text/csv')}>Download CSV</button>
      {copied && <small className="muted"> {copied}</small>}
    </span>
  );
}

export const MetricsPanel = memo(function MetricsPanel({ client, run, meta, loaded }: Props) {
  // Every variant's wakeup latencies, once per run.
  const fetch = useCallback(
    () => (run === null ? Promise.resolve([]) : Promise.all(loaded.map((v) => client.metrics(run, v.key).then((m) => ({ key: v.key, lat: Array.from(m.latencies.ns) }))))),
    [client, run, loaded],
  );
  const latencies = useQuery(run === null ? null : `${run}`, fetch);
  return (
    <section className="metrics" aria-label="metrics" data-testid="metrics" data-switches={loaded.map((v) => v.summary.switches).join(',')}>
      <div>
        <h3>CPU share</h3>
        <ShareChart meta={meta} loaded={loaded} />
      </div>
      <div>
        <h3>Wakeup latency</h3>
        {latencies.error && (
          <p className="error" role="alert" data-testid="metrics-error">
            The latencies could not be read: {latencies.error}
          </p>
        )}
        <LatencyChart data={latencies.data ?? NO_LATENCIES} />
      </div>
      <div className="diff-wrap">
        <h3>
          {loaded.length > 1 ? `Metrics, Δ against ${loaded[0].key}` : 'Metrics'}{' '}
          <CsvButtons csv={() => metricsCsv(meta, loaded.map((v) => ({ key: v.key, s: v.summary })))} name={`${(meta.name || 'scenario').replace(/[^\w.-]+/g, '-')}-metrics.csv`} testid="metrics-csv" />
        </h3>
        <DiffTable meta={meta} summaries={loaded.map((v) => ({ key: v.key, s: v.summary }))} />
        <small className="muted">digests: {loaded.map((v) => `${v.key} ${v.digest}`).join(' · ')}</small>
      </div>
    </section>
  );
});
