// The timeline's top time axis: an <svg> whose tick group D3 (d3-axis via d3-selection) owns;
// React owns only the <svg> and the window-length label in the gutter.
import { memo, useLayoutEffect, useRef } from 'react';
import { axisTop } from 'd3-axis';
import { select } from 'd3-selection';
import { AXIS_H, GUTTER_W } from './layout';
import { formatNs, makeTimeScale, niceTicks, tickFormatter } from './time_scale';

export interface TimeAxisProps {
  t0: number;
  t1: number;
  /** Width of the whole timeline, CSS px (the axis spans the part right of the gutter). */
  width: number;
}

export const TimeAxis = memo(function TimeAxis({ t0, t1, width }: TimeAxisProps) {
  const g = useRef<SVGGElement>(null);
  useLayoutEffect(() => {
    if (!g.current) return;
    const sel = select(g.current);
    if (width <= GUTTER_W + 10) {
      sel.selectAll('*').remove();
      return;
    }
    const count = Math.max(2, Math.floor((width - GUTTER_W) / 120));
    const fmt = tickFormatter(t0, t1, count);
    const axis = axisTop(makeTimeScale(t0, t1, GUTTER_W, width))
      .tickValues(niceTicks(t0, t1, count))
      .tickFormat((d) => fmt(Number(d)))
      .tickSizeOuter(0);
    sel.call(axis);
  }, [t0, t1, width]);
  return (
    <svg width={Math.max(width, 0)} height={AXIS_H} style={{ display: 'block', overflow: 'visible' }} aria-label="time axis">
      {/* Left of the first tick label (centred on the gutter's edge): "window" on its own line
          above the length, so neither runs into "0 ms". */}
      <text x={6} y={AXIS_H - 8} fontSize={10} fill="#6e7781" data-testid="window-length">
        <title>the window's length</title>
        <tspan x={6} dy={-9}>
          window
        </tspan>
        <tspan x={6} dy={10}>
          {formatNs(t1 - t0)}
        </tspan>
      </text>
      <g ref={g} transform={`translate(0, ${AXIS_H - 1})`} />
    </svg>
  );
});
