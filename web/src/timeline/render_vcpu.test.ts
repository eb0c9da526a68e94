import { describe, expect, it } from 'vitest';
import { fakeCtx } from './fake_ctx';
import { vmMeta, windowData } from './fixtures';
import { EventKind, SwitchReason } from '../engine/protocol';
import { taskColour } from './palette';
import { renderVcpuLanes, VCPU_COLOURS, vmHeaderText } from './render_vcpu';
import { makeTimeScale } from './time_scale';
import { vcpuLayout, vcpuStates } from './vcpu_lanes';

const K = EventKind;

// One VM, two vCPUs on two pCPUs over 0–100 µs (1000 px of plot: 100 px per 10 µs).
// vcpu0 runs 0–40 µs on CPU 0 and sends vcpu1 an IPI at 20 µs; vcpu1 is preempted until
// 50 µs, handles the IPI on CPU 1 at 52 µs. vcpu0 spins 20–40 µs, calls yield_to(vcpu1) at
// 40 µs (yielded; reason: IPI receiver) and is preempted to the end.
const meta = vmMeta(['vm0/vcpu0', 'vm0/vcpu1', 'host'], [0, 0, null], ['vm0']);
const data = windowData(
  0,
  100_000,
  [
    { cpu: 0, task: 0, start: 0, end: 40_000 },
    { cpu: 0, task: 2, start: 40_000, end: 100_000 },
    { cpu: 1, task: 2, start: 0, end: 50_000 },
    { cpu: 1, task: 1, start: 50_000, end: 100_000 },
  ],
  [],
  [
    { t: 10_000, kind: K.wakeup, cpu: 1, task: 1 },
    { t: 20_000, kind: K.ipiSend, cpu: 0, task: 0, arg: 1 },
    { t: 20_000, kind: K.guestSpin, cpu: 0, task: 0, arg: 0x8000_0001 },
    { t: 40_000, kind: K.yieldTo, cpu: 0, task: 0, arg: 1, val: 1 | (4 << 1) },
    { t: 40_000, kind: K.switch, cpu: 0, task: 2, arg: 0, val: SwitchReason.yield },
    { t: 50_000, kind: K.switch, cpu: 1, task: 1, arg: 2, val: SwitchReason.tick },
    { t: 52_000, kind: K.ipiHandled, cpu: 1, task: 1, arg: 0 },
    { t: 52_000, kind: K.guestSpinEnd, cpu: 0, task: 0, arg: 0 },
  ],
);
const scale = makeTimeScale(0, 100_000, 110, 1110);

function paint(overrides = new Map<number, boolean>(), d = data) {
  const layout = vcpuLayout(meta, overrides);
  const ctx = fakeCtx();
  const r = renderVcpuLanes(ctx, { data: d, layout, states: vcpuStates(meta, d), scale, width: 1110, top: 44, selection: null });
  return { ctx, r, layout };
}

