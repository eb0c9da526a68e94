// A recording stand-in for CanvasRenderingContext2D, for the renderers' unit tests: it keeps
// every method call (name and arguments) and the fill style in effect at each call, and hands
// out plain-array ImageData for the bitmap paths.
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

class RecordingCtx implements FakeCtx {
  calls: Call[] = [];
  fillStyle: string | CanvasGradient | CanvasPattern = '#000';
  strokeStyle: string | CanvasGradient | CanvasPattern = '#000';
  lineWidth = 1;
  font = '10px sans-serif';
  textAlign: CanvasTextAlign = 'start';
  textBaseline: CanvasTextBaseline = 'alphabetic';
  globalAlpha = 1;

  private record(name: string, args: unknown[]) {
    this.calls.push({ name, args, fillStyle: this.fillStyle });
  }

  count(name: string): number {
    return this.calls.filter((c) => c.name === name).length;
  }
  of(name: string): Call[] {
    return this.calls.filter((c) => c.name === name);
  }

  fillRect(...args: number[]) {
    this.record('fillRect', args);
  }
  strokeRect(...args: number[]) {
    this.record('strokeRect', args);
  }
  clearRect(...args: number[]) {
    this.record('clearRect', args);
  }
  beginPath() {
    this.record('beginPath', []);
  }
  closePath() {
    this.record('closePath', []);
  }
  moveTo(...args: number[]) {
    this.record('moveTo', args);
  }
  lineTo(...args: number[]) {
    this.record('lineTo', args);
  }
  rect(...args: number[]) {
    this.record('rect', args);
  }
  fill(...args: unknown[]) {
    this.record('fill', args);
  }
  stroke(...args: unknown[]) {
    this.record('stroke', args);
  }
  fillText(...args: [string, number, number, number?]) {
    this.record('fillText', args);
  }
  save() {
    this.record('save', []);
  }
  restore() {
    this.record('restore', []);
  }
  clip(...args: unknown[]) {
    this.record('clip', args);
  }
  setLineDash(segments: number[]) {
    this.record('setLineDash', [segments]);
  }
  measureText(text: string): TextMetrics {
    this.record('measureText', [text]);
    return { width: String(text).length * 6 } as TextMetrics;
  }
  // A plain ImageData stand-in (Node has no ImageData); putImageData records the image passed.
  createImageData(...args: unknown[]): ImageData {
    this.record('createImageData', args);
    const [w, h] = [Number(args[0]), Number(args[1])];
    return { width: w, height: h, data: new Uint8ClampedArray(w * h * 4), colorSpace: 'srgb' };
  }
  putImageData(...args: unknown[]) {
    this.record('putImageData', args);
  }
}

export function fakeCtx(): FakeCtx {
  return new RecordingCtx();
}
