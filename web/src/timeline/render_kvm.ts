// Pure canvas renderer of the KVM overlay on the CPU lanes: guest spin-wait bands (CPU time a
// waiting vCPU burns), guest spinlock hold strips,
// pause-loop exits (an orange tick
// at the lane bottom), IPI arrows from the sender's send to the receiver's handling (purple,
// labelled with the delivery latency when there is room) and directed-yield arrows from the
// yield_to() call to where and when its target next ran (green when yield_to yielded, grey
// when it returned early). Everything comes from the window's marker columns, so an IPI or a
// yield whose other end lies outside the window is drawn as a tick only. Each directed yield
// KVM made is labelled with the reason its target was chosen. IPI arrows are left
// out while they are too dense to read. Labels are laid out so that none overlaps a task
// name or another label (label_layout.ts): one that would is moved left or dropped.
import { EventKind, YieldToReasonWords, type WindowData } from '../engine/protocol';
import { COLOURS } from './palette';
import { type Ctx2D } from './layout';
import { LabelBoxes, type Box } from './label_layout';
import { formatNs } from './time_scale';

export interface KvmOverlayResult {
  pleExits: number;
  ipiArrows: number;
  yieldArrows: number;
  /** Reason labels drawn next to directed-yield arrows. */
  reasonLabels: number;
  /** Guest spinlock hold strips. */
  lockHolds: number;
  /** Spin-wait bands (on-CPU parts of guest spin-waits). */
  spinBands: number;
}

/** Whether a YieldTo marker's call yielded, and the reason its target was chosen. */
export function yieldToVal(val: number): { yielded: boolean; reason: string } {
  return { yielded: (val & 1) === 1, reason: YieldToReasonWords[val >> 1] ?? `reason ${val >> 1}` };
}

/** IPI arrows are drawn when there is at least this much plot width per arrow, CSS px. */
export const IPI_MIN_PX = 8;

interface Axis {
  k: number;
  t0: number;
  x0: number;
}

/** The sends matched to their handling: for each ipi_handled marker, the latest ipi_send from
 * its sender to its receiver before it. Returns [sendIndex, handledIndex] pairs. */
export function matchIpis(m: WindowData['markers']): [number, number][] {
  const { kind, task, arg } = m;
  const lastSend = new Map<string, number>();
  const out: [number, number][] = [];
  for (let i = 0; i < kind.length; i++) {
    if (kind[i] === EventKind.ipiSend) lastSend.set(`${task[i]}>${arg[i]}`, i);
    else if (kind[i] === EventKind.ipiHandled) {
      const key = `${arg[i]}>${task[i]}`;
      const s = lastSend.get(key);
      if (s !== undefined) {
        out.push([s, i]);
        lastSend.delete(key);
      }
    }
  }
  return out;
}

/** yield_to() calls matched to the target's next switch-in: [yieldIndex, switchIndex | -1]. */
export function matchYieldTo(m: WindowData['markers']): [number, number][] {
  const { kind, task, arg } = m;
  const waiting = new Map<number, number[]>(); // target → yield_to marker indices
  const out: [number, number][] = [];
  for (let i = 0; i < kind.length; i++) {
    if (kind[i] === EventKind.yieldTo) {
      const list = waiting.get(arg[i]) ?? [];
      list.push(i);
      waiting.set(arg[i], list);
    } else if (kind[i] === EventKind.switch) {
      const list = waiting.get(task[i]);
      if (list) {
        for (const y of list) out.push([y, i]);
        waiting.delete(task[i]);
      }
    }
  }
  for (const list of waiting.values()) for (const y of list) out.push([y, -1]);
  return out.sort((p, q) => p[0] - q[0]);
}

/** Two short strokes at (x2, y2) pointing along the line from (x1, y1). */
export function arrowHead(ctx: Ctx2D, x1: number, y1: number, x2: number, y2: number) {
  const a = Math.atan2(y2 - y1, x2 - x1);
  ctx.moveTo(x2, y2);
  ctx.lineTo(x2 - 5 * Math.cos(a - 0.45), y2 - 5 * Math.sin(a - 0.45));
  ctx.moveTo(x2, y2);
  ctx.lineTo(x2 - 5 * Math.cos(a + 0.45), y2 - 5 * Math.sin(a + 0.45));
}

/** Guest spinlock hold intervals [lockIndex, unlockIndex | -1 (still held at the window's
 * end)], from guest_lock / guest_unlock markers (task = vCPU, arg = lock). */
