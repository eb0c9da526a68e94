import { describe, expect, it } from 'vitest';
import { vmMeta, windowData } from './fixtures';
import { EventKind, Flag, NO_TASK, SwitchReason } from '../engine/protocol';
import {
  MAX_VCPU_LANES,
  opsIn,
  pcpuLabels,
  VCPU_BLOCK_GAP,
  VCPU_LANE_H,
  VCPU_LANE_H_DENSE,
  VM_HEADER_H,
  vcpuLayout,
  vcpuStates,
  vmCollapsed,
} from './vcpu_lanes';

const K = EventKind;

describe('vcpuLayout', () => {
  // File order interleaves the VMs and a host task: vCPU index = rank within the VM.
  const meta = vmMeta(['a/vcpu0', 'b/vcpu0', 'a/vcpu1', 'host', 'b/vcpu1', 'b/vcpu2'], [0, 1, 0, null, 1, 1], ['a', 'b']);

  it('orders the lanes by VM, then vCPU index, each VM under its header row', () => {
    const l = vcpuLayout(meta, new Map());
    expect(l.rows.map((r) => [r.kind, r.vm, r.task, r.vcpu])).toEqual([
      ['vm', 0, -1, -1],
      ['vcpu', 0, 0, 0],
      ['vcpu', 0, 2, 1],
      ['vm', 1, -1, -1],
      ['vcpu', 1, 1, 0],
      ['vcpu', 1, 4, 1],
      ['vcpu', 1, 5, 2],
    ]);
    expect(l.rows.map((r) => r.label)).toEqual(['a', 'a/vcpu0', 'a/vcpu1', 'b', 'b/vcpu0', 'b/vcpu1', 'b/vcpu2']);
    expect(l.rows[0].vcpus).toBe(2);
    expect(l.rows[3].vcpus).toBe(3);
    expect(l.lanes).toBe(5);
    expect(l.headers).toBe(2);
    // Rows are stacked without gaps below the block's gap.
    expect(l.rows[0].y).toBe(VCPU_BLOCK_GAP);
    expect(l.rows[1].y).toBe(VCPU_BLOCK_GAP + VM_HEADER_H);
    expect(l.rows[2].y).toBe(VCPU_BLOCK_GAP + VM_HEADER_H + VCPU_LANE_H);
    expect(l.height).toBe(VCPU_BLOCK_GAP + 2 * VM_HEADER_H + 5 * VCPU_LANE_H);
  });

  it('has no rows without VMs', () => {
    const l = vcpuLayout(vmMeta(['x', 'y'], [null, null], []), new Map());
    expect(l.rows).toEqual([]);
    expect(l.height).toBe(0);
  });

  it('a collapsed VM keeps its header row only', () => {
    const l = vcpuLayout(meta, new Map([[0, true]]));
    expect(l.rows.map((r) => [r.kind, r.vm, r.task])).toEqual([
      ['vm', 0, -1],
      ['vm', 1, -1],
      ['vcpu', 1, 1],
      ['vcpu', 1, 4],
      ['vcpu', 1, 5],
    ]);
    expect(l.rows[0].collapsed).toBe(true);
    expect(l.lanes).toBe(3);
  });

  it('collapses every VM by default beyond 32 vCPUs; a VM expanded by the user shows thin lanes', () => {
    const names = Array.from({ length: 40 }, (_, i) => `vm${i % 2}/vcpu${i >> 1}`);
    const big = vmMeta(names, names.map((_, i) => i % 2), ['vm0', 'vm1']);
    const shut = vcpuLayout(big, new Map());
    expect(shut.rows.map((r) => r.kind)).toEqual(['vm', 'vm']);
    expect(vmCollapsed(big, new Map(), 0)).toBe(true);
    const open = vcpuLayout(big, new Map([[1, false]]));
    expect(open.lanes).toBe(20);
    expect(open.rows[2]).toMatchObject({ kind: 'vcpu', vm: 1, task: 1, vcpu: 0, h: VCPU_LANE_H_DENSE, label: 'vm1/vcpu0' });
    expect(vmCollapsed(big, new Map([[1, false]]), 1)).toBe(false);
  });

  it('caps the lanes at MAX_VCPU_LANES and says how many are left out', () => {
    const names = Array.from({ length: 80 }, (_, i) => `vm0/vcpu${i}`);
    const l = vcpuLayout(vmMeta(names, names.map(() => 0), ['vm0']), new Map([[0, false]]));
    expect(l.lanes).toBe(MAX_VCPU_LANES);
    expect(l.rows[0].hidden).toBe(80 - MAX_VCPU_LANES);
  });
});

