// Tests of the task palette: stable, distinct, and cycling with lightness variation.
import { describe, expect, it } from 'vitest';
import { BASE_COLOURS, luminance, taskColour, taskColourMerged, taskTextColour } from './palette';

describe('palette', () => {
  it('gives a task the same colour every time', () => {
    for (let id = 0; id < 40; id++) expect(taskColour(id)).toBe(taskColour(id));
  });
  it('has at least 12 distinct colours for the first 12 tasks', () => {
    expect(BASE_COLOURS.length).toBeGreaterThanOrEqual(12);
    const first = new Set(Array.from({ length: 12 }, (_, i) => taskColour(i)));
    expect(first.size).toBe(12);
  });
  it('varies lightness when it cycles', () => {
    const n = BASE_COLOURS.length;
    expect(taskColour(n)).not.toBe(taskColour(0));
    expect(taskColour(2 * n)).not.toBe(taskColour(n));
    const all = new Set(Array.from({ length: 3 * n }, (_, i) => taskColour(i)));
    expect(all.size).toBe(3 * n);
  });
  it('returns #rrggbb colours and a darker merged colour', () => {
    for (let id = 0; id < 30; id++) {
      expect(taskColour(id)).toMatch(/^#[0-9a-f]{6}$/i);
      expect(luminance(taskColourMerged(id))).toBeLessThan(luminance(taskColour(id)));
      expect(['#000000', '#ffffff']).toContain(taskTextColour(id));
    }
  });
});
