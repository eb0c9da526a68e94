// Content hashing for share links and caches: FNV-1a 64-bit over the UTF-8 bytes of a string.
// FNV-1a is not cryptographic; it only detects that a bundled scenario's text has changed
// since a link was made, so a short, fast, dependency-free hash is enough.

/** The FNV-1a 64-bit offset basis. */
const OFFSET_BASIS = 0xcbf29ce484222325n;
/** The FNV-1a 64-bit prime. */
const PRIME = 0x100000001b3n;
/** A mask that keeps a BigInt within 64 bits. */
const MASK_64 = 0xffffffffffffffffn;

/** Returns the FNV-1a 64-bit hash of the UTF-8 bytes of `text` as 16 lowercase hex chars. */
export function fnv1a64Hex(text: string): string {
  return new Fnv1a64().update(new TextEncoder().encode(text)).hex();
}

/** FNV-1a 64 over bytes given in pieces (a file read slice by slice hashes as if whole). */
export class Fnv1a64 {
  // The hash is kept as two 32-bit halves so the inner loop stays on plain numbers; BigInt is
  // used only for the constants above, to document them, and for the final check in tests.
  private hi = Number(OFFSET_BASIS >> 32n);
  private lo = Number(OFFSET_BASIS & 0xffffffffn);

  /** Hashes `bytes` after everything given before; returns this. */
  update(bytes: Uint8Array): this {
    let hi = this.hi;
    let lo = this.lo;
    const primeLo = Number(PRIME & 0xffffffffn); // 0x1b3; the prime's high half is 0x100.
    for (let i = 0; i < bytes.length; i++) {
      lo ^= bytes[i];
      // The product (hi:lo) * (0x100 << 32 | 0x1b3) mod 2^64 is lo*0x1b3 plus the carry, with
      // hi*0x1b3 + (lo << 8) added to the high half; every partial product fits in 2^53.
      const loProd = (lo >>> 0) * primeLo;
      const carry = Math.floor(loProd / 0x100000000);
      const newLo = loProd >>> 0;
      hi = ((hi >>> 0) * primeLo + carry + ((lo << 8) >>> 0)) >>> 0;
      lo = newLo;
    }
    this.hi = hi;
    this.lo = lo;
    return this;
  }

  /** The hash so far as 16 lowercase hex chars. */
  hex(): string {
    return (this.hi >>> 0).toString(16).padStart(8, '0') + (this.lo >>> 0).toString(16).padStart(8, '0');
  }
}

/** Returns the FNV-1a 64-bit hash computed with BigInt; used to cross-check the fast path. */
export function fnv1a64HexBigInt(text: string): string {
  let h = OFFSET_BASIS;
  for (const b of new TextEncoder().encode(text)) {
    h = ((h ^ BigInt(b)) * PRIME) & MASK_64;
  }
  return h.toString(16).padStart(16, '0');
}

/** Returns the short content hash used in share links: the first 12 hex chars of FNV-1a 64. */
export function contentHash(text: string): string {
  return fnv1a64Hex(text).slice(0, 12);
}

/** MurmurHash3's block constants. */
const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** MurmurHash3's finaliser: every input bit reaches every output bit. */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * A file's content hash for replay share links: 64 bits from two MurmurHash3 x86_32 lanes over
 * the bytes as little-endian 32-bit words (lane 1 seeded 0 as MurmurHash3, lane 2 seeded
 * 0x9747b28c with its own rotation and constant), the length mixed in at the end. It reads
 * about 1 GiB/s in V8 (FNV-1a's byte loop above: ~70 MiB/s), so a dropped 1 GB trace is
 * checked in about a second. Not cryptographic: it tells a wrong or changed file from the one
 * a link names, nothing more. Bytes may come in pieces of any length.
 */
export class ContentHash {
  private h1 = 0;
  private h2 = 0x9747b28c;
  private length = 0;
  private readonly tail = new Uint8Array(4);
  private tailLen = 0;

  private block(k: number) {
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    let h = this.h1 ^ k;
    h = (h << 13) | (h >>> 19);
    this.h1 = (Math.imul(h, 5) + 0xe6546b64) | 0;
    h = this.h2 ^ k;
    h = (h << 17) | (h >>> 15);
    this.h2 = (Math.imul(h, 5) + 0x52dce729) | 0;
  }

  /** Hashes `b` after everything given before; returns this. */
  update(b: Uint8Array): this {
    this.length += b.length;
    let i = 0;
    while (this.tailLen > 0 && this.tailLen < 4 && i < b.length) this.tail[this.tailLen++] = b[i++];
    if (this.tailLen === 4) {
      const t = this.tail;
      this.block(t[0] | (t[1] << 8) | (t[2] << 16) | (t[3] << 24));
      this.tailLen = 0;
    }
    const end = b.length - ((b.length - i) & 3);
    // The block loop inlined (a call per word halves the speed).
    let h1 = this.h1;
    let h2 = this.h2;
    for (; i < end; i += 4) {
      let k = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
      k = Math.imul(k, C1);
      k = (k << 15) | (k >>> 17);
      k = Math.imul(k, C2);
      let h = h1 ^ k;
      h = (h << 13) | (h >>> 19);
      h1 = (Math.imul(h, 5) + 0xe6546b64) | 0;
      h = h2 ^ k;
      h = (h << 17) | (h >>> 15);
      h2 = (Math.imul(h, 5) + 0x52dce729) | 0;
    }
    this.h1 = h1;
    this.h2 = h2;
    while (i < b.length) this.tail[this.tailLen++] = b[i++];
    return this;
  }

  /** The hash of everything given, as 16 lowercase hex chars (the state is not changed). */
  hex(): string {
    let k = 0;
    for (let j = this.tailLen - 1; j >= 0; j--) k = (k << 8) | this.tail[j];
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    // The length as two 32-bit halves (files pass 4 GiB).
    const lenLo = this.length >>> 0;
    const lenHi = Math.floor(this.length / 0x100000000) >>> 0;
    let h1 = (this.h1 ^ k ^ lenLo) >>> 0;
    let h2 = (this.h2 ^ k ^ lenLo ^ Math.imul(lenHi, 0x9e3779b1)) >>> 0;
    h1 = (h1 + h2) >>> 0;
    h2 = (h2 + h1) >>> 0;
    h1 = fmix32(h1);
    h2 = fmix32(h2);
    h1 = (h1 + h2) >>> 0;
    h2 = (h2 + h1) >>> 0;
    return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
  }
}
