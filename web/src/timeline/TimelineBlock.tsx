// One variant's block of the timeline: a label row and one <canvas> holding its CPU lanes (with
// migration arrows), the per-CPU PELT tracks when the run logs them (cpu_tracks.ts), and
// entity lanes (tasks and, with cgroups, group entities), plus CFS bandwidth throttled strips
// and counter tracks, and with VMs the vCPU lanes grouped by VM under the CPU lanes (each VM's
// header row has a button over its name that collapses or expands its lanes). Painting goes through the raf scheduler; the canvas reports what it drew
// in data attributes (data-slices-drawn, data-migration-arrows, data-cpu-tracks, data-samples-drawn, data-group-lanes,
// data-throttle-strips, data-counter-tracks, data-vcpu-lanes, …) and its hit-test index to the parent.
import { memo, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { ScenarioMeta, WindowData } from '../engine/protocol';
import { COUNTER_TRACK_H, CPU_LANE_H, GUTTER_W, LABEL_ROW_H, SECTION_GAP, blockCanvasHeight } from './layout';
import { LaneHighlights } from './LaneHighlights';
import { counterTracks, throttleData } from './bandwidth';
import { cpuTrackHeight, renderCpuTracks } from './cpu_tracks';
import { entityLanes, MAX_ENTITY_LANES } from './lanes';
import { renderCounterTracks, renderThrottles } from './render_bandwidth';
import { cancelRedraw, scheduleRedraw } from './raf_scheduler';
import { renderCpuLanes, type CpuHitIndex } from './render_cpu';
import { renderEntityLanes, type EntityHitIndex, type EntityMode } from './render_entity';
import { makeTimeScale } from './time_scale';
import { renderVcpuLanes, type VcpuHitIndex } from './render_vcpu';
import { pcpuLabels, vcpuLayout, vcpuStates } from './vcpu_lanes';

/** What a click needs to know about a painted block. */
export interface BlockHit {
  canvas: HTMLCanvasElement;
  cpu: CpuHitIndex;
  entity: EntityHitIndex;
  vcpu?: VcpuHitIndex;
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
  /** Task groups whose group lane is collapsed (their tasks and child groups hidden). */
  collapsed: ReadonlySet<number>;
  /** The parent's registry of painted blocks, keyed by variant key. */
  hits: Map<string, BlockHit>;
  /** VMs the user collapsed (true) or expanded (false); others follow the default. */
  vmCollapsed?: ReadonlyMap<number, boolean>;
  onToggleVm?: (vm: number) => void;
  /** Entity lanes to outline (task ids, GROUP_NODE | tg). */
  highlight?: readonly number[];
}

const NO_OVERRIDES: ReadonlyMap<number, boolean> = new Map();

export { MAX_ENTITY_LANES };

export const TimelineBlock = memo(function TimelineBlock(props: TimelineBlockProps) {
  const { meta, variantKey, label, data, t0, t1, width, selection, mode, collapsed, hits, onToggleVm } = props;
  const vmOverrides = props.vmCollapsed ?? NO_OVERRIDES;
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const lanes = useMemo(() => entityLanes(meta, selection, collapsed), [meta, selection, collapsed]);
  const tracks = useMemo(() => counterTracks(meta), [meta]);
  const throttle = useMemo(() => throttleData(meta, data), [meta, data]);
  const vcpu = useMemo(() => vcpuLayout(meta, vmOverrides), [meta, vmOverrides]);
  const vstates = useMemo(() => (data && vcpu.rows.length ? vcpuStates(meta, data) : null), [meta, data, vcpu.rows.length]);
  const cpuLabels = useMemo(() => pcpuLabels(meta), [meta]);
  const cpuTracksH = meta.cpu_counters ? meta.cpus * cpuTrackHeight(meta.cpus) : 0;
  const height = blockCanvasHeight(meta.cpus, lanes.length, tracks.length) + cpuTracksH + vcpu.height;

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
      const cpu = renderCpuLanes(ctx, { data, scale, width, top: 0, cpus: meta.cpus, taskNames, selection, dpr, labels: cpuLabels });
      const bw = renderThrottles(ctx, { data, throttle, scale, width, top: 0, cpus: meta.cpus });
      const cpuDone = performance.now();
      const pelt = cpuTracksH ? renderCpuTracks(ctx, { data, cpus: meta.cpus, scale, width, top: meta.cpus * CPU_LANE_H, end: meta.duration_ns, gutter: GUTTER_W }) : { tracks: 0, points: 0 };
      const vcpuTop = meta.cpus * CPU_LANE_H + cpuTracksH;
      const vcpuStarted = performance.now();
      const vc = renderVcpuLanes(ctx, { data, layout: vcpu, states: vstates, scale, width, top: vcpuTop, selection });
      const vcpuMs = performance.now() - vcpuStarted;
      const tracksTop = vcpuTop + vcpu.height;
      const counters = renderCounterTracks(ctx, { data, meta, tracks, scale, width, top: tracksTop });
      const top = tracksTop + tracks.length * COUNTER_TRACK_H + SECTION_GAP;
      const groups = meta.groups?.length ?? 0;
      const entity = renderEntityLanes(ctx, { data, scale, width, top, taskNames, lanes, groups, selection, mode, dpr });
      canvas.dataset.slicesDrawn = String(cpu.rects);
      canvas.dataset.migrationArrows = String(cpu.migrations.wake + cpu.migrations.balance + cpu.migrations.other);
      canvas.dataset.migrationWake = String(cpu.migrations.wake);
      canvas.dataset.migrationBalance = String(cpu.migrations.balance);
      canvas.dataset.cpuTracks = String(pelt.tracks);
      canvas.dataset.cpuTrackPoints = String(pelt.points);
      canvas.dataset.groupLanes = String(entity.groupLanes);
      canvas.dataset.throttleStrips = String(bw.strips);
      canvas.dataset.unthrottleTicks = String(bw.unthrottles);
      canvas.dataset.taskThrottled = String(bw.taskThrottled);
      canvas.dataset.throttleSource = throttle.source;
      canvas.dataset.counterTracks = String(counters);
      canvas.dataset.samplesDrawn = String(entity.samplesDrawn);
      canvas.dataset.markersDrawn = String(cpu.markers);
      canvas.dataset.pleExits = String(cpu.kvm.pleExits);
      canvas.dataset.ipiArrows = String(cpu.kvm.ipiArrows);
      canvas.dataset.yieldArrows = String(cpu.kvm.yieldArrows);
      canvas.dataset.yieldReasons = String(cpu.kvm.reasonLabels);
      canvas.dataset.lockHolds = String(cpu.kvm.lockHolds);
      canvas.dataset.spinBands = String(cpu.kvm.spinBands);
      canvas.dataset.vcpuLanes = String(vc.lanes);
      canvas.dataset.vmHeaders = String(vc.headers);
      canvas.dataset.vcpuRunningSegments = String(vc.running);
      canvas.dataset.vcpuPreemptedSegments = String(vc.preempted);
      canvas.dataset.vcpuHaltedSegments = String(vc.halted);
      canvas.dataset.vcpuSpinBands = String(vc.spinBands);
      canvas.dataset.vcpuLockHolds = String(vc.lockHolds);
      canvas.dataset.vcpuIpiArrows = String(vc.ipiArrows);
      canvas.dataset.vcpuYieldArrows = String(vc.yieldArrows);
      canvas.dataset.vcpuYieldReasons = String(vc.reasonLabels);
      canvas.dataset.vcpuPaintMs = vcpuMs.toFixed(2);
      canvas.dataset.cpuPaintMs = (cpuDone - started).toFixed(2);
      canvas.dataset.paintMs = (performance.now() - started).toFixed(2);
      hits.set(variantKey, { canvas, cpu: cpu.hit, entity: entity.hit, vcpu: vc.hit });
    }, canvas);
  }, [meta, variantKey, data, t0, t1, width, height, selection, mode, hits, lanes, tracks, throttle, vcpu, vstates, cpuLabels, cpuTracksH]);

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
      <div style={{ position: 'relative' }}>
        <canvas
          ref={canvasRef}
          data-variant={variantKey}
          data-lanes={meta.cpus + lanes.length}
          style={{ display: 'block', width: Math.max(width, 0), height }}
        />
        <LaneHighlights lanes={lanes} ids={props.highlight} top={meta.cpus * CPU_LANE_H + cpuTracksH + vcpu.height + tracks.length * COUNTER_TRACK_H + SECTION_GAP} width={width} />
        {vcpu.rows
          .filter((r) => r.kind === 'vm')
          .map((r) => (
            <button
              key={r.vm}
              type="button"
              data-testid="vm-toggle"
              aria-expanded={!r.collapsed}
              aria-label={`${r.collapsed ? 'Show' : 'Hide'} the ${r.vcpus} vCPU lanes of ${r.label}`}
              title={`${r.collapsed ? 'Show' : 'Hide'} the vCPU lanes of ${r.label}`}
              onClick={() => onToggleVm?.(r.vm)}
              className="vm-toggle"
              style={{ position: 'absolute', left: 0, top: meta.cpus * CPU_LANE_H + cpuTracksH + r.y, width: GUTTER_W, height: r.h, padding: 0, border: 'none', background: 'transparent', cursor: 'pointer' }}
            />
          ))}
      </div>
    </div>
  );
});
