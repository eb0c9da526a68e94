// Tests of the replay share-link codec: round trips with bundled captures, the bundling limit
// (a capture too large once compressed is named, not bundled; B bundled when only A is too
// large), the shadow run as B, and refusals: a truncated or corrupted link, a wrong prefix,
// bad fields, bytes left over.
import { describe, expect, it } from 'vitest';
import { BUNDLE_LIMIT_BYTES, decodeReplay, encodeReplay, isReplayFragment, type CaptureRef, type ReplayShare } from './share_replay';
import { deflateRaw, toBase64Url } from './share';
import { ContentHash } from './hash';

const enc = new TextEncoder();
/** A compressible trace-like text of about `n` bytes. */
const traceText = (n: number) => {
  let s = '';
  for (let i = 0; s.length < n; i++) s += `   k_a-${100 + (i % 7)}  [00${i % 4}] d..2.  ${(550 + i / 1e4).toFixed(6)}: sched_switch: prev_comm=k_a prev_pid=${100 + (i % 7)} prev_state=R ==> next_comm=k_b\n`;
  return enc.encode(s.slice(0, n));
};
/** Incompressible bytes (a xorshift stream). */
const noise = (n: number) => {
  const out = new Uint8Array(n);
  let x = 2463534242;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 255;
  }
  return out;
};
const cap = (name: string, bytes: Uint8Array): CaptureRef => ({ name, size: bytes.length, hash: new ContentHash().update(bytes).hex(), durationNs: 2_500_000_000, originNs: 550_000_000_000, bytes });

const view = (a: CaptureRef, b: ReplayShare['b'], dump: CaptureRef | null = null, cpuAvg: CaptureRef | null = null): ReplayShare => ({
  a,
  dump,
  cpuAvg,
  balance: null,
  b,
  window: [1_000_000, 250_000_000],
  cursor: 12_345,
  selection: 4,
  area: { t0: 2_000_000, t1: 9_000_000, cpus: [1, 3], tasks: [4, 5] },
  filter: 'cgroup:/sl_A',
  pinned: [7, 2],
  noisePct: 12.5,
  matches: [['old', 'new']],
  layout: { name: 'x.layout.toml', text: '[tasks]\nk_a = "/sl_A"\n' },
  spread: { kind: 'tick_phases', n: 8, pin: 'free', variants: [['tick_ahead', '11.4']] },
});

async function refused(fragment: string): Promise<string> {
  const r = await decodeReplay(fragment);
  if (r.ok) throw new Error('decoded unexpectedly');
  return r.error;
}

