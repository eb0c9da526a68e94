// Label layout: boxes never overlap, and the CPU lanes' overlay labels give way to task names.
import { describe, expect, it } from 'vitest';
import { EventKind, YieldToReason } from '../engine/protocol';
import { fakeCtx } from './fake_ctx';
import { windowData } from './fixtures';
import { CPU_LANE_H, GUTTER_W } from './layout';
import { intersects, LabelBoxes, type Box } from './label_layout';
import { renderCpuLanes } from './render_cpu';
import { makeTimeScale } from './time_scale';

describe('LabelBoxes', () => {
  it('knows overlap from touching', () => {
    expect(intersects({ x: 0, y: 0, w: 10, h: 10 }, { x: 5, y: 5, w: 10, h: 10 })).toBe(true);
    expect(intersects({ x: 0, y: 0, w: 10, h: 10 }, { x: 10, y: 0, w: 10, h: 10 })).toBe(false);
    expect(intersects({ x: 0, y: 0, w: 10, h: 10 }, { x: 0, y: 10, w: 10, h: 10 })).toBe(false);
  });

  it('places the first free candidate, or none', () => {
    const b = new LabelBoxes();
    b.add({ x: 100, y: 0, w: 80, h: 12 });
    expect(b.place([{ x: 150, y: 2, w: 40, h: 10 }, { x: 50, y: 2, w: 40, h: 10 }])).toEqual({ x: 50, y: 2, w: 40, h: 10 });
    // Both sides now taken: dropped.
    expect(b.place([{ x: 150, y: 2, w: 40, h: 10 }, { x: 60, y: 2, w: 40, h: 10 }])).toBeNull();
    // Across grid cells (boxes wider than a cell).
    expect(b.free({ x: 0, y: 0, w: 400, h: 1 })).toBe(false);
    expect(b.free({ x: 0, y: 20, w: 400, h: 1 })).toBe(true);
    expect(b.count).toBe(2);
  });
});

describe('CPU lane labels', () => {
  const width = GUTTER_W + 1000;
  const scale = makeTimeScale(0, 1000, GUTTER_W, width);
  const yieldTo = (t: number) => ({ t, kind: EventKind.yieldTo, cpu: 0, task: 1, arg: 2, val: 1 | (YieldToReason.notPreempted << 1) });
  // A long run of "vcpu-with-a-long-name" on CPU 0; two directed yields with a reason: one
  // right at the name's start, one far right of it.
  const data = windowData(0, 1000, [{ cpu: 0, task: 0, start: 0, end: 1000 }], [], [yieldTo(20), yieldTo(800)]);
  const names = ['vcpu-with-a-long-name', 'y', 'z'];

  it('never draws an overlay label over a task name', () => {
    const ctx = fakeCtx();
    const r = renderCpuLanes(ctx, { data, scale, width, top: 0, cpus: 1, taskNames: names, selection: null });
    const name = ctx.of('fillText').find((c) => c.args[0] === names[0]);
    expect(name).toBeDefined();
    const [, nx, ny] = name!.args as [string, number, number];
    const nameBox: Box = { x: nx, y: ny - 6, w: names[0].length * 6, h: 12 };
    // Only the far yield keeps its reason; its plate is clear of the name.
    expect(r.kvm.yieldArrows).toBe(2);
    expect(r.kvm.reasonLabels).toBe(1);
    const plates = ctx.of('fillRect').filter((c) => c.fillStyle === 'rgba(255, 255, 255, 0.85)');
    expect(plates).toHaveLength(1);
    const [px, py, pw, ph] = plates[0].args as number[];
    expect(intersects(nameBox, { x: px, y: py, w: pw, h: ph })).toBe(false);
    expect(px).toBeGreaterThan(GUTTER_W + 790);
    expect(py).toBeLessThan(CPU_LANE_H);
  });

  it('draws both reasons when no name is in the way', () => {
    const r = renderCpuLanes(fakeCtx(), { data, scale, width, top: 0, cpus: 1, taskNames: ['', 'y', 'z'], selection: null });
    expect(r.kvm.reasonLabels).toBe(2);
  });
});

describe('CPU lane names', () => {
  it('fall back to the last path component where the full name does not fit', () => {
    const width = GUTTER_W + 1000;
    const scale = makeTimeScale(0, 1000, GUTTER_W, width);
    // The fake measures 6 px a character: "vm0/vcpu2" is 54 px, "vcpu2" 30 px.
    const data = windowData(0, 1000, [
      { cpu: 0, task: 0, start: 0, end: 100 },
      { cpu: 0, task: 0, start: 100, end: 140 },
      { cpu: 0, task: 0, start: 140, end: 160 },
    ]);
    const ctx = fakeCtx();
    renderCpuLanes(ctx, { data, scale, width, top: 0, cpus: 1, taskNames: ['vm0/vcpu2'], selection: null });
    expect(ctx.of('fillText').map((c) => c.args[0]).filter((t) => String(t).includes('vcpu'))).toEqual(['vm0/vcpu2', 'vcpu2']);
  });
});
