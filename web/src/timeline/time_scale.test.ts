// Tests of the time helpers: duration formatting, ticks, and the view arithmetic.
import { describe, expect, it } from 'vitest';
import { MIN_WINDOW_NS, affineOf, clampView, formatNs, makeTimeScale, niceTicks, panView, tickFormatter, zoomView } from './time_scale';

describe('formatNs', () => {
  it('picks a unit and a sensible precision', () => {
    expect(formatNs(1.5e9)).toBe('1.500 s');
    expect(formatNs(4e6)).toBe('4.000 ms');
    expect(formatNs(300e3)).toBe('300 µs');
    expect(formatNs(1234)).toBe('1.234 µs');
    expect(formatNs(42)).toBe('42 ns');
    expect(formatNs(0)).toBe('0 ns');
  });
  it('keeps the sign of negative values and survives non-finite ones', () => {
    expect(formatNs(-2.5e6)).toMatch(/^[-−]2\.500 ms$/);
    expect(formatNs(NaN)).toBe('—');
  });
});

describe('ticks', () => {
  it('are round and inside the window', () => {
    const t = niceTicks(0, 10e6, 5);
    expect(t[0]).toBe(0);
    expect(t.every((v) => v >= 0 && v <= 10e6)).toBe(true);
    expect(t).toContain(2e6);
  });
  it('format with one unit and enough decimals to tell them apart', () => {
    const f = tickFormatter(1.5e9, 1.5e9 + 1e6, 5);
    expect(f(1.5002e9)).toBe('1.5002 s');
  });
});

describe('scale', () => {
  it('maps the window onto the plot and back', () => {
    const s = makeTimeScale(1000, 2000, 110, 1110);
    expect(s(1500)).toBe(610);
    expect(s.invert(110)).toBe(1000);
    expect(affineOf(s)).toEqual({ t0: 1000, x0: 110, k: 1 });
  });
});

describe('view arithmetic', () => {
  const D = 1e9;
  it('clamps to [0, duration] and keeps the minimum window', () => {
    expect(clampView(-500, 1500, D)).toEqual([0, 2000]);
    expect(clampView(D - 10, D + 90, D)).toEqual([D - MIN_WINDOW_NS, D]);
    expect(clampView(D - 10, D + 1990, D)).toEqual([D - 2000, D]);
    const [a, b] = clampView(100, 101, D);
    expect(b - a).toBe(MIN_WINDOW_NS);
    expect(clampView(-5, 2 * D, D)).toEqual([0, D]);
  });
  it('zooms around the anchor', () => {
    const [a, b] = zoomView(0, 1e6, 250e3, 0.5, D);
    expect(b - a).toBe(0.5e6);
    expect((250e3 - a) / (b - a)).toBeCloseTo(0.25);
    const [c, d] = zoomView(0, 2000, 1000, 0.01, D);
    expect(d - c).toBe(MIN_WINDOW_NS);
  });
  it('pans and stops at the ends', () => {
    expect(panView(0, 1e6, 2e5, D)).toEqual([2e5, 1.2e6]);
    expect(panView(0, 1e6, -2e5, D)).toEqual([0, 1e6]);
  });
});
