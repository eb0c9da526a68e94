import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENGINE_PRESETS, parseOverrides, presetSpec, PRESETS } from './variants';
import { GUIDE, guideVariants, liveRows } from './guide';
import { findScenario } from './gallery';
import type { Summary } from '../engine/protocol';

const HERE = dirname(fileURLToPath(import.meta.url));
const VARIANTS_RS = resolve(HERE, '../../../wasm-engine/engine/src/scenario/variants.rs');

/** The engine's named variants, read from the Rust source: name, overrides, doc. */
function engineVariants(): { name: string; overrides: [string, string][]; doc: string }[] {
  const text = readFileSync(VARIANTS_RS, 'utf8');
  const body = text.slice(text.indexOf('pub const VARIANTS'));
  const unq = (s: string) => s.replace(/\\(.)/g, '$1');
  const out: { name: string; overrides: [string, string][]; doc: string }[] = [];
  const re = /Variant\s*\{\s*name:\s*"((?:[^"\\]|\\.)*)",\s*overrides:\s*&\[([^\]]*)\],\s*doc:\s*"((?:[^"\\]|\\.)*)",?\s*\}/g;
  for (const m of body.matchAll(re)) {
    const overrides = [...m[2].matchAll(/\(\s*"((?:[^"\\]|\\.)*)"\s*,\s*"((?:[^"\\]|\\.)*)"\s*\)/g)].map(
      (o) => [unq(o[1]), unq(o[2])] as [string, string],
    );
    out.push({ name: unq(m[1]), overrides, doc: unq(m[3]) });
  }
  return out;
}

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
  it('mirrors every named variant of the engine (variants.rs), overrides identical', () => {
    const rs = engineVariants();
    // The parser must see every `Variant {` of the VARIANTS table, or the check is hollow.
    const text = readFileSync(VARIANTS_RS, 'utf8');
    const declared = text.slice(text.indexOf('pub const VARIANTS')).match(/Variant\s*\{/g)?.length ?? 0;
    expect(rs.length).toBe(declared);
    expect(rs.length).toBeGreaterThanOrEqual(10);
    for (const v of rs) {
      const p = PRESETS.find((x) => x.key === v.name);
      expect(p, `engine variant ${v.name} missing from PRESETS`).toBeDefined();
      expect(p!.overrides, v.name).toEqual(v.overrides);
    }
    // And the engine block of PRESETS names nothing the engine does not know.
    expect(ENGINE_PRESETS.map((p) => p.key)).toEqual(rs.map((v) => v.name));
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
  it('reads the new summary fields defensively', () => {
    const task = (name: string, share: number, extra: object = {}) => ({
      name, cpu_time_ns: 0, share_pct: share, switches_out: 0, switches_out_runnable: 0, mean_run_ns: 0, yields: 0, yields_to: 0, yield_to_calls: 0, guest_locks: 0, ple_exits: 0, ipis_answered: 0, ipi_latency_ns_mean: 0, wakeups: 0, sleeps: 0,
      wakeup_latency_ns: { p50: 0, p99: 0, max: 0 }, ...extra,
    });
    const s = (tasks: object[], extra: object = {}) => ({ scenario: 'x', duration_ns: 1, digest: '', log_events: 0, queue_events: 0, tasks, cpu_idle_ns: [], ...extra }) as Summary;
    const c = GUIDE.find((g) => g.id === 'bystander')!;
    const rows = liveRows(c, [
      { key: 'baseline', summary: s([task('A', 11.3, { yield_to_picks_mean: 1.958 }), task('C', 38.8), task('B', 49.9)], { yield_to: { calls: 113, penalties: 0, rate_limited: 0, debounced: 0, credits: 0 } }) },
      { key: 'debooster-v1', summary: s([task('A', 7.7), task('C', 28), task('B', 64.3)]) },
    ]);
    expect(rows[0].cells).toContain('38.80');
    expect(rows[0].cells).toContain('0/113');
    expect(rows[1].cells).toContain('28.00');
    expect(rows[1].cells).toContain('–');
    const storm = GUIDE.find((g) => g.id === 'yield-storm')!;
    const sr = liveRows(storm, [
      { key: 'baseline', summary: s([task('y0', 50, { yields: 10, yields_scheduled: 10 }), task('y1', 50, { yields: 10, yields_scheduled: 10 })], { cputimer: { atomic_ns: 1, adds: 1, atomic_pct: 77.39 } }) },
      { key: 'yield-throttle-10us', summary: s([task('y0', 50, { yields: 100, yields_scheduled: 4 }), task('y1', 50, { yields: 100, yields_scheduled: 3 })], { cputimer: null }) },
    ]);
    expect(sr[0].cells).toEqual(['77.39 %', '20', '20', '']);
    expect(sr[1].cells).toEqual(['–', '200', '7', '65.0 % fewer']);
  });
});
