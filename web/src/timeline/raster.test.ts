// Tests of the bitmap paths: the pixel helpers, the CPU lanes above BITMAP_MIN_SLICES slices
// and an entity lane with more samples than pixel columns, read back from the fake ImageData.
import { describe, expect, it } from 'vitest';
import { fakeCtx } from './fake_ctx';
import { windowData, type SampleRow, type SliceRow } from './fixtures';
import { CPU_LANE_H, ENTITY_LANE_H, GUTTER_W, STATE_BAR_H } from './layout';
import { Flag } from '../engine/protocol';
import { COLOURS, taskColour } from './palette';
import { over, parseColour, rasterFor, spanX } from './raster';
import { BITMAP_MIN_SLICES, renderCpuLanes } from './render_cpu';
import { renderEntityLanes } from './render_entity';
import { makeTimeScale } from './time_scale';

/** The pixel (device px relative to the put's origin) of the last putImageData, as [r, g, b, a]. */
function pixelOf(ctx: ReturnType<typeof fakeCtx>, x: number, y: number, call = -1): number[] {
  const puts = ctx.of('putImageData');
  const put = puts[call < 0 ? puts.length + call : call];
  const img = put.args[0] as ImageData;
  const i = ((y - (put.args[2] as number)) * img.width + (x - (put.args[1] as number))) * 4;
  return Array.from(img.data.slice(i, i + 4));
}

const rgba = (css: string) => {
  const c = parseColour(css);
  return [c.r, c.g, c.b, Math.round(c.a * 255)];
};

describe('raster helpers', () => {
  it('parses hex and rgba colours', () => {
    expect(rgba('#0072B2')).toEqual([0, 0x72, 0xb2, 255]);
    expect(rgba('rgba(46, 160, 67, 0.35)')).toEqual([46, 160, 67, 89]);
  });

  it('anti-aliases fractional span ends by coverage', () => {
    const ctx = fakeCtx();
    const r = rasterFor(ctx, 't', 4, 1);
    spanX(r, 0, 0.5, 2, parseColour('#ff0000'));
    expect(r.px[0] >>> 24).toBe(128); // half covered, over transparent
    expect(r.px[1]).toBe(parseColour('#ff0000').word);
    expect(r.px[2]).toBe(0);
    // Opaque white over opaque black at half coverage is mid gray.
    const g = over(parseColour('#000000').word, parseColour('#ffffff'), 0.5);
    expect([g & 255, g >>> 24]).toEqual([128, 255]);
  });
});

describe('renderCpuLanes, bitmap path', () => {
  const width = GUTTER_W + 1000;
  // 1 ns per px; many 1 px slices on CPU 0, alternating tasks 0 and 1, and one wide slice on CPU 1.
  const n = BITMAP_MIN_SLICES + 10;
  const rows: SliceRow[] = Array.from({ length: n - 1 }, (_, i) => ({ cpu: 0, task: i % 2, start: i * 0.4, end: i * 0.4 + 0.4 }));
  rows.push({ cpu: 1, task: 2, start: 600, end: 900 });
  const data = windowData(0, 1000, rows);
  const opts = { data, scale: makeTimeScale(0, 1000, GUTTER_W, width), width, top: 0, cpus: 2, taskNames: ['a', 'b', 'gamma'], selection: null };

  it('puts one bitmap instead of a fillRect per slice', () => {
    const ctx = fakeCtx();
    const r = renderCpuLanes(ctx, opts);
    expect(r.rects).toBe(n);
    expect(ctx.count('putImageData')).toBe(1);
    expect(ctx.count('fillRect')).toBe(0);
    expect(ctx.of('fillText').map((c) => c.args[0])).toContain('gamma');
  });

  it('colours slices, idle time and the gaps between lanes', () => {
    const ctx = fakeCtx();
    renderCpuLanes(ctx, opts);
    const mid1 = CPU_LANE_H + CPU_LANE_H / 2;
    expect(pixelOf(ctx, GUTTER_W + 700, mid1)).toEqual(rgba(taskColour(2)));
    expect(pixelOf(ctx, GUTTER_W + 300, mid1)).toEqual(rgba(COLOURS.idle));
    expect(pixelOf(ctx, GUTTER_W + 950, 5)).toEqual(rgba(COLOURS.idle));
    expect(pixelOf(ctx, GUTTER_W + 700, CPU_LANE_H)).toEqual([0, 0, 0, 0]);
  });

  it('honours the device pixel ratio', () => {
    const ctx = fakeCtx();
    renderCpuLanes(ctx, { ...opts, dpr: 2 });
    const put = ctx.of('putImageData')[0];
    expect(put.args.slice(1, 3)).toEqual([2 * GUTTER_W, 0]);
    expect((put.args[0] as ImageData).width).toBe(2000);
    expect(pixelOf(ctx, 2 * (GUTTER_W + 700), 2 * (CPU_LANE_H + 5))).toEqual(rgba(taskColour(2)));
    expect(pixelOf(ctx, 2 * (GUTTER_W + 700), 2 * CPU_LANE_H + 1)).toEqual([0, 0, 0, 0]);
  });
});

