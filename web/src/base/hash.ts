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
  const bytes = new TextEncoder().encode(text);
  // The hash is kept as two 32-bit halves so the inner loop stays on plain numbers; BigInt is
  // used only for the constants above, to document them, and for the final check in tests.
  let hi = Number(OFFSET_BASIS >> 32n);
  let lo = Number(OFFSET_BASIS & 0xffffffffn);
  const primeLo = Number(PRIME & 0xffffffffn); // 0x1b3; the prime's high half is 0x100.
  for (let i = 0; i < bytes.length; i++) {
    lo ^= bytes[i];
    // The product (hi:lo) * (0x100 << 32 | 0x1b3) mod 2^64 is lo*0x1b3 plus the carry, with
    // hi*0x1b3 + (lo << 8) added to the high half; every partial product fits in 2^53.
    const loProd = (lo >>> 0) * primeLo;
    const carry = Math.floor(loProd / 0x100000000);
    const newLo = loProd >>> 0;
    const newHi = ((hi >>> 0) * primeLo + carry + ((lo << 8) >>> 0)) >>> 0;
    hi = newHi;
    lo = newLo;
  }
  return (hi >>> 0).toString(16).padStart(8, '0') + (lo >>> 0).toString(16).padStart(8, '0');
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
