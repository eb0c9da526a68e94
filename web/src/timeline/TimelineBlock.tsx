// One variant's block of the timeline: a label row and one <canvas> holding its CPU lanes and
// entity lanes. Painting goes through the raf scheduler; the canvas reports what it drew in
// data attributes (data-slices-drawn, data-samples-drawn) and its hit-test index to the parent.
import { memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { ScenarioMeta, WindowData } from '../engine/protocol';
import { CPU_LANE_H, GUTTER_W, LABEL_ROW_H, SECTION_GAP, blockCanvasHeight } from './layout';
import { cancelRedraw, scheduleRedraw } from './raf_scheduler';
import { renderCpuLanes, type CpuHitIndex } from './render_cpu';
import { renderEntityLanes, type EntityHitIndex, type EntityMode } from './render_entity';
import { makeTimeScale } from './time_scale';

/** What a click needs to know about a painted block. */
export interface BlockHit {
  canvas: HTMLCanvasElement;
  cpu: CpuHitIndex;
  entity: EntityHitIndex;
}

export interface TimelineBlockProps {
  meta: ScenarioMeta;
  variantKey: string;
  label: string;
  data: WindowData | null;
  t0: number;
  t1: number;
  width: number;
  selection: number | null;
  mode: EntityMode;
  /** The parent's registry of painted blocks, keyed by variant key. */
  hits: Map<string, BlockHit>;
}

/** At most this many entity lanes are drawn; beyond it, the first ones plus the selection. */
export const MAX_ENTITY_LANES = 16;

/** Task ids that get an entity lane: all of them for small scenarios, else the first
 * MAX_ENTITY_LANES − 1 and the selected task (click a CPU slice to bring a task's lane in). */
export function entityLaneTasks(ntasks: number, selection: number | null): number[] {
  if (ntasks <= MAX_ENTITY_LANES) return Array.from({ length: ntasks }, (_, i) => i);
  const out = Array.from({ length: MAX_ENTITY_LANES - 1 }, (_, i) => i);
  if (selection !== null && selection >= out.length && selection < ntasks) out.push(selection);
  return out;
}

export const TimelineBlock = memo(function TimelineBlock(props: TimelineBlockProps) {
  const { meta, variantKey, label, data, t0, t1, width, selection, mode, hits } = props;
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const shown = useMemo(() => entityLaneTasks(meta.tasks.length, selection), [meta.tasks.length, selection]);
  const height = blockCanvasHeight(meta.cpus, shown.length);

  useLayoutEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    scheduleRedraw(() => {
      const started = performance.now();
      const dpr = window.devicePixelRatio || 1;
      const w = Math.max(0, Math.round(width * dpr));
      const h = Math.max(0, Math.round(height * dpr));
      if (canvas.width !== w) canvas.width = w;
      if (canvas.height !== h) canvas.height = h;
      const ctx = canvas.getContext('2d');
      if (!ctx) return;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      const scale = makeTimeScale(t0, t1, GUTTER_W, width);
      const taskNames = meta.tasks.map((t) => t.name);
      const cpu = renderCpuLanes(ctx, { data, scale, width, top: 0, cpus: meta.cpus, taskNames, selection, dpr });
      const cpuDone = performance.now();
      const top = meta.cpus * CPU_LANE_H + SECTION_GAP;
      const entity = renderEntityLanes(ctx, { data, scale, width, top, taskNames, tasks: shown, selection, mode, dpr });
      canvas.dataset.slicesDrawn = String(cpu.rects);
      canvas.dataset.samplesDrawn = String(entity.samplesDrawn);
      canvas.dataset.markersDrawn = String(cpu.markers);
      canvas.dataset.cpuPaintMs = (cpuDone - started).toFixed(2);
      canvas.dataset.paintMs = (performance.now() - started).toFixed(2);
      hits.set(variantKey, { canvas, cpu: cpu.hit, entity: entity.hit });
    }, canvas);
  }, [meta, variantKey, data, t0, t1, width, height, selection, mode, hits, shown]);

  useEffect(() => {
    const canvas = canvasRef.current;
    return () => {
      if (canvas) cancelRedraw(canvas);
      hits.delete(variantKey);
    };
  }, [hits, variantKey]);

  return (
    <div data-testid="timeline-block" data-variant={variantKey}>
      <div
        style={{ height: LABEL_ROW_H, lineHeight: `${LABEL_ROW_H}px`, fontSize: 12, fontWeight: 600, paddingLeft: 6, whiteSpace: 'nowrap', overflow: 'hidden' }}
      >
        {label}
        {data === null && <span style={{ fontWeight: 400, color: '#6e7781' }}> — loading…</span>}
      </div>
      <canvas
        ref={canvasRef}
        data-variant={variantKey}
        data-lanes={meta.cpus + shown.length}
        style={{ display: 'block', width: Math.max(width, 0), height }}
      />
    </div>
  );
});
