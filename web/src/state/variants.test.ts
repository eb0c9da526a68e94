import { describe, expect, it } from 'vitest';
import { parseOverrides, PRESETS } from './variants';

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
});