export function matchLocks(m: WindowData['markers']): [number, number][] {
  const { kind, task, arg } = m;
  const held = new Map<string, number>();
  const out: [number, number][] = [];
  for (let i = 0; i < kind.length; i++) {
    const key = `${task[i]}:${arg[i]}`;
    if (kind[i] === EventKind.guestLock) held.set(key, i);
    else if (kind[i] === EventKind.guestUnlock) {
      const l = held.get(key);
      if (l !== undefined) {
        out.push([l, i]);
        held.delete(key);
      }
    }
  }
  for (const l of held.values()) out.push([l, -1]);
  return out.sort((p, q) => p[0] - q[0]);
}

/** Guest spin-waits per vCPU: [startIndex, endIndex | -1 (still spinning at the window's
 * end)], from guest_spin / guest_spin_end markers. */
export function matchSpins(m: WindowData['markers']): [number, number][] {
  const { kind, task } = m;
  const open = new Map<number, number>();
  const out: [number, number][] = [];
  for (let i = 0; i < kind.length; i++) {
    if (kind[i] === EventKind.guestSpin) open.set(task[i], i);
    else if (kind[i] === EventKind.guestSpinEnd) {
      const s = open.get(task[i]);
      if (s !== undefined) {
        out.push([s, i]);
        open.delete(task[i]);
      }
    }
  }
  for (const s of open.values()) out.push([s, -1]);
  return out.sort((p, q) => p[0] - q[0]);
}

