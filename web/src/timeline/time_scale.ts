// Time helpers for the timeline: the ns → px scale, human-readable durations, nice axis
// ticks, and the pure view arithmetic (zoom, pan, clamp) the component and tests share.
import { scaleLinear, type ScaleLinear } from 'd3-scale';
import { format } from 'd3-format';
import { ticks, tickStep } from 'd3-array';

/** A linear scale from simulated time (ns) to CSS pixels. */
export type TimeScale = ScaleLinear<number, number>;

/** The smallest visible window, in ns. */
export const MIN_WINDOW_NS = 1000;

/** Builds the ns → px scale mapping [t0, t1] onto [x0, x1]. */
export function makeTimeScale(t0: number, t1: number, x0: number, x1: number): TimeScale {
  return scaleLinear().domain([t0, t1]).range([x0, x1]);
}

/**
 * The scale's affine form (x = x0 + (t − t0) · k), so inner drawing loops can avoid a
 * function call per slice or sample.
 */
export interface Affine {
  t0: number;
  x0: number;
  k: number;
}

export function affineOf(scale: TimeScale): Affine {
  const [t0, t1] = scale.domain();
  const [x0, x1] = scale.range();
  const span = t1 - t0;
  return { t0, x0, k: span > 0 ? (x1 - x0) / span : 0 };
}

const fixed3 = format('.3f');
const trimmed3 = format('.3~f');
const integer = format('.0f');

/** Formats a duration or instant in ns with a unit: "1.500 s", "4.000 ms", "300 µs", "42 ns". */
export function formatNs(ns: number): string {
  if (!Number.isFinite(ns)) return '—';
  const a = Math.abs(ns);
  if (a >= 1e9) return `${fixed3(ns / 1e9)} s`;
  if (a >= 1e6) return `${fixed3(ns / 1e6)} ms`;
  if (a >= 1e3) return `${trimmed3(ns / 1e3)} µs`;
  return `${integer(ns)} ns`;
}

/** Roughly `count` round tick positions inside [t0, t1]. */
export function niceTicks(t0: number, t1: number, count = 8): number[] {
  if (!(t1 > t0)) return [t0];
  return ticks(t0, t1, Math.max(1, count));
}

/**
 * A formatter for axis ticks over [t0, t1] spaced about `count` apart: one unit for the whole
 * axis (from the largest magnitude shown) and just enough decimals to tell ticks apart.
 */
export function tickFormatter(t0: number, t1: number, count = 8): (ns: number) => string {
  const step = Math.abs(tickStep(t0, t1, Math.max(1, count))) || 1;
  const m = Math.max(Math.abs(t0), Math.abs(t1));
  const [unit, name] = m >= 1e9 ? [1e9, 's'] : m >= 1e6 ? [1e6, 'ms'] : m >= 1e3 ? [1e3, 'µs'] : [1, 'ns'];
  const decimals = Math.min(9, Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9)));
  const f = format(`.${decimals}f`);
  return (ns: number) => `${f(ns / unit)} ${name}`;
}

/** Clamps a view to [0, duration] keeping at least MIN_WINDOW_NS, preserving the span if it can. */
export function clampView(t0: number, t1: number, duration: number): [number, number] {
  const maxSpan = Math.max(duration, MIN_WINDOW_NS);
  let span = Math.min(Math.max(t1 - t0, MIN_WINDOW_NS), maxSpan);
  if (!Number.isFinite(span)) span = maxSpan;
  let a = Number.isFinite(t0) ? t0 : 0;
  if (a < 0) a = 0;
  if (a + span > maxSpan) a = maxSpan - span;
  return [a, a + span];
}

/** Zooms by `factor` (< 1 zooms in) keeping the instant `anchor` at the same pixel. */
export function zoomView(t0: number, t1: number, anchor: number, factor: number, duration: number): [number, number] {
  const a = Math.min(Math.max(anchor, t0), t1);
  const span = t1 - t0;
  let next = Math.max(span * factor, MIN_WINDOW_NS);
  next = Math.min(next, Math.max(duration, MIN_WINDOW_NS));
  const frac = span > 0 ? (a - t0) / span : 0.5;
  const n0 = a - frac * next;
  return clampView(n0, n0 + next, duration);
}

/** Pans by `dt` ns (positive moves the window later). */
export function panView(t0: number, t1: number, dt: number, duration: number): [number, number] {
  return clampView(t0 + dt, t1 + dt, duration);
}

/** What a timeline key does: W/S zoom about the cursor (or the middle), A/D pan, ←/→ move the
 * cursor; null for any other key. Shared by the scenario and the replay timelines. */
export function navKey(
  key: string,
  t0: number,
  t1: number,
  cursor: number,
  duration: number,
): { view: [number, number] } | { cursor: number } | null {
  const span = t1 - t0;
  const anchor = cursor >= t0 && cursor <= t1 ? cursor : (t0 + t1) / 2;
  switch (key) {
    case 'w':
    case 'W':
      return { view: zoomView(t0, t1, anchor, 0.8, duration) };
    case 's':
    case 'S':
      return { view: zoomView(t0, t1, anchor, 1.25, duration) };
    case 'a':
    case 'A':
      return { view: panView(t0, t1, -0.2 * span, duration) };
    case 'd':
    case 'D':
      return { view: panView(t0, t1, 0.2 * span, duration) };
    case 'ArrowLeft':
    case 'ArrowRight':
      return { cursor: Math.min(duration, Math.max(0, cursor + (key === 'ArrowLeft' ? -0.01 : 0.01) * span)) };
    default:
      return null;
  }
}
