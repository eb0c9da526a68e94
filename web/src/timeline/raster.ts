// Software rasterization into a reusable ImageData, for views too dense for one canvas call per
// shape: with a CPU-rasterized canvas (no GPU), each fillRect or path costs real pixel work, so
// the dense renderers compute their pixels here and hand them over with one putImageData.
// Pixels are unpremultiplied RGBA (as ImageData holds them), read and written as 32-bit words
// in little-endian byte order (R in the low byte), which every platform browsers run on uses.
// Shapes are anti-aliased by area coverage, like the canvas does for fractional coordinates.
import type { Ctx2D } from './layout';

/** A parsed CSS colour: channels 0–255, alpha 0–1, and the opaque-write word. */
export interface Colour {
  r: number;
  g: number;
  b: number;
  a: number;
  word: number;
}

const parsed = new Map<string, Colour>();

/** Parses '#rrggbb' or 'rgb[a](r, g, b[, a])' (the forms the palette uses); cached. */
export function parseColour(css: string): Colour {
  let c = parsed.get(css);
  if (c) return c;
  let r: number;
  let g: number;
  let b: number;
  let a = 1;
  if (css.startsWith('#') && css.length === 7) {
    const v = parseInt(css.slice(1), 16);
    [r, g, b] = [(v >> 16) & 255, (v >> 8) & 255, v & 255];
  } else {
    const m = /rgba?\(([^)]*)\)/.exec(css);
    const parts = m ? m[1].split(',').map((x) => Number(x.trim())) : [];
    [r, g, b] = [parts[0] ?? 0, parts[1] ?? 0, parts[2] ?? 0];
    if (parts.length > 3) a = parts[3];
  }
  c = { r, g, b, a, word: pack(r, g, b, a) };
  parsed.set(css, c);
  return c;
}

/** The little-endian RGBA word of a colour (channels 0–255, alpha 0–1). */
export function pack(r: number, g: number, b: number, a: number): number {
  return ((Math.round(a * 255) << 24) | (Math.round(b) << 16) | (Math.round(g) << 8) | Math.round(r)) >>> 0;
}

// The last composite, remembered: dense views blend the same colour over the same background
// pixel many times in a row (a band over a lane's background), and packing costs the most.
let memoDst = -1;
let memoColour: Colour | null = null;
let memoCov = -1;
let memoOut = 0;

/** Composites colour `c` at coverage `cov` (0–1) over the pixel word `dst` ("source-over"). */
export function over(dst: number, c: Colour, cov: number): number {
  const sa = c.a * cov;
  if (sa >= 0.998) return c.word;
  if (dst === memoDst && c === memoColour && cov === memoCov) return memoOut;
  const da = (dst >>> 24) / 255;
  const oa = sa + da * (1 - sa);
  let out = 0;
  if (oa > 0) {
    const kd = (da * (1 - sa)) / oa;
    const ks = sa / oa;
    out = pack(c.r * ks + (dst & 255) * kd, c.g * ks + ((dst >>> 8) & 255) * kd, c.b * ks + ((dst >>> 16) & 255) * kd, oa);
  }
  memoDst = dst;
  memoColour = c;
  memoCov = cov;
  return (memoOut = out);
}

/** A reusable pixel buffer of one size; see rasterFor. */
export interface Raster {
  img: ImageData;
  px: Uint32Array;
  w: number;
  h: number;
}

const rasters = new WeakMap<object, Map<string, Raster>>();

/**
 * The buffer named `name` for this context, w × h device pixels, cleared to transparent. It is
 * kept across paints (keyed by the context), so panning allocates nothing per frame.
 */
export function rasterFor(ctx: Ctx2D, name: string, w: number, h: number): Raster {
  let byName = rasters.get(ctx);
  if (!byName) rasters.set(ctx, (byName = new Map<string, Raster>()));
  let r = byName.get(name);
  if (!r || r.w !== w || r.h !== h) {
    const img = ctx.createImageData(Math.max(1, w), Math.max(1, h));
    r = { img, px: new Uint32Array(img.data.buffer, img.data.byteOffset, img.width * img.height), w, h };
    byName.set(name, r);
  } else r.px.fill(0);
  return r;
}

