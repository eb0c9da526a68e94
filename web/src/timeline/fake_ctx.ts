// A recording stand-in for CanvasRenderingContext2D, for the renderers' unit tests: it keeps
// every method call (name and arguments) and the fill style in effect at each fillRect, and
// hands out plain-array ImageData for the bitmap paths.
import type { Ctx2D } from './layout';

export interface Call {
  name: string;
  args: unknown[];
  fillStyle: unknown;
}

export interface FakeCtx extends Ctx2D {
  calls: Call[];
  count(name: string): number;
  of(name: string): Call[];
}

export function fakeCtx(): FakeCtx {
  const calls: Call[] = [];
  const state = {
    fillStyle: '#000' as unknown,
    strokeStyle: '#000' as unknown,
    lineWidth: 1,
    font: '10px sans-serif',
    textAlign: 'start',
    textBaseline: 'alphabetic',
    globalAlpha: 1,
  };
  const record =
    (name: string, ret?: (...args: unknown[]) => unknown) =>
    (...args: unknown[]) => {
      calls.push({ name, args, fillStyle: state.fillStyle });
      return ret ? ret(...args) : undefined;
    };
  const methods = ['fillRect', 'strokeRect', 'clearRect', 'beginPath', 'closePath', 'moveTo', 'lineTo', 'rect', 'fill', 'stroke', 'fillText', 'save', 'restore', 'clip', 'setLineDash'];
  const ctx: Record<string, unknown> = { calls };
  for (const m of methods) ctx[m] = record(m);
  ctx.measureText = record('measureText', (text) => ({ width: String(text).length * 6 }));
  // A plain ImageData stand-in (Node has no ImageData); putImageData records the image passed.
  ctx.createImageData = record('createImageData', (w, h) => ({ width: w, height: h, data: new Uint8ClampedArray(Number(w) * Number(h) * 4), colorSpace: 'srgb' }));
  ctx.putImageData = record('putImageData');
  ctx.count = (name: string) => calls.filter((c) => c.name === name).length;
  ctx.of = (name: string) => calls.filter((c) => c.name === name);
  for (const key of Object.keys(state) as (keyof typeof state)[]) {
    Object.defineProperty(ctx, key, {
      get: () => state[key],
      set: (v) => {
        (state as Record<string, unknown>)[key] = v;
      },
    });
  }
  return ctx as unknown as FakeCtx;
}
