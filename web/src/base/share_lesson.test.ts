// Share links with a lesson step: the step travels as L: [id, step]; links made before lessons
// existed (no L) still decode, unchanged; malformed lesson fields are refused.
import { describe, expect, it } from 'vitest';
import { decodeState, encodeState, toBase64Url, type ViewState } from './share';

const view: ViewState = {
  scenario: { kind: 'bundled', name: 'lessons/eevdf-basics', hash: '0123456789ab' },
  variants: [{ key: 'baseline', overrides: [] }, { key: 'base_slice=3ms', overrides: [['base_slice', '3ms']] }],
  window: [0, 40e6],
  cursor: 30.5e6,
  selection: null,
  panels: ['inspector', 'metrics'],
  mode: 'relative',
  lesson: { id: 'eevdf-basics', step: 3 },
};

async function fragmentOf(json: string): Promise<string> {
  const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return 's1.' + toBase64Url(new Uint8Array(await new Response(stream).arrayBuffer()));
}

describe('lesson links', () => {
  it('round-trip the lesson step', async () => {
    const frag = await encodeState(view);
    expect(await decodeState(frag)).toStrictEqual({ ok: true, state: view });
    expect(frag.length).toBeLessThan(400);
  });

  it('decode a link made before lessons existed, without a lesson', async () => {
    // The compact form of the codec before the L field existed, deflated independently
    // (node's zlib), for scenario gallery/sleeper-vs-hog.
    const old = 's1.LY3BDoIwEAX_5Z2XCAoe9leaHtqyYJOlNC1ijPHfDcE5zZzmAw82mJ2qlPelqkiW0uy1eawzCK7z13AbexmmOyxhBxsD76poTAIy1lrCC2xa6tsTSwjg7l8EBaenKiEfKxnjthYQYqpZwumLbCWGehwWMAq-Pw';
    const r = await decodeState(old);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.state.lesson).toBeUndefined();
    expect(r.state).toStrictEqual({
      scenario: { kind: 'bundled', name: 'gallery/sleeper-vs-hog', hash: 'a1b2c3d4e5f6' },
      variants: [{ key: 'baseline', overrides: [] }],
      window: [0, 40e6],
      cursor: 10e6,
      selection: null,
      panels: ['editor', 'inspector', 'metrics'],
      mode: 'relative',
    });
  });

  it('refuse malformed lesson fields', async () => {
    const base = { b: ['x', '0123456789ab'], v: [], w: [0, 10], c: 5, l: null, p: [] };
    const bad = async (L: unknown) => {
      const r = await decodeState(await fragmentOf(JSON.stringify({ ...base, L })));
      expect(r.ok).toBe(false);
      return r.ok ? '' : r.error;
    };
    expect(await bad(['Bad Id', 0])).toContain('the lesson id must be 1 to 64 lowercase letters');
    expect(await bad(['eevdf-basics', -1])).toContain('the lesson step must be an integer from 0 to 999');
    expect(await bad(['eevdf-basics', 1.5])).toContain('the lesson step must be an integer');
    expect(await bad('eevdf-basics')).toContain('the lesson must be [id, step]');
  });
});