/** Draws the overlay (the caller has clipped to the lanes). */
export function drawKvmOverlay(
  ctx: Ctx2D,
  data: WindowData,
  a: Axis,
  plotX0: number,
  plotX1: number,
  top: number,
  laneH: number,
  cpus: number,
  /** Labels already on the lanes (task names); the overlay's labels avoid them. */
  boxes: LabelBoxes = new LabelBoxes(),
): KvmOverlayResult {
  const m = data.markers;
  const { t, kind, cpu, val } = m;
  const xOf = (i: number) => a.x0 + (t[i] - a.t0) * a.k;
  const inX = (x: number) => x >= plotX0 - 4 && x <= plotX1 + 4;
  const res: KvmOverlayResult = { pleExits: 0, ipiArrows: 0, yieldArrows: 0, reasonLabels: 0, lockHolds: 0, spinBands: 0 };

  // Spin-waits: an orange band across the middle of the lane wherever the waiting vCPU is on
  // a CPU (its run slices inside the wait), i.e. CPU time burnt spinning.
  const sl = data.slices;
  ctx.beginPath();
  for (const [sIdx, eIdx] of matchSpins(m)) {
    const who = m.task[sIdx];
    const from = t[sIdx];
    const to = eIdx >= 0 ? t[eIdx] : Infinity;
    for (let j = 0; j < sl.task.length; j++) {
      if (sl.task[j] !== who || sl.cpu[j] >= cpus || sl.end[j] <= from || sl.start[j] >= to) continue;
      const xa = Math.max(a.x0 + (Math.max(sl.start[j], from) - a.t0) * a.k, plotX0);
      const xb = Math.min(a.x0 + (Math.min(sl.end[j], to) - a.t0) * a.k, plotX1);
      if (xb < plotX0 || xa > plotX1) continue;
      ctx.rect(xa, top + sl.cpu[j] * laneH + laneH / 2 - 1.5, Math.max(xb - xa, 1), 3);
      res.spinBands++;
    }
  }
  if (res.spinBands) {
    ctx.fillStyle = COLOURS.pleExit;
    ctx.fill();
  }

  // Guest spinlocks held: a strip along the top of the CPU lane where the lock was taken, to
  // the unlock. When the holder is preempted the strip runs on over other tasks' slices:
  // lock-holder preemption, which is what the waiters' pause-loop exits are about.
  ctx.beginPath();
  for (const [l, u] of matchLocks(m)) {
    if (cpu[l] >= cpus) continue;
    const xa = Math.max(xOf(l), plotX0);
    const xb = Math.min(u >= 0 ? xOf(u) : plotX1, plotX1);
    if (xb < plotX0 || xa > plotX1) continue;
    ctx.rect(xa, top + cpu[l] * laneH + 1, Math.max(xb - xa, 1), 3);
    res.lockHolds++;
  }
  if (res.lockHolds) {
    ctx.fillStyle = COLOURS.lockHeld;
    ctx.fill();
  }

  // Pause-loop exits.
  ctx.beginPath();
  for (let i = 0; i < t.length; i++) {
    if (kind[i] !== EventKind.pleExit || cpu[i] >= cpus) continue;
    const x = xOf(i);
    if (!inX(x)) continue;
    const y = top + cpu[i] * laneH;
    ctx.moveTo(x, y + laneH - 7);
    ctx.lineTo(x, y + laneH - 1);
    res.pleExits++;
  }
  if (res.pleExits) {
    ctx.strokeStyle = COLOURS.pleExit;
    ctx.lineWidth = 1.5;
    ctx.stroke();
  }

  // IPI arrows: from the sender's lane (upper third) to the receiver's (upper third).
  const labels: [number, number, string][] = [];
  const ipis = matchIpis(m).filter(([s, h]) => xOf(h) >= plotX0 && xOf(s) <= plotX1);
  // Too dense to read (more than one arrow per IPI_MIN_PX): leave them out; zooming in shows them.
  const dense = ipis.length * IPI_MIN_PX > plotX1 - plotX0;
  ctx.beginPath();
  for (const [s, h] of dense ? [] : ipis) {
    if (cpu[s] >= cpus || cpu[h] >= cpus) continue;
    const x1 = xOf(s);
    const x2 = xOf(h);
    if (x2 < plotX0 || x1 > plotX1) continue;
    const y1 = top + cpu[s] * laneH + laneH / 3;
    const y2 = top + cpu[h] * laneH + laneH / 3;
    ctx.moveTo(x1, y1);
    ctx.lineTo(x2, y2);
    arrowHead(ctx, x1, y1, x2, y2);
    res.ipiArrows++;
    if (x2 - x1 > 40) labels.push([(x1 + x2) / 2, (y1 + y2) / 2 - 2, formatNs(t[h] - t[s])]);
  }
  if (res.ipiArrows) {
    ctx.strokeStyle = COLOURS.ipi;
    ctx.lineWidth = 1.25;
    ctx.stroke();
    ctx.font = '9px system-ui, sans-serif';
    ctx.fillStyle = COLOURS.ipi;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'bottom';
    for (const [x, y, s] of labels) {
      const w = ctx.measureText(s).width;
      if (x - w / 2 >= plotX0 && x + w / 2 <= plotX1 && boxes.place([{ x: x - w / 2, y: y - 10, w, h: 10 }])) ctx.fillText(s, x, y);
    }
    ctx.textAlign = 'left';
  }

  // Directed yields: from the call (lower third of the yielder's lane) to the target's next
  // switch-in (lower third of its lane), or a short stub when that is not in the window.
  const reasons: [number, number, string][] = [];
  for (const yielded of [true, false]) {
    ctx.beginPath();
    let any = false;
    for (const [y, sw] of matchYieldTo(m)) {
      if (yieldToVal(val[y]).yielded !== yielded || cpu[y] >= cpus) continue;
      const x1 = xOf(y);
      const y1 = top + cpu[y] * laneH + (2 * laneH) / 3;
      let x2 = x1 + 10;
      let y2 = y1 - 6;
      if (sw >= 0 && cpu[sw] < cpus) {
        x2 = xOf(sw);
        y2 = top + cpu[sw] * laneH + (2 * laneH) / 3;
      }
      if (x2 < plotX0 || x1 > plotX1) continue;
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
      arrowHead(ctx, x1, y1, x2, y2);
      res.yieldArrows++;
      any = true;
      if (val[y] >> 1 !== 0) reasons.push([x1, top + cpu[y] * laneH + laneH - 11, yieldToVal(val[y]).reason]);
    }
    if (!any) continue;
    ctx.strokeStyle = yielded ? COLOURS.yieldTo : COLOURS.yieldToFailed;
    ctx.lineWidth = 1.25;
    ctx.stroke();
  }
  // The reason kvm_vcpu_on_spin() chose each target, where the labels do not collide.
  ctx.font = '9px system-ui, sans-serif';
  ctx.fillStyle = COLOURS.yieldTo;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  for (const [x, y, text] of reasons.sort((p, q) => p[0] - q[0])) {
    if (x < plotX0 || x > plotX1) continue;
    // On a light plate, so that it reads over any task colour; right of the arrow's start,
    // else left of it, else not at all (label_layout.ts: it never covers a name or a label).
    const w = ctx.measureText(text).width;
    const fits = (b: Box) => b.x >= plotX0 && b.x + b.w <= plotX1;
    const at = boxes.place(
      [
        { x: x + 1, y, w: w + 2, h: 10 },
        { x: x - w - 3, y, w: w + 2, h: 10 },
      ].filter(fits),
    );
    if (!at) continue;
    ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
    ctx.fillRect(at.x, at.y, at.w, at.h);
    ctx.fillStyle = COLOURS.yieldTo;
    ctx.fillText(text, at.x + 1, at.y + 1);
    res.reasonLabels++;
  }
  return res;
}
