// Tests of the FNV-1a 64-bit hash against published vectors and a BigInt reference.
import { describe, expect, it } from 'vitest';
import { contentHash, fnv1a64Hex, fnv1a64HexBigInt } from './hash';

describe('fnv1a64Hex', () => {
  it('matches the published FNV-1a 64-bit test vectors', () => {
    expect(fnv1a64Hex('')).toBe('cbf29ce484222325');
    expect(fnv1a64Hex('a')).toBe('af63dc4c8601ec8c');
    expect(fnv1a64Hex('foobar')).toBe('85944171f73967e8');
  });

  it('hashes the UTF-8 bytes, not UTF-16 code units', () => {
    // The string 'é' is the two UTF-8 bytes C3 A9, so it must hash like those bytes do.
    expect(fnv1a64Hex('é')).toBe(fnv1a64HexBigInt('\u00e9'));
    expect(fnv1a64Hex('é')).not.toBe(fnv1a64Hex('\u00c3\u00a9'));
  });

  it('agrees with the BigInt reference on varied inputs', () => {
    const samples = ['', 'a', 'schedlab', 'ünïcødé ✓ 🚀', 'x'.repeat(1000), '\u0000\uffff'];
    let s = '';
    for (let i = 0; i < 300; i++) {
      s += String.fromCharCode((i * 7919) % 0x3000);
      samples.push(s);
    }
    for (const t of samples) expect(fnv1a64Hex(t)).toBe(fnv1a64HexBigInt(t));
  });

  it('always returns 16 lowercase hex chars', () => {
    for (const t of ['', 'a', 'b', 'hello world']) expect(fnv1a64Hex(t)).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('contentHash', () => {
  it('is the first 12 hex chars of the 64-bit hash', () => {
    expect(contentHash('')).toBe('cbf29ce48422');
    expect(contentHash('a')).toBe('af63dc4c8601');
    expect(contentHash('some scenario text')).toMatch(/^[0-9a-f]{12}$/);
  });
});
