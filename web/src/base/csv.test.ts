import { describe, expect, it } from 'vitest';
import { toCsv } from './csv';

describe('toCsv', () => {
  it('quotes what needs it and leaves numbers raw', () => {
    expect(toCsv(['task', 'ns'], [['a,b', 1500], ['say "hi"', 2], ['x\ny', null], ['nan', NaN]])).toBe(
      'task,ns\r\n"a,b",1500\r\n"say ""hi""",2\r\n"x\ny",\r\nnan,\r\n',
    );
  });
});
