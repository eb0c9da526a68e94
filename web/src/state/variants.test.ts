import { describe, expect, it } from 'vitest';
import { ENGINE_PRESETS, parseOverrides, presetSpec, PRESETS } from './variants';
import { GUIDE, guideVariants, liveRows } from './guide';
import { findScenario } from './gallery';
import { ENGINE_VARIANTS } from '../engine/protocol';
import { summary, taskSummary } from '../timeline/fixtures';

describe('variants', () => {
  it('parses overrides', () => {
    expect(parseOverrides('RUN_TO_PARITY=false, hz=1000')).toEqual([
      ['RUN_TO_PARITY', 'false'],
      ['hz', '1000'],
    ]);
    expect(parseOverrides('')).toEqual([]);
    expect(typeof parseOverrides('oops')).toBe('string');
    expect(typeof parseOverrides('=x')).toBe('string');
  });
  it('has unique preset keys and a baseline first', () => {
    expect(PRESETS[0].key).toBe('baseline');
    expect(new Set(PRESETS.map((p) => p.key)).size).toBe(PRESETS.length);
  });
  it("offers the engine's named variants first, in the engine's order (from the generated contract)", () => {
    expect(ENGINE_VARIANTS.length).toBeGreaterThanOrEqual(10);
    expect(PRESETS.slice(0, ENGINE_VARIANTS.length).map((p) => [p.key, p.overrides, p.doc])).toEqual(ENGINE_VARIANTS.map((v) => [v.key, v.overrides, v.doc]));
    expect(ENGINE_PRESETS.length).toBe(ENGINE_VARIANTS.length);
  });
  it('keeps the UI-only variants', () => {
    for (const k of ['no-run-to-parity', 'no-preempt-short', 'no-delay-dequeue', 'no-place-lag', 'next-buddy', 'old-lag-clamp', 'hz-1000']) {
      expect(presetSpec(k), k).toBeDefined();
    }
  });
});

describe('debooster guide', () => {
  it('names bundled scenarios and at most 4 known variants per claim', () => {
    for (const c of GUIDE) {
      expect(findScenario(c.scenario), c.id).toBeDefined();
      expect(c.variants.length, c.id).toBeGreaterThan(0);
      expect(c.variants.length, c.id).toBeLessThanOrEqual(4);
      expect(guideVariants(c).map((v) => v.key)).toEqual(c.variants);
      for (const k of Object.keys(c.expected)) expect(c.variants, `${c.id} expects ${k}`).toContain(k);
    }
  });
  it('reads the yield_to and cputimer figures of the summaries', () => {
    const [task, s] = [taskSummary, summary];
    const c = GUIDE.find((g) => g.id === 'bystander')!;
    const rows = liveRows(c, [
      { key: 'baseline', summary: s([task('A', 11.3, { yield_to_picks_mean: 1.958 }), task('C', 38.8), task('B', 49.9)], { yield_to: { calls: 113, penalties: 0, rate_limited: 0, debounced: 0, credits: 0 } }) },
      { key: 'debooster-v1', summary: s([task('A', 7.7), task('C', 28), task('B', 64.3)]) },
    ]);
    expect(rows[0].cells).toContain('38.80');
    expect(rows[0].cells).toContain('0/113');
    expect(rows[1].cells).toContain('28.00');
    expect(rows[1].cells).toContain('0/0');
    const storm = GUIDE.find((g) => g.id === 'yield-storm')!;
    const sr = liveRows(storm, [
      { key: 'baseline', summary: s([task('y0', 50, { yields: 10, yields_scheduled: 10 }), task('y1', 50, { yields: 10, yields_scheduled: 10 })], { cputimer: { atomic_ns: 1, adds: 1, atomic_pct: 77.39 } }) },
      { key: 'yield-throttle-10us', summary: s([task('y0', 50, { yields: 100, yields_scheduled: 4 }), task('y1', 50, { yields: 100, yields_scheduled: 3 })], { cputimer: null }) },
    ]);
    expect(sr[0].cells).toEqual(['77.39 %', '20', '20', '']);
    expect(sr[1].cells).toEqual(['–', '200', '7', '65.0 % fewer']);
  });
});