describe('vcpuStates', () => {
  const meta = vmMeta(['vm0/vcpu0', 'vm0/vcpu1', 'host'], [0, 0, null], ['vm0']);
  // vcpu0 runs on CPU 0 over 0–10 µs and is preempted at a tick by the host task; it runs
  // again on CPU 1 over 30–40 µs, halts (HLT) at 40 µs, is woken at 60 µs (an IPI's kick)
  // and waits for a CPU until 70 µs, then runs to the window's end.
  const slices = [
    { cpu: 0, task: 0, start: 0, end: 10_000 },
    { cpu: 0, task: 2, start: 10_000, end: 100_000 },
    { cpu: 1, task: 1, start: 0, end: 30_000 },
    { cpu: 1, task: 0, start: 30_000, end: 40_000 },
    { cpu: 1, task: 1, start: 40_000, end: 70_000 },
    { cpu: 1, task: 0, start: 70_000, end: 100_000 },
  ];
  const markers = [
    { t: 10_000, kind: K.switch, cpu: 0, task: 2, arg: 0, val: SwitchReason.tick },
    { t: 30_000, kind: K.switch, cpu: 1, task: 0, arg: 1, val: SwitchReason.tick },
    { t: 40_000, kind: K.sleep, cpu: 1, task: 0, val: 20_000 },
    { t: 40_000, kind: K.switch, cpu: 1, task: 1, arg: 0, val: SwitchReason.sleep },
    { t: 60_000, kind: K.wakeup, cpu: 1, task: 0 },
    { t: 70_000, kind: K.switch, cpu: 1, task: 0, arg: 1, val: SwitchReason.wakeupPreempt },
  ];
  const data = windowData(0, 100_000, slices, [], markers);

  it('a vCPU that runs, is preempted, runs again on another pCPU, halts, wakes and runs', () => {
    const s = vcpuStates(meta, data);
    expect(s.known).toBe(true);
    expect(s.segments[0].map((g) => [g.state, g.start, g.end, g.cpu])).toEqual([
      ['running', 0, 10_000, 0],
      ['preempted', 10_000, 30_000, -1],
      ['running', 30_000, 40_000, 1],
      ['halted', 40_000, 60_000, -1],
      ['preempted', 60_000, 70_000, -1],
      ['running', 70_000, 100_000, 1],
    ]);
  });

  it('infers the state the window opened in from a vCPU’s first marker', () => {
    // vcpu1 is switched out at 30 µs (runnable) and back in at 40 µs; before its first
    // marker it was running. Its preemption at 70 µs lasts to the window's end.
    const s = vcpuStates(meta, data);
    expect(s.segments[1].map((g) => [g.state, g.start, g.end])).toEqual([
      ['running', 0, 30_000],
      ['preempted', 30_000, 40_000],
      ['running', 40_000, 70_000],
      ['preempted', 70_000, 100_000],
    ]);
    // A first wakeup means it was halted until then.
    const woke = vcpuStates(meta, windowData(0, 50_000, [{ cpu: 0, task: 0, start: 30_000, end: 50_000 }], [], [
      { t: 20_000, kind: K.wakeup, cpu: 0, task: 0 },
      { t: 30_000, kind: K.switch, cpu: 0, task: 0, arg: NO_TASK, val: SwitchReason.fromIdle },
    ]));
    expect(woke.segments[0].map((g) => [g.state, g.start, g.end])).toEqual([
      ['halted', 0, 20_000],
      ['preempted', 20_000, 30_000],
      ['running', 30_000, 50_000],
    ]);
  });

  it('host tasks get no segments', () => {
    expect(vcpuStates(meta, data).segments[2]).toEqual([]);
  });

  it('without markers (a dense window) only the running spans are known', () => {
    const s = vcpuStates(meta, windowData(0, 100_000, slices, [], []));
    expect(s.known).toBe(false);
    expect(s.segments[0].every((g) => g.state === 'running')).toBe(true);
    expect(s.segments[0]).toHaveLength(3);
  });

  it('a window with no events: each vCPU keeps the state of its latest sample', () => {
    // vcpu0 runs throughout; vcpu1 was queued (runnable) at 5 µs, before the window.
    const d = windowData(
      10_000,
      20_000,
      [{ cpu: 0, task: 0, start: 10_000, end: 20_000 }],
      [
        { t: 5_000, task: 1, vruntime: 0, deadline: 0, avg: 0, flags: Flag.onRq },
        { t: 5_000, task: 0, vruntime: 0, deadline: 0, avg: 0, flags: Flag.onRq | Flag.curr },
      ],
    );
    const s = vcpuStates(meta, d);
    expect(s.known).toBe(true);
    expect(s.segments[1].map((g) => [g.state, g.start, g.end])).toEqual([['preempted', 10_000, 20_000]]);
    // The engine truncates the window's ends to whole ns: still a window without events.
    expect(vcpuStates(meta, { ...d, t0: 9_999.6, t1: 20_000.7 }).known).toBe(true);
    expect(s.segments[0].map((g) => g.state)).toEqual(['running']);
    // Blocked (or delayed-dequeued) at its latest sample: halted.
    d.samples.flags[0] = Flag.onRq | Flag.delayed;
    expect(vcpuStates(meta, d).segments[1].map((g) => g.state)).toEqual(['halted']);
  });

  it('merges spans of one state less than a bucket apart', () => {
    const d = windowData(0, 100_000, [
      { cpu: 0, task: 0, start: 0, end: 10_000 },
      { cpu: 0, task: 0, start: 10_400, end: 20_000 },
      { cpu: 1, task: 0, start: 20_000, end: 30_000 },
    ]);
    d.bucket = 500;
    expect(vcpuStates(meta, d).segments[0].map((g) => [g.start, g.end, g.cpu])).toEqual([
      [0, 20_000, 0],
      [20_000, 30_000, 1],
    ]);
  });

  it('collects spin-waits, lock holds and the guest ops per VM', () => {
    const s = vcpuStates(meta, windowData(0, 100_000, slices, [], [
      { t: 5_000, kind: K.guestSpin, cpu: 0, task: 0, arg: 0 },
      { t: 8_000, kind: K.guestSpinEnd, cpu: 0, task: 0, arg: 0 },
      { t: 8_000, kind: K.guestLock, cpu: 0, task: 0, arg: 0 },
      { t: 9_000, kind: K.guestUnlock, cpu: 0, task: 0, arg: 0 },
      { t: 50_000, kind: K.ipiHandled, cpu: 1, task: 1, arg: 0 },
      { t: 90_000, kind: K.guestLock, cpu: 1, task: 1, arg: 0 },
    ]));
    expect(s.spins[0]).toEqual([[5_000, 8_000]]);
    expect(s.locks[0]).toEqual([[8_000, 9_000]]);
    expect(s.locks[1]).toEqual([[90_000, 100_000]]);
    expect(s.opsByVm).toEqual([[8_000, 50_000, 90_000]]);
    expect(opsIn(s, 0, 0, 100_000)).toBe(3);
    expect(opsIn(s, 0, 8_000, 90_000)).toBe(2);
    expect(opsIn(s, 0, 8_001, 50_000)).toBe(0);
  });
});

describe('pcpuLabels', () => {
  it('adds socket, core and thread when the scenario has a topology', () => {
    const meta = vmMeta([], [], [], 2);
    expect(pcpuLabels(meta)).toEqual(['CPU 0', 'CPU 1']);
    meta.topology = [
      { socket: 0, core: 0, thread: 0 },
      { socket: 0, core: 0, thread: 1 },
    ];
    expect(pcpuLabels(meta)).toEqual(['CPU 0 s0c0t0', 'CPU 1 s0c0t1']);
  });
});