describe('replay share links', () => {
  it('round-trip A, its dumps and B bundled, with the whole view', async () => {
    const a = cap('trace.txt', traceText(300_000));
    const d = cap('eevdf-state.txt', traceText(50_000));
    const p = cap('cpu-avg.txt', traceText(20_000));
    const b = cap('b.txt', traceText(200_000));
    const s = view(a, { kind: 'capture', capture: b }, d, p);
    const { fragment, bundled } = await encodeReplay(s);
    expect(bundled).toEqual({ a: true, b: true });
    expect(fragment.startsWith('r1.')).toBe(true);
    expect(isReplayFragment('#' + fragment)).toBe(true);
    // Compressible text travels compressed: far under its 550 KB.
    expect(fragment.length).toBeLessThan(100_000);
    const r = await decodeReplay('#' + fragment);
    if (!r.ok) throw new Error(r.error);
    expect(r.share.a.bytes).toEqual(a.bytes);
    expect(r.share.dump?.bytes).toEqual(d.bytes);
    expect(r.share.cpuAvg?.bytes).toEqual(p.bytes);
    expect(r.share.b?.kind === 'capture' && r.share.b.capture.bytes).toEqual(b.bytes);
    const strip = (c: CaptureRef | null | undefined) => (c ? { ...c, bytes: undefined } : c);
    expect(strip(r.share.a)).toEqual(strip(a));
    expect({ ...r.share, a: null, dump: null, cpuAvg: null, balance: null, b: null }).toEqual({ ...s, a: null, dump: null, cpuAvg: null, balance: null, b: null });
  });

  it('name a capture that does not fit once compressed, and still bundle B', async () => {
    const a = cap('big.dat', noise(BUNDLE_LIMIT_BYTES + 10_000));
    const b = cap('small.txt', traceText(100_000));
    const { fragment, bundled } = await encodeReplay(view(a, { kind: 'capture', capture: b }));
    expect(bundled).toEqual({ a: false, b: true });
    const r = await decodeReplay(fragment);
    if (!r.ok) throw new Error(r.error);
    expect(r.share.a.bytes).toBeUndefined();
    expect(r.share.a).toEqual({ ...a, bytes: undefined });
    expect(r.share.b?.kind === 'capture' && r.share.b.capture.bytes).toEqual(b.bytes);
  });

  it('name both when neither fits, which keeps the link short', async () => {
    const big = noise(BUNDLE_LIMIT_BYTES * 2);
    const { fragment, bundled } = await encodeReplay(view(cap('a.dat', big), { kind: 'capture', capture: cap('b.dat', big) }));
    expect(bundled).toEqual({ a: false, b: false });
    expect(fragment.length).toBeLessThan(1000);
  });

  it('carry the shadow run as B and a capture without bytes as named', async () => {
    const a: CaptureRef = { name: 'only-named.dat', size: 1234, hash: '0123456789abcdef', durationNs: 5, originNs: 0 };
    const shadow = { kind: 'shadow' as const, key: 'no-run-to-parity', layout: 'hz = 250\n', pin: 'observed', variants: [['features.RUN_TO_PARITY', 'false']] as [string, string][] };
    const { fragment, bundled } = await encodeReplay(view(a, shadow));
    expect(bundled).toEqual({ a: false, b: false });
    const r = await decodeReplay(fragment);
    if (!r.ok) throw new Error(r.error);
    expect(r.share.b).toEqual(shadow);
    expect(r.share.a).toEqual(a);
  });

  it('refuse a truncated or corrupted link with a message', async () => {
    const { fragment } = await encodeReplay(view(cap('trace.txt', traceText(100_000)), null));
    expect(await refused(fragment.slice(0, Math.floor(fragment.length / 2)))).toMatch(/cut short|corrupted/);
    expect(await refused(fragment.slice(0, 3))).toMatch(/empty after "r1."/);
    expect(await refused(fragment.slice(0, 40) + '!!' + fragment.slice(42))).toMatch(/not valid base64url/);
    expect(await refused('s1.abc')).toMatch(/not a schedlab replay link/);
  });

  it('refuse bad fields and bytes left over', async () => {
    const pack = async (json: unknown, extra = new Uint8Array(0)) => {
      const j = enc.encode(JSON.stringify(json));
      const out = new Uint8Array(4 + j.length + extra.length);
      new DataView(out.buffer).setUint32(0, j.length);
      out.set(j, 4);
      out.set(extra, 4 + j.length);
      return 'r1.' + toBase64Url(await deflateRaw(out));
    };
    const ok = { A: ['a.dat', 3, '0123456789abcdef', 1, 0, 1], w: [0, 10], c: 0, l: null, f: '', p: [], n: 5, m: [] };
    const good = await decodeReplay(await pack(ok, new Uint8Array([1, 2, 3])));
    expect(good.ok && Array.from(good.share.a.bytes ?? [])).toEqual([1, 2, 3]);
    expect(await refused(await pack(ok, new Uint8Array([1, 2])))).toMatch(/cut short: a\.dat needs 3 bytes, 2 are there/);
    expect(await refused(await pack(ok, new Uint8Array([1, 2, 3, 4])))).toMatch(/1 bytes follow its captures/);
    expect(await refused(await pack({ ...ok, P: ['cpu-avg.txt', 2, '0123456789abcdef', 0, 0, 0] }, new Uint8Array([1, 2, 3])))).toMatch(
      /CPU-averages dump must travel as its trace does/,
    );
    const withDump = await decodeReplay(await pack({ ...ok, P: ['cpu-avg.txt', 2, '0123456789abcdef', 0, 0, 1] }, new Uint8Array([1, 2, 3, 8, 9])));
    expect(withDump.ok && Array.from(withDump.share.cpuAvg?.bytes ?? [])).toEqual([8, 9]);
    expect(await refused(await pack({ ...ok, A: ['a.dat', 3, 'XYZ', 1, 0, 0] }))).toMatch(/hash must be 16 lowercase hex/);
    expect(await refused(await pack({ ...ok, w: [10, 10] }))).toMatch(/window start \(10\) must be before its end/);
    expect(await refused(await pack({ ...ok, S: ['k', '', 'sideways', []] }))).toMatch(/pin must be/);
    expect(await refused(await pack({ ...ok, p: [-1] }))).toMatch(/pinned threads/);
    // The shadow spread: a question the opener runs again, bounded as the panel bounds it.
    const spread = await decodeReplay(await pack({ ...ok, X: ['seeds', 64, '', [['seed', '3']]] }, new Uint8Array([1, 2, 3])));
    expect(spread.ok && spread.share.spread).toEqual({ kind: 'seeds', n: 64, pin: '', variants: [['seed', '3']] });
    const noSpread = await decodeReplay(await pack(ok, new Uint8Array([1, 2, 3])));
    expect(noSpread.ok && noSpread.share.spread).toBeNull();
    expect(await refused(await pack({ ...ok, X: ['phases', 8, '', []] }))).toMatch(/spread's kind must be "seeds" or "tick_phases"/);
    expect(await refused(await pack({ ...ok, X: ['seeds', 65, '', []] }))).toMatch(/spread's runs must be a whole number from 1 to 64/);
    expect(await refused(await pack({ ...ok, X: ['seeds', 1.5, '', []] }))).toMatch(/spread's runs must be a whole number/);
    expect(await refused(await pack({ ...ok, X: ['seeds', 4, 'pinned', []] }))).toMatch(/spread's pin must be/);
    expect(await refused(await pack({ ...ok, X: ['seeds', 4, ''] }))).toMatch(/spread must be \[kind, runs, pin, variants\]/);
    expect(await refused(await pack(JSON.parse('{"__proto__": 1}') as unknown))).toMatch(/forbidden key "__proto__"/);
  });

  it('name the fields of a link made by a newer build instead of calling its bytes corrupt', async () => {
    // A later build's attachment: a key this one does not know, its bundled bytes after A's.
    const json = enc.encode(JSON.stringify({ A: ['a.dat', 3, '0123456789abcdef', 1, 0, 1], Z: ['z.txt', 2, '0123456789abcdef', 0, 0, 1], w: [0, 10], c: 0, l: null, f: '', p: [], n: 5, m: [] }));
    const out = new Uint8Array(4 + json.length + 5);
    new DataView(out.buffer).setUint32(0, json.length);
    out.set(json, 4);
    out.set([1, 2, 3, 8, 9], 4 + json.length);
    const error = await refused('r1.' + toBase64Url(await deflateRaw(out)));
    expect(error).toMatch(/a field this build does not know \("Z"\): it was made by a newer schedlab/);
    expect(error).not.toMatch(/bytes follow/);
  });
});

describe('ContentHash', () => {
  it('is the same however the bytes are split, and tells one byte or one length apart', () => {
    const bytes = traceText(10_007);
    const whole = new ContentHash().update(bytes).hex();
    expect(whole).toMatch(/^[0-9a-f]{16}$/);
    for (const cut of [1, 2, 3, 5, 4096, 10_006]) {
      expect(new ContentHash().update(bytes.subarray(0, cut)).update(bytes.subarray(cut)).hex()).toBe(whole);
    }
    const h = new ContentHash();
    for (let i = 0; i < bytes.length; i += 3) h.update(bytes.subarray(i, i + 3));
    expect(h.hex()).toBe(whole);
    const changed = bytes.slice();
    changed[5000] ^= 1;
    expect(new ContentHash().update(changed).hex()).not.toBe(whole);
    expect(new ContentHash().update(bytes.subarray(0, 10_006)).hex()).not.toBe(whole);
    // Zero bytes of different lengths differ (the length is mixed in).
    expect(new ContentHash().update(new Uint8Array(3)).hex()).not.toBe(new ContentHash().update(new Uint8Array(4)).hex());
    // Pinned: links made today must keep opening.
    expect(new ContentHash().update(enc.encode('schedlab')).hex()).toBe('95b3028300339c20');
    expect(new ContentHash().hex()).toBe('70d7d891f5f8eefa');
  });
});