/** Fills columns [x0, x1) (device px, fractional ends anti-aliased) of row `y` with `c`. */
export function spanX(r: Raster, y: number, x0: number, x1: number, c: Colour, vcov = 1): void {
  if (x0 < 0) x0 = 0;
  if (x1 > r.w) x1 = r.w;
  if (!(x1 > x0) || y < 0 || y >= r.h) return;
  const off = y * r.w;
  const px = r.px;
  const end = Math.ceil(x1);
  let i = Math.floor(x0);
  // Whole opaque pixels in the middle are a plain fill; only the ends need coverage.
  const solidFrom = Math.ceil(x0);
  const solidTo = Math.floor(x1);
  if (vcov >= 0.998 && c.a >= 0.998 && solidTo - solidFrom > 2) {
    if (solidFrom > i) px[off + i] = over(px[off + i], c, (solidFrom - x0) * vcov);
    px.fill(c.word, off + solidFrom, off + solidTo);
    if (solidTo < end) px[off + solidTo] = over(px[off + solidTo], c, (x1 - solidTo) * vcov);
    return;
  }
  for (; i < end; i++) {
    const cov = (Math.min(i + 1, x1) - Math.max(i, x0)) * vcov;
    if (cov >= 0.998 && c.a >= 0.998) px[off + i] = c.word;
    else if (cov > 0.002) px[off + i] = over(px[off + i], c, cov);
  }
}

/** Fills rows [y0, y1) (device px, fractional ends anti-aliased) of column `x` with `c`. */
export function spanY(r: Raster, x: number, y0: number, y1: number, c: Colour, hcov = 1): void {
  if (y0 < 0) y0 = 0;
  if (y1 > r.h) y1 = r.h;
  if (!(y1 > y0) || x < 0 || x >= r.w) return;
  const px = r.px;
  const end = Math.ceil(y1);
  for (let j = Math.floor(y0); j < end; j++) {
    const cov = (Math.min(j + 1, y1) - Math.max(j, y0)) * hcov;
    const i = j * r.w + x;
    if (cov >= 0.998 && c.a >= 0.998) px[i] = c.word;
    else if (cov > 0.002) px[i] = over(px[i], c, cov);
  }
}

/** Fills the rectangle [x0, x1) × [y0, y1) (device px, edges anti-aliased) with `c`. */
export function fillRectPx(r: Raster, x0: number, y0: number, x1: number, y1: number, c: Colour): void {
  const ya = Math.max(0, y0);
  const yb = Math.min(r.h, y1);
  for (let j = Math.floor(ya); j < Math.ceil(yb); j++) {
    spanX(r, j, x0, x1, c, Math.min(j + 1, yb) - Math.max(j, ya));
  }
}

/** Copies row `from` onto rows [to0, to1). */
export function copyRow(r: Raster, from: number, to0: number, to1: number): void {
  const w = r.w;
  for (let j = Math.max(0, to0); j < Math.min(r.h, to1); j++) if (j !== from) r.px.copyWithin(j * w, from * w, from * w + w);
}

const scratches = new WeakMap<object, Map<string, Float64Array[]>>();

/** Reusable Float64Array scratch columns for this context: `count` arrays of at least n. */
export function scratch(ctx: Ctx2D, name: string, count: number, n: number): Float64Array[] {
  let byName = scratches.get(ctx);
  if (!byName) scratches.set(ctx, (byName = new Map<string, Float64Array[]>()));
  const held = byName.get(name);
  if (held && held.length === count && held[0].length >= n) return held;
  const arrays = Array.from({ length: count }, () => new Float64Array(Math.max(1, n)));
  byName.set(name, arrays);
  return arrays;
}