describe('renderVcpuLanes', () => {
  it('draws the running, preempted and halted spans, spin bands and arrows between the vCPU lanes', () => {
    const { ctx, r } = paint();
    expect(r).toMatchObject({ lanes: 2, headers: 1, running: 2, preempted: 2, halted: 1, spinBands: 1, ipiArrows: 1, yieldArrows: 1, reasonLabels: 1 });
    // vcpu0's run in its colour, with its pCPU written in it.
    expect(ctx.of('fillRect').some((c) => c.fillStyle === taskColour(0) && c.args[0] === 110 && c.args[2] === 400)).toBe(true);
    expect(ctx.of('fillText').some((c) => c.args[0] === 'cpu0')).toBe(true);
    expect(ctx.of('fillText').some((c) => c.args[0] === 'cpu1')).toBe(true);
    expect(ctx.of('fill').some((c) => c.fillStyle === VCPU_COLOURS.preempted)).toBe(true);
    expect(ctx.of('fillText').some((c) => c.args[0] === 'IPI receiver')).toBe(true);
    // Lane labels and the VM header.
    expect(ctx.of('fillText').map((c) => c.args[0])).toEqual(expect.arrayContaining(['▾ vm0', 'vm0/vcpu0', 'vm0/vcpu1']));
  });

  it('the IPI arrow runs from the sender’s lane at the send to the receiver’s lane at the handling', () => {
    const { ctx, layout } = paint();
    const [, l0, l1] = layout.rows;
    const y0 = 44 + l0.y + l0.h / 2;
    const y1 = 44 + l1.y + l1.h / 2;
    const moves = ctx.of('moveTo').map((c) => c.args);
    const lines = ctx.of('lineTo').map((c) => c.args);
    expect(moves).toContainEqual([310, y0]);
    expect(lines).toContainEqual([630, y1]);
  });

  it('bands the on-CPU parts of a spin-wait that spans several runs', () => {
    // vcpu0 spins 5–95 µs and runs 0–10, 20–30 and 40–50 µs on CPU 0: three bands.
    const d = windowData(
      0,
      100_000,
      [0, 20_000, 40_000].map((start) => ({ cpu: 0, task: 0, start, end: start + 10_000 })),
      [],
      [
        { t: 5_000, kind: K.guestSpin, cpu: 0, task: 0 },
        { t: 95_000, kind: K.guestSpinEnd, cpu: 0, task: 0 },
      ],
    );
    const { ctx, r } = paint(new Map(), d);
    expect(r.spinBands).toBe(3);
    const bands = ctx.of('rect').filter((c) => c.args[3] === 4).map((c) => [c.args[0], c.args[2]]);
    expect(bands).toEqual([
      [160, 50],
      [310, 100],
      [510, 100],
    ]);
  });

  it('leaves directed-yield arrows out while denser than one per IPI_MIN_PX', () => {
    const rows = [];
    for (let i = 0; i < 200; i++) rows.push({ t: i * 500, kind: K.yieldTo, cpu: 0, task: 0, arg: 1, val: 0 });
    const d = windowData(0, 100_000, [], [], rows);
    // 200 arrows over 1000 px: 5 px each.
    expect(paint(new Map(), d).r.yieldArrows).toBe(0);
    expect(paint(new Map(), windowData(0, 100_000, [], [], rows.slice(0, 100))).r.yieldArrows).toBe(100);
  });

  it('a collapsed VM draws its header only, and no arrows', () => {
    const { r, ctx } = paint(new Map([[0, true]]));
    expect(r).toMatchObject({ lanes: 0, headers: 1, running: 0, ipiArrows: 0, yieldArrows: 0 });
    expect(ctx.of('fillText').map((c) => c.args[0])).toContain('▸ vm0');
  });

  it('hit-tests lanes to their vCPU task and header rows to their VM', () => {
    const { r, layout } = paint();
    expect(r.hit.vmAt(500, 44 + layout.rows[0].y + 2)).toBe(0);
    expect(r.hit.taskAt(500, 44 + layout.rows[2].y + 2)).toBe(1);
    expect(r.hit.taskAt(500, 44 + layout.rows[0].y + 2)).toBeNull();
    expect(r.hit.taskAt(500, 10)).toBeNull();
  });

  it('says in the header when the states need a closer zoom', () => {
    // Run slices that start and end inside the window but no markers: too many events.
    const empty = windowData(0, 100_000, [
      { cpu: 0, task: 0, start: 0, end: 50_000 },
      { cpu: 0, task: 1, start: 50_000, end: 100_000 },
    ]);
    const layout = vcpuLayout(meta, new Map());
    const text = vmHeaderText(layout.rows[0], vcpuStates(meta, empty), true);
    expect(text).toBe('2 vCPUs · zoom in for guest ops and the preempted / halted states');
    expect(vmHeaderText(layout.rows[0], vcpuStates(meta, data), true)).toBe('2 vCPUs · 1 guest ops in view');
  });
});
