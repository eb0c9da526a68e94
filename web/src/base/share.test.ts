// Tests of the share-link codec: round trips, link length for bundled scenarios, the
// decompression bound against zip-bomb-like payloads, and refusal of malformed links.
import { describe, expect, it } from 'vitest';
import { MAX_DECOMPRESSED_BYTES, decodeState, encodeState, shareUrl, toBase64Url, type ViewState } from './share';
import { contentHash } from './hash';

const TOO_LARGE = "The shared link's data is larger than 1 MB once decompressed; refused.";

/** Builds an s1 fragment from arbitrary JSON text, compressed independently of the codec. */
async function fragmentOf(json: string): Promise<string> {
  const stream = new Blob([json]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
  return 's1.' + toBase64Url(bytes);
}

/** Expects a refusal and returns its message. */
async function refused(fragment: string): Promise<string> {
  const r = await decodeState(fragment);
  expect(r.ok).toBe(false);
  if (r.ok) throw new Error('decoded unexpectedly');
  expect(r.error.length).toBeGreaterThan(10);
  return r.error;
}

const overrides: [string, string][] = [
  ['features.RUN_TO_PARITY', 'false'],
  ['base_slice', '3ms'],
  ['tasks.hog.nice', '-5'],
];
const bundled: ViewState = {
  scenario: { kind: 'bundled', name: 'two-hogs-and-an-interactive-task', hash: contentHash('scenario text') },
  variants: [
    { key: 'baseline', overrides },
    { key: 'no-parity', overrides: overrides.map(([k, v]) => [k, v + '1'] as [string, string]) },
    { key: 'short-slice', overrides: overrides.map(([k, v]) => [k + '2', v] as [string, string]) },
  ],
  window: [12_345_678, 98_765_432_100],
  cursor: 45_678_901_234,
  selection: 3,
  panels: ['editor', 'inspector', 'metrics'],
  mode: 'relative',
};
const valid = { b: ['x', '0123456789ab'], v: [], w: [0, 10], c: 5, l: null, p: [] };

describe('round trips', () => {
  it('restores a bundled state exactly', async () => {
    const frag = await encodeState(bundled);
    expect(frag.startsWith('s1.')).toBe(true);
    expect(frag).toMatch(/^s1\.[A-Za-z0-9_-]+$/);
    expect(await decodeState(frag)).toStrictEqual({ ok: true, state: bundled });
    expect(await decodeState('#' + frag)).toStrictEqual({ ok: true, state: bundled });
  });

  it('restores an inline state exactly, with unicode text and no mode', async () => {
    const s: ViewState = {
      scenario: { kind: 'inline', text: 'name = "ünïcødé ✓"\n[[task]]\nname = "a"\n'.repeat(50) },
      variants: [],
      window: [0, 1e9],
      cursor: 0,
      selection: null,
      panels: [],
    };
    expect(await decodeState(await encodeState(s))).toStrictEqual({ ok: true, state: s });
  });

  it('keeps <script> in scenario text as plain text', async () => {
    const text = '# <script>alert("x")</script>\nname = "</script><img src=x onerror=alert(1)>"';
    const s: ViewState = { ...bundled, scenario: { kind: 'inline', text } };
    const r = await decodeState(await encodeState(s));
    expect(r.ok && r.state.scenario.kind === 'inline' && r.state.scenario.text).toBe(text);
  });

  it('ignores unknown keys', async () => {
    const r = await decodeState(await fragmentOf(JSON.stringify({ ...valid, zz: { deep: [1] } })));
    expect(r.ok).toBe(true);
    if (r.ok) expect(Object.keys(r.state).sort()).toEqual(['cursor', 'panels', 'scenario', 'selection', 'variants', 'window']);
  });

  it('refuses to encode a state that could not be decoded', async () => {
    await expect(encodeState({ ...bundled, window: [5, 1] })).rejects.toThrow(/window/);
  });
});

describe('link length', () => {
  it('keeps a 3-variant bundled link under 2000 characters', async () => {
    const base = 'https://example.org/schedlab/index.html?';
    expect(base.length).toBe(40);
    const url = shareUrl(base, await encodeState(bundled));
    console.log(`3-variant bundled link: ${url.length} characters`);
    expect(url.length).toBeLessThan(2000);
  });

  it('replaces an existing fragment of the base URL', () => {
    expect(shareUrl('https://h/p?q=1#old', 's1.abc')).toBe('https://h/p?q=1#s1.abc');
  });
});

describe('bounds', () => {
  it('refuses a zip bomb of 5 MB of spaces without throwing', async () => {
    const json = '{"i":"' + ' '.repeat(5_000_000) + '","v":[],"w":[0,1],"c":0,"l":null,"p":[]}';
    const frag = await fragmentOf(json);
    expect(frag.length).toBeLessThan(20_000);
    expect(await refused(frag)).toBe(TOO_LARGE);
  });

  it('accepts data just under the limit and refuses data just over it', async () => {
    const pad = (n: number) => JSON.stringify({ ...valid, pad: 'y'.repeat(n) });
    const under = pad(MAX_DECOMPRESSED_BYTES - pad(0).length);
    expect(under.length).toBe(MAX_DECOMPRESSED_BYTES);
    expect((await decodeState(await fragmentOf(under))).ok).toBe(true);
    expect(await refused(await fragmentOf(pad(MAX_DECOMPRESSED_BYTES)))).toBe(TOO_LARGE);
  });

  it('refuses a payload over 2 MB before decoding it', async () => {
    expect(await refused('s1.' + 'A'.repeat(2_000_001))).toMatch(/2 MB/);
  });
});

describe('malformed links', () => {
  it('refuses a wrong or missing prefix', async () => {
    expect(await refused('')).toMatch(/no shared view/);
    expect(await refused('x1.abcd')).toMatch(/not a schedlab share link/);
    expect(await refused('s2.abcd')).toMatch(/format s2/);
  });

  it('refuses bad base64', async () => {
    expect(await refused('s1.ab$cd')).toMatch(/base64/);
    expect(await refused('s1.abcde')).toMatch(/base64/);
  });

  it('refuses truncated deflate data and garbage', async () => {
    const frag = await encodeState({ ...bundled, scenario: { kind: 'inline', text: 'abc '.repeat(2000) } });
    // The cut keeps the base64 well formed, so the failure comes from the decompressor.
    for (const cut of [1, 2, 3, Math.floor(frag.length / 2)]) {
      const n = (frag.length - cut - 3) % 4 === 1 ? frag.length - cut - 1 : frag.length - cut;
      expect(await refused(frag.slice(0, n))).toMatch(/could not be decompressed/);
    }
    expect(await refused('s1.' + toBase64Url(new Uint8Array([0xff, 0xfe, 0xfd, 0xfc])))).toMatch(/corrupted/);
  });

  it('refuses valid deflate data that is not JSON', async () => {
    expect(await refused(await fragmentOf('hello, not json'))).toMatch(/not valid JSON/);
    expect(await refused(await fragmentOf('[1,2,3]'))).toMatch(/not an object/);
  });

  it('refuses wrong types and out-of-range values with specific messages', async () => {
    const bad = async (patch: Record<string, unknown>) => refused(await fragmentOf(JSON.stringify({ ...valid, ...patch })));
    expect(await bad({ w: [10, 5] })).toMatch(/window start \(10\) must be before its end \(5\)/);
    expect(await bad({ w: [5, 5] })).toMatch(/window start/);
    expect(await bad({ w: [-1, 5] })).toMatch(/window/);
    expect(await bad({ w: ['0', 5] })).toMatch(/window/);
    expect(await bad({ w: [0, Infinity] })).toMatch(/window/);
    expect(await bad({ c: -3 })).toMatch(/cursor/);
    expect(await bad({ c: '7' })).toMatch(/cursor/);
    expect(await bad({ l: 1.5 })).toMatch(/selection/);
    expect(await bad({ l: -1 })).toMatch(/selection/);
    expect(await bad({ l: undefined })).toMatch(/selection/);
    expect(await bad({ p: ['editor', 'shell'] })).toMatch(/unknown panel "shell"/);
    expect(await bad({ p: ['editor', 'editor'] })).toMatch(/twice/);
    expect(await bad({ p: 'editor' })).toMatch(/panels/);
    expect(await bad({ b: ['x', 'XYZ'] })).toMatch(/hash/);
    expect(await bad({ b: ['n'.repeat(201), '0123456789ab'] })).toMatch(/name/);
    expect(await bad({ b: undefined })).toMatch(/no scenario/);
    expect(await bad({ i: 'text' })).toMatch(/both/);
    expect(await bad({ v: [['k', []]].concat(Array(8).fill(['k', []])) })).toMatch(/9 variants/);
    expect(await bad({ v: [['k'.repeat(65), []]] })).toMatch(/variant key/);
    expect(await bad({ v: [['k', [['a', 'b', 'c']]]] })).toMatch(/pair/);
    expect(await bad({ v: [['k', [['a', 'v'.repeat(257)]]]] })).toMatch(/256/);
    expect(await bad({ v: [['k', [['a', 3]]]] })).toMatch(/override/);
    expect(await bad({ m: 'x' })).toMatch(/time mode/);
  });

  it('refuses a __proto__ key anywhere', async () => {
    const top = JSON.stringify(valid).replace('{', '{"__proto__":{"polluted":true},');
    expect(await refused(await fragmentOf(top))).toMatch(/forbidden key "__proto__"/);
    const nested = JSON.stringify({ ...valid, zz: { a: 1 } }).replace('"a":1', '"__proto__":{"x":1}');
    expect(await refused(await fragmentOf(nested))).toMatch(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('never throws on arbitrary junk', async () => {
    for (const junk of ['s1.', 's1.A', 's1.AAAA', 's1.____', '#s1.-', 's1.' + 'z'.repeat(1000)]) {
      const r = await decodeState(junk);
      expect(r.ok).toBe(false);
    }
  });
});