describe('renderEntityLanes, bitmap path', () => {
  const width = GUTTER_W + 100;
  // 400 samples over 100 px: running and queued below V (eligible), vruntime − V from −1 to −2 ms.
  const rows: SampleRow[] = Array.from({ length: 400 }, (_, i) => ({
    t: i * 2.5,
    task: 0,
    vruntime: 10e6 - 1e6 - (i % 2) * 1e6,
    deadline: 12e6,
    avg: 10e6,
    flags: Flag.onRq | (i < 200 ? Flag.curr : 0),
  }));
  const data = windowData(0, 1000, [], rows);
  const opts = { data, scale: makeTimeScale(0, 1000, GUTTER_W, width), width, top: 0, taskNames: ['alpha'], selection: null, mode: 'relative' as const };

  it('draws the band, V line, lines and state bar into one bitmap', () => {
    const ctx = fakeCtx();
    const r = renderEntityLanes(ctx, opts);
    expect(ctx.count('putImageData')).toBe(1);
    expect(ctx.count('stroke')).toBe(0);
    const lane = r.hit.lanes[0];
    const x = GUTTER_W + 50;
    // Below V (eligible) and away from the lines, the green band over the background.
    const yBand = Math.round(lane.mid + 3);
    const band = pixelOf(ctx, x, yBand);
    const bg = parseColour(COLOURS.laneBg);
    const eligible = parseColour(COLOURS.eligible);
    expect(band[1]).toBeCloseTo(bg.g + (eligible.g - bg.g) * eligible.a, -1);
    // The V line.
    expect(pixelOf(ctx, x, Math.round(lane.mid))).toEqual(rgba(COLOURS.vLine));
    // The vruntime line spans −1 ms to −2 ms in every column: the task's colour there.
    const yLine = Math.round(lane.mid + ((1.5e6 / lane.halfRange) * lane.halfPx));
    expect(pixelOf(ctx, x, yLine)).toEqual(rgba(taskColour(0)));
    // The state bar: running in the first half of the window, queued in the second.
    const yBar = ENTITY_LANE_H - STATE_BAR_H;
    expect(pixelOf(ctx, GUTTER_W + 20, yBar)).toEqual(rgba(taskColour(0)));
    expect(pixelOf(ctx, GUTTER_W + 80, yBar)).toEqual(rgba(COLOURS.queued));
    // Nothing above V but the background (and no ineligible band).
    expect(pixelOf(ctx, x, 3)).toEqual(rgba(COLOURS.laneBg));
  });

  it('keeps the vector path when zoomed in', () => {
    const ctx = fakeCtx();
    renderEntityLanes(ctx, { ...opts, scale: makeTimeScale(0, 50, GUTTER_W, width) });
    expect(ctx.count('putImageData')).toBe(0);
    expect(ctx.count('stroke')).toBeGreaterThan(0);
  });
});
