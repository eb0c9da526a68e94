// Pure canvas renderer of the vCPU lanes (vcpu_lanes.ts gives the rows and the states): per
// VM a header row (name, vCPU count, guest ops in the window), per vCPU a thin lane with its
// running spans in the task's colour (the pCPU written in them when there is room), its
// runnable-but-preempted spans hatched grey, its halted spans as a thin grey line, the
// on-CPU parts of its guest spin-waits as an orange band, a red strip along the top while it
// holds a guest lock, and IPI and directed-yield arrows between the vCPU lanes (as on the
// pCPU overlay: purple IPIs, green yield_to that yielded, grey ones that returned early, each
// labelled with the reason its target was chosen where the lanes have room; either kind left
// out while denser than one arrow per IPI_MIN_PX). No label covers another (label_layout.ts).
import type { WindowData } from '../engine/protocol';
import { COLOURS, taskColour, taskColourMerged, taskTextColour } from './palette';
import { affineOf, type TimeScale } from './time_scale';
import { GUTTER_W, type Ctx2D } from './layout';
import { LabelBoxes, type Box } from './label_layout';
import { arrowHead, IPI_MIN_PX, matchIpis, matchYieldTo, yieldToVal } from './render_kvm';
import { opsIn, VCPU_LANE_H, type VcpuLayout, type VcpuRow, type VcpuStates } from './vcpu_lanes';

export interface VcpuLanesOpts {
  data: WindowData | null;
  layout: VcpuLayout;
  /** The states derived from `data` (vcpuStates), or null without data. */
  states: VcpuStates | null;
  scale: TimeScale;
  width: number;
  /** y of the vCPU block (its gap included), CSS px. */
  top: number;
  selection: number | null;
  gutter?: number;
}

export interface VcpuLanesResult {
  lanes: number;
  headers: number;
  running: number;
  preempted: number;
  halted: number;
  spinBands: number;
  lockHolds: number;
  ipiArrows: number;
  yieldArrows: number;
  reasonLabels: number;
  hit: VcpuHitIndex;
}

/** What lies under a point of the vCPU block. */
export interface VcpuHitIndex {
  top: number;
  bottom: number;
  /** The vCPU task whose lane is at y, or null. */
  taskAt(x: number, y: number): number | null;
  /** The VM whose header row is at y, or null. */
  vmAt(x: number, y: number): number | null;
}

/** Colours of the vCPU states that are not a task's colour. */
export const VCPU_COLOURS = {
  preempted: '#cfd8dc',
  hatch: '#78909c',
  halted: '#9e9e9e',
} as const;

function rowAt(layout: VcpuLayout, top: number, y: number): VcpuRow | null {
  for (const r of layout.rows) if (y >= top + r.y && y < top + r.y + r.h) return r;
  return null;
}

export function vcpuHitIndex(layout: VcpuLayout, top: number): VcpuHitIndex {
  return {
    top,
    bottom: top + layout.height,
    taskAt: (_x, y) => {
      const r = rowAt(layout, top, y);
      return r && r.kind === 'vcpu' ? r.task : null;
    },
    vmAt: (_x, y) => {
      const r = rowAt(layout, top, y);
      return r && r.kind === 'vm' ? r.vm : null;
    },
  };
}

/** The text of a VM header row after its name; guest ops are counted over [t0, t1). */
export function vmHeaderText(row: VcpuRow, states: VcpuStates | null, hasData: boolean, t0 = -Infinity, t1 = Infinity): string {
  const parts = [`${row.vcpus} vCPU${row.vcpus === 1 ? '' : 's'}`];
  if (states?.known) parts.push(`${opsIn(states, row.vm, t0, t1)} guest ops in view`);
  if (row.hidden > 0) parts.push(`${row.hidden} lanes not shown`);
  if (hasData && states && !states.known) parts.push('zoom in for guest ops and the preempted / halted states');
  return parts.join(' · ');
}

