import { describe, expect, it } from 'vitest';
import { drawKvmOverlay, matchIpis, matchLocks, matchSpins, matchYieldTo, yieldToVal } from './render_kvm';
import { windowData } from './fixtures';
import { fakeCtx } from './fake_ctx';
import { EventKind } from '../engine/protocol';

const K = EventKind;

describe('KVM overlay', () => {
  // vcpu0 (task 0, CPU 0) sends an IPI to vcpu1 (task 1) at 10 µs; vcpu1 handles it on CPU 1
  // at 30 µs. vcpu2 (task 2, CPU 0) calls yield_to(1) at 40 µs (yielded) and task 1 is
  // switched in on CPU 1 at 45 µs; a second yield_to(3) at 50 µs returns early and task 3
  // never runs in the window. A pause-loop exit at 20 µs.
  const markers = [
    { t: 10_000, kind: K.ipiSend, cpu: 0, task: 0, arg: 1 },
    { t: 20_000, kind: K.pleExit, cpu: 0, task: 0, arg: 0 },
    { t: 30_000, kind: K.ipiHandled, cpu: 1, task: 1, arg: 0 },
    { t: 40_000, kind: K.yieldTo, cpu: 0, task: 2, arg: 1, val: 1 | (4 << 1) },
    { t: 45_000, kind: K.switch, cpu: 1, task: 1, arg: 4, val: 2 },
    { t: 50_000, kind: K.yieldTo, cpu: 0, task: 2, arg: 3, val: 0 },
  ];
  const data = windowData(0, 100_000, [], [], markers);

  it('pairs each handled IPI with its send', () => {
    expect(matchIpis(data.markers)).toEqual([[0, 2]]);
  });

  it('pairs each yield_to with the target’s next switch-in, or none', () => {
    expect(matchYieldTo(data.markers)).toEqual([
      [3, 4],
      [5, -1],
    ]);
  });

  it('draws one tick per pause-loop exit and one arrow per IPI and per yield_to', () => {
    const ctx = fakeCtx();
    const r = drawKvmOverlay(ctx, data, { k: 0.01, t0: 0, x0: 110 }, 110, 1110, 0, 22, 2);
    expect(r).toEqual({ pleExits: 1, ipiArrows: 1, yieldArrows: 2, reasonLabels: 1, lockHolds: 0, spinBands: 0 });
    expect(ctx.of('fillText').some((c) => c.args[0] === 'IPI receiver')).toBe(true);
    // The IPI latency label (20 µs) fits between its ends (200 px apart).
    expect(ctx.of('fillText').some((c) => String(c.args[0]).includes('20'))).toBe(true);
  });

  it('skips what lies on CPUs that are not drawn', () => {
    const r = drawKvmOverlay(fakeCtx(), data, { k: 0.01, t0: 0, x0: 110 }, 110, 1110, 0, 22, 1);
    expect(r.ipiArrows).toBe(0);
    expect(r.pleExits).toBe(1);
  });
});

describe('KVM overlay density', () => {
  it('leaves IPI arrows out when there are more than one per IPI_MIN_PX of plot width', () => {
    const rows = [];
    for (let i = 0; i < 200; i++) {
      rows.push({ t: i * 1000, kind: K.ipiSend, cpu: 0, task: 0, arg: 1 });
      rows.push({ t: i * 1000 + 500, kind: K.ipiHandled, cpu: 1, task: 1, arg: 0 });
    }
    const data = windowData(0, 200_000, [], [], rows);
    // 1000 px for 200 arrows: 5 px each, too dense.
    expect(drawKvmOverlay(fakeCtx(), data, { k: 0.005, t0: 0, x0: 110 }, 110, 1110, 0, 22, 2).ipiArrows).toBe(0);
    // Zoomed in 4x: 0..50 µs in view, so the 51 IPIs sent at 0, 1, …, 50 µs, about 20 px each.
    expect(drawKvmOverlay(fakeCtx(), data, { k: 0.02, t0: 0, x0: 110 }, 110, 1110, 0, 22, 2).ipiArrows).toBe(51);
  });
});

describe('yieldToVal', () => {
  it('decodes yielded and the reason', () => {
    expect(yieldToVal(1)).toEqual({ yielded: true, reason: 'direct' });
    expect(yieldToVal(2 << 1)).toEqual({ yielded: false, reason: 'not preempted' });
    expect(yieldToVal(1 | (6 << 1))).toEqual({ yielded: true, reason: 'PV sched_yield' });
  });
});

describe('guest lock holds', () => {
  // vcpu0 takes lock 0 at 10 µs on CPU 0 and releases it at 60 µs; vcpu1 takes lock 0 at
  // 70 µs on CPU 1 and still holds it at the window's end.
  const data = windowData(0, 100_000, [], [], [
    { t: 10_000, kind: K.guestLock, cpu: 0, task: 0, arg: 0 },
    { t: 60_000, kind: K.guestUnlock, cpu: 0, task: 0, arg: 0 },
    { t: 70_000, kind: K.guestLock, cpu: 1, task: 1, arg: 0 },
  ]);
  it('pairs each lock with its unlock, or none', () => {
    expect(matchLocks(data.markers)).toEqual([
      [0, 1],
      [2, -1],
    ]);
  });
  it('draws one strip per hold, from the lock to the unlock or the window end', () => {
    const ctx = fakeCtx();
    expect(drawKvmOverlay(ctx, data, { k: 0.01, t0: 0, x0: 110 }, 110, 1110, 0, 22, 2).lockHolds).toBe(2);
    const rects = ctx.of('rect').map((c) => c.args);
    expect(rects).toContainEqual([210, 1, 500, 3]);
    expect(rects).toContainEqual([810, 23, 300, 3]);
  });
});

describe('spin-wait bands', () => {
  // vcpu0 (task 0) spins from 20 µs to 80 µs; it runs on CPU 0 over 0–50 µs and on CPU 1
  // over 60–100 µs, so the band covers 20–50 µs on CPU 0 and 60–80 µs on CPU 1.
  const data = windowData(
    0,
    100_000,
    [
      { cpu: 0, task: 0, start: 0, end: 50_000 },
      { cpu: 1, task: 0, start: 60_000, end: 100_000 },
      { cpu: 1, task: 1, start: 0, end: 60_000 },
    ],
    [],
    [
      { t: 20_000, kind: K.guestSpin, cpu: 0, task: 0, arg: 0 },
      { t: 80_000, kind: K.guestSpinEnd, cpu: 1, task: 0, arg: 0 },
    ],
  );
  it('pairs each spin start with its end', () => {
    expect(matchSpins(data.markers)).toEqual([[0, 1]]);
  });
  it('bands only the on-CPU parts of the wait', () => {
    const ctx = fakeCtx();
    expect(drawKvmOverlay(ctx, data, { k: 0.01, t0: 0, x0: 110 }, 110, 1110, 0, 22, 2).spinBands).toBe(2);
    const rects = ctx.of('rect').map((c) => c.args);
    expect(rects).toContainEqual([310, 9.5, 300, 3]);
    expect(rects).toContainEqual([710, 31.5, 200, 3]);
  });
});
