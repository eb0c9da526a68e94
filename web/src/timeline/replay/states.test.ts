import { describe, expect, it } from 'vitest';
import { SPAN_LOST, SPAN_OPEN } from '../../engine/protocol';
import { spanState } from './states';

describe('spanState', () => {
  it('decodes the engine codes the way the kernel prints prev_state', () => {
    expect(spanState(0).label).toBe('R');
    expect(spanState(0).kind).toBe('runnable');
    expect(spanState(0x100)).toMatchObject({ label: 'R+', kind: 'preempted' });
    expect(spanState(0x01)).toMatchObject({ label: 'S', kind: 'sleeping' });
    expect(spanState(0x02)).toMatchObject({ label: 'D', kind: 'disk' });
    expect(spanState(0x03)).toMatchObject({ label: 'S|D', kind: 'disk' });
    expect(spanState(0x80)).toMatchObject({ label: 'I', kind: 'idle' });
    expect(spanState(0x20)).toMatchObject({ label: 'Z', kind: 'stopped' });
    expect(spanState(0x8000_0000 | 1024)).toMatchObject({ label: '1024', kind: 'raw' });
    expect(spanState(SPAN_LOST)).toMatchObject({ label: '?', kind: 'lost' });
    expect(spanState(SPAN_OPEN)).toMatchObject({ label: '', kind: 'open' });
  });

  it('gives R, R+, S and D distinct colours', () => {
    const colours = new Set([0, 0x100, 0x01, 0x02].map((c) => spanState(c).colour));
    expect(colours.size).toBe(4);
  });
});
