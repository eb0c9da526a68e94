import { describe, expect, it } from 'vitest';
import type { DiffLatencyCols, Figure, TraceDiff } from '../../engine/protocol';
import { cdfPoints, diffCsv, emptyRow, formatFigure, formatRelative, parseMatches, presence, splitLatencies } from './ab_diff';

const fig = (name: string, unit: Figure['unit'], a: number | null, b: number | null, flagged = false, counts: [number, number] | null = null): Figure => ({
  name,
  unit,
  a,
  b,
  delta: a !== null && b !== null ? b - a : null,
  relative_pct: a ? ((b ?? 0) - a) / a * 100 : null,
  counts,
  flagged,
});

describe('cdfPoints', () => {
  it('steps at the last sample of each run of equal values', () => {
    expect(cdfPoints([1, 2, 2, 5])).toEqual([
      { ns: 1, p: 0.25 },
      { ns: 2, p: 0.75 },
      { ns: 5, p: 1 },
    ]);
  });
  it('is empty for no samples', () => {
    expect(cdfPoints([])).toEqual([]);
  });
  it('thins to evenly spaced ranks, keeping the first and the last', () => {
    const v = Float64Array.from({ length: 10_000 }, (_, i) => i);
    const pts = cdfPoints(v, 101);
    expect(pts).toHaveLength(101);
    expect(pts[0]).toEqual({ ns: 0, p: 1 / 10_000 });
    expect(pts[100]).toEqual({ ns: 9999, p: 1 });
    expect(pts[50]).toEqual({ ns: 5000, p: 5001 / 10_000 });
    for (let i = 1; i < pts.length; i++) expect(pts[i].p).toBeGreaterThan(pts[i - 1].p);
  });
});

describe('splitLatencies', () => {
  it('splits the columns by row and side, a side without samples empty', () => {
    const cols: DiffLatencyCols = {
      row: Uint32Array.from([0, 0, 0, 2, 2]),
      side: Uint32Array.from([0, 0, 1, 1, 1]),
      ns: Float64Array.from([10, 20, 15, 7, 9]),
    };
    const s = splitLatencies(cols, 3);
    expect(Array.from(s[0].a)).toEqual([10, 20]);
    expect(Array.from(s[0].b)).toEqual([15]);
    expect(s[1].a.length + s[1].b.length).toBe(0);
    expect(s[2].a.length).toBe(0);
    expect(Array.from(s[2].b)).toEqual([7, 9]);
  });
});

describe('figures', () => {
  it('are written as schedlab diff prints them', () => {
    expect(formatFigure('percent', 42.6049)).toBe('42.60');
    expect(formatFigure('ns', 2386_400)).toBe('2386.4');
    expect(formatFigure('per_second', -12.34, true)).toBe('-12.3');
    expect(formatFigure('per_second', 3, true)).toBe('+3.0');
    expect(formatFigure('depth', null)).toBe('-');
    expect(formatRelative(fig('cpu', 'percent', 40, 50))).toBe('+25.0 %');
    expect(formatRelative(fig('cpu', 'percent', null, 50))).toBe('');
  });

  it('go to CSV one line per figure, rows of tasks then CPUs', () => {
    const d = {
      tasks: [
        { comm: 'k_a', comm_b: null, tasks_a: 1, tasks_b: 1, cpu_ns_a: 1, cpu_ns_b: 2, flagged: 1, figures: [fig('cpu', 'percent', 40, 60, true), fig('switches', 'per_second', 100, 101, false, [100, 101])] },
        { comm: 'old', comm_b: 'new', tasks_a: 1, tasks_b: 0, cpu_ns_a: 1, cpu_ns_b: 0, flagged: 0, figures: [fig('cpu', 'percent', 1, null)] },
      ],
      cpus: [{ cpu: 1, flagged: 0, figures: [fig('mean_depth', 'depth', 1.5, 1.5)] }],
    } as unknown as TraceDiff;
    const lines = diffCsv(d).trimEnd().split('\r\n');
    expect(lines[0]).toBe('row,name,name_b,figure,unit,a,b,delta,relative_pct,count_a,count_b,flagged');
    expect(lines[1]).toBe('task,k_a,,cpu,percent,40,60,20,50,,,1');
    expect(lines[2]).toBe('task,k_a,,switches,per_second,100,101,1,1,100,101,0');
    expect(lines[3]).toBe('task,old,new,cpu,percent,1,,,-100,,,0');
    expect(lines[4]).toBe('cpu,1,,mean_depth,depth,1.5,1.5,0,0,,,0');
    expect(presence(d.tasks[0])).toBe('both');
    expect(presence(d.tasks[1])).toBe('a');
    expect(emptyRow(d.tasks[0])).toBe(false);
    expect(emptyRow({ ...d.tasks[0], figures: [fig('cpu', 'percent', 0, null), fig('switches', 'per_second', 0, 0)] })).toBe(true);
  });
});

describe('parseMatches', () => {
  it('reads OLD=NEW pairs and locates a bad one', () => {
    expect(parseMatches(' k_a=k_b, worker/1 = worker/2\n')).toEqual({ matches: [['k_a', 'k_b'], ['worker/1', 'worker/2']] });
    expect(parseMatches('')).toEqual({ matches: [] });
    expect(parseMatches('k_a=k_b, oops')).toEqual({ error: '"oops": expected OLD=NEW (a comm of A = a comm of B)' });
    expect(parseMatches('=x')).toHaveProperty('error');
  });
});