/** Draws the vCPU block; see the file comment. */
export function renderVcpuLanes(ctx: Ctx2D, opts: VcpuLanesOpts): VcpuLanesResult {
  const { data, layout, states, scale, width, top, selection } = opts;
  const gutter = opts.gutter ?? GUTTER_W;
  const plotX0 = gutter;
  const plotX1 = width;
  const res: VcpuLanesResult = {
    lanes: layout.lanes,
    headers: layout.headers,
    running: 0,
    preempted: 0,
    halted: 0,
    spinBands: 0,
    lockHolds: 0,
    ipiArrows: 0,
    yieldArrows: 0,
    reasonLabels: 0,
    hit: vcpuHitIndex(layout, top),
  };
  if (layout.rows.length === 0) return res;
  const { k, t0, x0 } = affineOf(scale);
  const X = (t: number) => x0 + (t - t0) * k;
  /** A span clipped to the plot, or null when it is outside. */
  const span = (a: number, b: number): [number, number] | null => {
    const xa = Math.max(X(a), plotX0 - 1);
    const xb = Math.min(X(b), plotX1 + 1);
    if (xb < plotX0 || xa > plotX1) return null;
    return [xa, Math.max(xb - xa, 1)];
  };

  // Row backgrounds and labels.
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  let alt = false;
  for (const r of layout.rows) {
    const y = top + r.y;
    if (r.kind === 'vm') {
      ctx.fillStyle = COLOURS.groupBg;
      ctx.fillRect(0, y, width, r.h);
      ctx.fillStyle = COLOURS.group;
      ctx.font = 'bold 10px system-ui, sans-serif';
      ctx.fillText(`${r.collapsed ? '▸' : '▾'} ${r.label}`, 6, y + r.h / 2);
      ctx.font = '10px system-ui, sans-serif';
      ctx.fillStyle = COLOURS.mutedText;
      const [v0, v1] = scale.domain();
      ctx.fillText(vmHeaderText(r, states, data !== null, v0, v1), plotX0 + 4, y + r.h / 2);
      alt = false;
      continue;
    }
    ctx.fillStyle = r.task === selection ? COLOURS.selectionBg : alt ? COLOURS.laneBgAlt : COLOURS.laneBg;
    ctx.fillRect(0, y, width, r.h);
    alt = !alt;
    ctx.font = `${r.h >= 14 ? 10 : 9}px system-ui, sans-serif`;
    ctx.fillStyle = r.task === selection ? COLOURS.text : COLOURS.mutedText;
    ctx.fillText(r.label, 14, y + r.h / 2, gutter - 18);
  }
  if (!data || !states) return res;

  const lanes = layout.rows.filter((r) => r.kind === 'vcpu');
  const laneOf = new Map<number, VcpuRow>();
  for (const r of lanes) laneOf.set(r.task, r);

  ctx.save();
  ctx.beginPath();
  ctx.rect(plotX0, top, plotX1 - plotX0, layout.height);
  ctx.clip();

  // Preempted: grey, hatched (the hatching clipped to the preempted spans).
  ctx.beginPath();
  for (const r of lanes) {
    for (const s of states.segments[r.task] ?? []) {
      if (s.state !== 'preempted') continue;
      const sp = span(s.start, s.end);
      if (!sp) continue;
      ctx.rect(sp[0], top + r.y + 1, sp[1], r.h - 2);
      res.preempted++;
    }
  }
  if (res.preempted) {
    ctx.fillStyle = VCPU_COLOURS.preempted;
    ctx.fill();
    ctx.save();
    ctx.clip();
    ctx.beginPath();
    const y0 = top;
    const y1 = top + layout.height;
    for (let x = plotX0 - (y1 - y0); x < plotX1; x += 5) {
      ctx.moveTo(x, y1);
      ctx.lineTo(x + (y1 - y0), y0);
    }
    ctx.strokeStyle = VCPU_COLOURS.hatch;
    ctx.lineWidth = 0.75;
    ctx.stroke();
    ctx.restore();
  }

  // Halted: a thin line along the middle of the lane.
  ctx.beginPath();
  for (const r of lanes) {
    for (const s of states.segments[r.task] ?? []) {
      if (s.state !== 'halted') continue;
      const sp = span(s.start, s.end);
      if (!sp) continue;
      ctx.rect(sp[0], top + r.y + r.h / 2 - 0.5, sp[1], 1);
      res.halted++;
    }
  }
  if (res.halted) {
    ctx.fillStyle = VCPU_COLOURS.halted;
    ctx.fill();
  }

  // Running: the task's colour (darker where the slice merges several short runs), with the
  // pCPU written in it where it fits.
  const named: [number, number, number, VcpuRow][] = [];
  for (const r of lanes) {
    let lastFill = '';
    for (const s of states.segments[r.task] ?? []) {
      if (s.state !== 'running') continue;
      const sp = span(s.start, s.end);
      if (!sp) continue;
      const fill = s.merged ? taskColourMerged(r.task) : taskColour(r.task);
      if (fill !== lastFill) ctx.fillStyle = lastFill = fill;
      ctx.fillRect(sp[0], top + r.y + 1, sp[1], r.h - 2);
      res.running++;
      if (sp[1] > 12) named.push([sp[0], sp[1], s.cpu, r]);
    }
  }

  // Spin-waits: an orange band across the on-CPU parts of each wait.
  ctx.beginPath();
  for (const r of lanes) {
    // Both lists are in time order and neither overlaps itself: one merge pass.
    const runs = (states.segments[r.task] ?? []).filter((s) => s.state === 'running');
    const waits = states.spins[r.task] ?? [];
    const bh = Math.max(2, Math.round(r.h * 0.3));
    for (let i = 0, j = 0; i < waits.length && j < runs.length; ) {
      const [a, b] = waits[i];
      const s = runs[j];
      const from = Math.max(a, s.start);
      const to = Math.min(b, s.end);
      if (to > from) {
        const sp = span(from, to);
        if (sp) {
          ctx.rect(sp[0], top + r.y + (r.h - bh) / 2, sp[1], bh);
          res.spinBands++;
        }
      }
      if (b < s.end) i++;
      else j++;
    }
  }
  if (res.spinBands) {
    ctx.fillStyle = COLOURS.pleExit;
    ctx.fill();
  }

  // The pCPU numbers, after the bands so that they stay readable.
  const boxes = new LabelBoxes();
  for (const [xa, w, cpu, r] of named) {
    const px = r.h >= 14 ? 9 : 8;
    ctx.font = `${px}px system-ui, sans-serif`;
    const long = `cpu${cpu}`;
    const lw = ctx.measureText(long).width;
    const sw = ctx.measureText(String(cpu)).width;
    const text = lw + 4 <= w ? long : sw + 4 <= w ? String(cpu) : '';
    if (!text) continue;
    const tx = Math.max(xa, plotX0) + 2;
    const ty = top + r.y + r.h / 2;
    ctx.fillStyle = taskTextColour(r.task);
    ctx.fillText(text, tx, ty);
    boxes.add({ x: tx, y: ty - px / 2, w: text === long ? lw : sw, h: px });
  }

  // Guest locks held: a strip along the top of the lane, running on while the holder is
  // preempted (lock-holder preemption).
  ctx.beginPath();
  for (const r of lanes) {
    for (const [a, b] of states.locks[r.task] ?? []) {
      const sp = span(a, b);
      if (!sp) continue;
      ctx.rect(sp[0], top + r.y + 1, sp[1], 2);
      res.lockHolds++;
    }
  }
  if (res.lockHolds) {
    ctx.fillStyle = COLOURS.lockHeld;
    ctx.fill();
  }

  // IPI arrows between the lanes, left out while denser than one per IPI_MIN_PX.
  const m = data.markers;
  const mid = (r: VcpuRow) => top + r.y + r.h / 2;
  const ipis = matchIpis(m).filter(([s, h]) => laneOf.has(m.task[s]) && laneOf.has(m.task[h]) && X(m.t[h]) >= plotX0 && X(m.t[s]) <= plotX1);
  if (ipis.length * IPI_MIN_PX <= plotX1 - plotX0) {
    ctx.beginPath();
    for (const [s, h] of ipis) {
      const a = laneOf.get(m.task[s])!;
      const b = laneOf.get(m.task[h])!;
      const x1 = X(m.t[s]);
      const x2 = X(m.t[h]);
      ctx.moveTo(x1, mid(a));
      ctx.lineTo(x2, mid(b));
      arrowHead(ctx, x1, mid(a), x2, mid(b));
      res.ipiArrows++;
    }
    if (res.ipiArrows) {
      ctx.strokeStyle = COLOURS.ipi;
      ctx.lineWidth = 1.25;
      ctx.stroke();
    }
  }

  // Directed yields: from the yield_to() call in the spinner's lane to the target's lane where
  // it next ran, or a short stub when that is outside the window or its lane is not shown.
  // Like the IPIs, left out while denser than one per IPI_MIN_PX (the pCPU overlay keeps them).
  const yields = matchYieldTo(m).filter(([y, sw]) => laneOf.has(m.task[y]) && X(m.t[y]) <= plotX1 && Math.max(X(m.t[y]) + 8, sw >= 0 ? X(m.t[sw]) : -Infinity) >= plotX0);
  const yieldsDense = yields.length * IPI_MIN_PX > plotX1 - plotX0;
  const reasons: [number, number, string][] = [];
  for (const yielded of yieldsDense ? [] : [true, false]) {
    ctx.beginPath();
    let any = false;
    for (const [y, sw] of yields) {
      const from = laneOf.get(m.task[y]);
      if (!from || yieldToVal(m.val[y]).yielded !== yielded) continue;
      const x1 = X(m.t[y]);
      const y1 = mid(from);
      const to = laneOf.get(m.arg[y]);
      let x2 = x1 + 8;
      let y2 = y1 - 4;
      if (to) {
        x2 = sw >= 0 ? X(m.t[sw]) : x1;
        y2 = mid(to);
      }
      if (Math.max(x1, x2) < plotX0 || Math.min(x1, x2) > plotX1) continue;
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
      arrowHead(ctx, x1, y1, x2, y2);
      res.yieldArrows++;
      any = true;
      // Reasons only where the lanes are tall enough for a label (the pCPU overlay has them too).
      if (m.val[y] >> 1 !== 0 && from.h >= VCPU_LANE_H) reasons.push([x1, top + from.y, yieldToVal(m.val[y]).reason]);
    }
    if (!any) continue;
    ctx.strokeStyle = yielded ? COLOURS.yieldTo : COLOURS.yieldToFailed;
    ctx.lineWidth = 1.25;
    ctx.stroke();
  }
  ctx.font = '8px system-ui, sans-serif';
  ctx.textAlign = 'left';
  ctx.textBaseline = 'top';
  for (const [x, y, text] of reasons.sort((p, q) => p[0] - q[0])) {
    if (x < plotX0 || x > plotX1) continue;
    // Right of the arrow's start, else left of it, else dropped: never over a pCPU number
    // or another reason (label_layout.ts).
    const w = ctx.measureText(text).width;
    const fits = (b: Box) => b.x >= plotX0 && b.x + b.w <= plotX1;
    const at = boxes.place(
      [
        { x: x + 1, y: y + 2, w: w + 2, h: 9 },
        { x: x - w - 3, y: y + 2, w: w + 2, h: 9 },
      ].filter(fits),
    );
    if (!at) continue;
    ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
    ctx.fillRect(at.x, at.y, at.w, at.h);
    ctx.fillStyle = COLOURS.yieldTo;
    ctx.fillText(text, at.x + 1, at.y + 0.5);
    res.reasonLabels++;
  }
  ctx.restore();
  ctx.textBaseline = 'middle';
  return res;
}
