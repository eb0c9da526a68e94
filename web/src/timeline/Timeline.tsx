// The timeline view: a shared SVG time axis over one canvas block per variant (CPU lanes, the
// vCPU lanes of any VMs, then entity lanes), a cursor line across all blocks, and the zoom / pan / click / keyboard input.
import { memo, useCallback, useMemo, useRef, useState } from 'react';
import type { ScenarioMeta, WindowData } from '../engine/protocol';
import { GUTTER_W } from './layout';
import { TimeAxis } from './TimeAxis';
import { TimelineBlock, type BlockHit } from './TimelineBlock';
import { useTimelineInput } from './use_timeline_input';
import { useWidth } from './use_width';
import { vmCollapsed } from './vcpu_lanes';

export interface TimelineVariant {
  key: string;
  label: string;
  data: WindowData | null;
}

export interface TimelineProps {
  meta: ScenarioMeta;
  /** Stacked vertically, one block per variant, sharing the time axis. */
  variants: TimelineVariant[];
  /** The visible window, ns. */
  view: { t0: number; t1: number };
  /** The cursor, ns. */
  cursor: number;
  /** The selected task id. */
  selection: number | null;
  mode: 'relative' | 'absolute';
  /** Task groups whose group lane is collapsed. */
  collapsed: ReadonlySet<number>;
  onView: (t0: number, t1: number) => void;
  onCursor: (t: number) => void;
  onSelect: (task: number | null) => void;
  /** A click on a group lane's name collapses or expands it. */
  onToggleGroup: (tg: number) => void;
  /** Entity lanes to highlight (task ids, GROUP_NODE | tg), e.g. a lesson step's. */
  highlight?: readonly number[];
}

const NO_VMS: ReadonlyMap<number, boolean> = new Map();

function TimelineImpl(props: TimelineProps) {
  const { meta, variants, view, cursor, selection, mode, collapsed } = props;
  const root = useRef<HTMLDivElement>(null);
  const blocks = useRef<HTMLDivElement>(null);
  const width = useWidth(root);
  const hits = useMemo(() => new Map<string, BlockHit>(), []);
  // VMs whose vCPU lanes the user collapsed or expanded (the rest follow vcpuLayout's default);
  // kept here, per loaded scenario.
  const [vms, setVms] = useState<{ meta: ScenarioMeta; collapsed: ReadonlyMap<number, boolean> }>({ meta, collapsed: new Map() });
  const vmOverrides = vms.meta === meta ? vms.collapsed : NO_VMS;
  const onToggleVm = useCallback(
    (vm: number) =>
      setVms((prev) => {
        const cur = prev.meta === meta ? prev.collapsed : NO_VMS;
        return { meta, collapsed: new Map(cur).set(vm, !vmCollapsed(meta, cur, vm)) };
      }),
    [meta],
  );

  useTimelineInput(blocks, {
    meta,
    view,
    cursor,
    width,
    hits,
    onView: props.onView,
    onCursor: props.onCursor,
    onSelect: props.onSelect,
    onToggleGroup: props.onToggleGroup,
  });

  const span = view.t1 - view.t0;
  const cursorX = span > 0 ? GUTTER_W + ((cursor - view.t0) / span) * (width - GUTTER_W) : -1;
  const cursorVisible = width > GUTTER_W && cursorX >= GUTTER_W && cursorX <= width;

  return (
    <div ref={root} data-testid="timeline" style={{ position: 'relative', width: '100%', userSelect: 'none' }}>
      <TimeAxis t0={view.t0} t1={view.t1} width={width} />
      <div ref={blocks} style={{ position: 'relative', touchAction: 'none', cursor: 'crosshair' }}>
        {variants.map((v) => (
          <TimelineBlock
            key={v.key}
            meta={meta}
            variantKey={v.key}
            label={v.label}
            data={v.data}
            t0={view.t0}
            t1={view.t1}
            width={width}
            selection={selection}
            mode={mode}
            collapsed={collapsed}
            hits={hits}
            vmCollapsed={vmOverrides}
            onToggleVm={onToggleVm}
            highlight={props.highlight}
          />
        ))}
        {cursorVisible && (
          <div
            data-testid="timeline-cursor"
            style={{ position: 'absolute', top: 0, bottom: 0, left: Math.round(cursorX), width: 1, background: '#d32f2f', pointerEvents: 'none' }}
          />
        )}
      </div>
    </div>
  );
}

/** The timeline view (memoized: it re-renders only when its props change). */
export const Timeline = memo(TimelineImpl);
