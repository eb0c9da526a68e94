// Overlaid CDFs of one task's wakeup latency in A and in B: the share of wakeups (y) served
// within a latency (x, µs, log scale). The svg reports what it drew in data attributes
// (data-comm, data-points-a/-b, data-n-a/-b).
import { memo, useMemo } from 'react';
import { scaleLinear, scaleLog } from 'd3-scale';
import { cdfPoints, type CdfPoint } from './ab_diff';

export const A_COLOUR = '#1f6fb4';
export const B_COLOUR = '#e0701a';
const W = 250;
const H = 140;
const M = { left: 30, right: 8, top: 16, bottom: 22 };

/** Latencies below this are drawn at it (a log axis has no 0), µs. */
const MIN_US = 0.1;

function stepPath(pts: CdfPoint[], x: (us: number) => number, y: (p: number) => number): string {
  if (pts.length === 0) return '';
  const us = (ns: number) => Math.max(MIN_US, ns / 1000);
  let d = `M${x(us(pts[0].ns)).toFixed(1)},${y(0).toFixed(1)}`;
  for (let i = 0; i < pts.length; i++) {
    d += `V${y(pts[i].p).toFixed(1)}`;
    if (i + 1 < pts.length) d += `H${x(us(pts[i + 1].ns)).toFixed(1)}`;
  }
  return d;
}

function tickLabel(us: number): string {
  return us >= 1000 ? `${us / 1000} ms` : `${us} µs`;
}

interface Props {
  comm: string;
  /** Ascending latencies (ns). */
  a: Float64Array;
  b: Float64Array;
}

export const LatencyCdf = memo(function LatencyCdf({ comm, a, b }: Props) {
  const pa = useMemo(() => cdfPoints(a), [a]);
  const pb = useMemo(() => cdfPoints(b), [b]);
  const lo = Math.max(MIN_US, Math.min(a.length ? a[0] : Infinity, b.length ? b[0] : Infinity) / 1000);
  const hi = Math.max(lo * 10, Math.max(a.length ? a[a.length - 1] : 0, b.length ? b[b.length - 1] : 0) / 1000);
  const x = scaleLog().domain([lo, hi]).range([M.left, W - M.right]).nice();
  const y = scaleLinear().domain([0, 1]).range([H - M.bottom, M.top]);
  const decades = x.ticks().filter((t) => Math.abs(Math.log10(t) - Math.round(Math.log10(t))) < 1e-9);
  return (
    <figure className="ab-cdf">
      <svg
        width={W}
        height={H}
        viewBox={`0 0 ${W} ${H}`}
        role="img"
        aria-label={`wakeup latency CDF of ${comm}, A and B`}
        data-testid="ab-cdf"
        data-comm={comm}
        data-points-a={pa.length}
        data-points-b={pb.length}
        data-n-a={a.length}
        data-n-b={b.length}
      >
        <text x={M.left} y={11} className="tick" fontWeight={600}>
          {comm}
        </text>
        <text x={W - M.right} y={11} className="tick" textAnchor="end">
          n {a.length} / {b.length}
        </text>
        {[0, 0.5, 1].map((p) => (
          <g key={p}>
            <line x1={M.left} x2={W - M.right} y1={y(p)} y2={y(p)} stroke="#eef0f2" />
            <text x={M.left - 3} y={y(p) + 3} className="tick" textAnchor="end">
              {p}
            </text>
          </g>
        ))}
        {decades.map((t) => (
          <g key={t}>
            <line x1={x(t)} x2={x(t)} y1={M.top} y2={H - M.bottom} stroke="#eef0f2" />
            <text x={x(t)} y={H - 8} className="tick" textAnchor={x(t) > W - M.right - 16 ? 'end' : 'middle'}>
              {tickLabel(t)}
            </text>
          </g>
        ))}
        <path d={stepPath(pa, x, y)} fill="none" stroke={A_COLOUR} strokeWidth={1.5} data-side="a" />
        <path d={stepPath(pb, x, y)} fill="none" stroke={B_COLOUR} strokeWidth={1.5} strokeDasharray="4 2" data-side="b" />
      </svg>
    </figure>
  );
});
