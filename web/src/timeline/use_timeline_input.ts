// Mouse and keyboard input of the timeline: wheel zooms around the pointer, drag pans, click
// sets the cursor and selects the task under the pointer; W/S zoom around the cursor, A/D pan
// by 20 % of the window, Left/Right move the cursor by 1 % of the window.
import { useEffect, useRef, type RefObject } from 'react';
import type { ScenarioMeta } from '../engine/protocol';
import { GUTTER_W } from './layout';
import type { BlockHit } from './TimelineBlock';
import { navKey, panView, zoomView } from './time_scale';

/** The latest props the handlers read (kept in a ref so listeners are bound once). */
export interface InputState {
  meta: ScenarioMeta;
  view: { t0: number; t1: number };
  cursor: number;
  width: number;
  hits: Map<string, BlockHit>;
  onView: (t0: number, t1: number) => void;
  onCursor: (t: number) => void;
  onSelect: (task: number | null) => void;
  onToggleGroup?: (tg: number) => void;
}

const DRAG_THRESHOLD_PX = 3;

/** True when a key event belongs to a text field or editor rather than to the timeline. */
export function isTypingTarget(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== 'string') return false;
  const tag = el.tagName.toUpperCase();
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable === true;
}

function timeAt(s: InputState, x: number): number {
  const plotW = Math.max(1, s.width - GUTTER_W);
  return s.view.t0 + ((x - GUTTER_W) / plotW) * (s.view.t1 - s.view.t0);
}

/** Moves the view ([t0, t1]) or the cursor (t) and remembers it for the next event: several
 * can arrive before the next render (which comes at most once per frame) brings the props. */
function move(latest: RefObject<InputState>, to: [number, number] | number): void {
  const s = latest.current;
  if (typeof to === 'number') {
    latest.current = { ...s, cursor: to };
    s.onCursor(to);
  } else {
    latest.current = { ...s, view: { t0: to[0], t1: to[1] } };
    s.onView(to[0], to[1]);
  }
}

/** Binds the timeline's input handlers to `root` (pointer, wheel) and to window (keys). */
export function useTimelineInput(root: RefObject<HTMLElement | null>, state: InputState): void {
  const latest = useRef(state);
  latest.current = state;

  useEffect(() => {
    const el = root.current;
    if (!el) return;
    let drag: { id: number; x: number; t0: number; t1: number; moved: boolean } | null = null;

    const onWheel = (e: WheelEvent) => {
      const s = latest.current;
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const { t0, t1 } = s.view;
      const x = e.clientX - el.getBoundingClientRect().left;
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const dt = (e.deltaX * unit * (t1 - t0)) / Math.max(1, s.width - GUTTER_W);
        move(latest, panView(t0, t1, dt, s.meta.duration_ns));
        return;
      }
      const factor = Math.min(2, Math.max(0.5, Math.exp(e.deltaY * unit * 0.0015)));
      const anchor = timeAt(s, Math.max(x, GUTTER_W));
      move(latest, zoomView(t0, t1, anchor, factor, s.meta.duration_ns));
    };

    const onDown = (e: PointerEvent) => {
      // Buttons over the lanes (a VM header's collapse toggle) handle their own clicks.
      if (e.button !== 0 || (e.target as Element | null)?.closest?.('button')) return;
      const { t0, t1 } = latest.current.view;
      drag = { id: e.pointerId, x: e.clientX, t0, t1, moved: false };
      el.setPointerCapture?.(e.pointerId);
    };

    const onMove = (e: PointerEvent) => {
      if (!drag || e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x;
      if (!drag.moved && Math.abs(dx) < DRAG_THRESHOLD_PX) return;
      drag.moved = true;
      const s = latest.current;
      const dt = (-dx * (drag.t1 - drag.t0)) / Math.max(1, s.width - GUTTER_W);
      move(latest, panView(drag.t0, drag.t1, dt, s.meta.duration_ns));
    };

    const onUp = (e: PointerEvent) => {
      if (!drag || e.pointerId !== drag.id) return;
      const wasDrag = drag.moved;
      drag = null;
      el.releasePointerCapture?.(e.pointerId);
      if (!wasDrag) click(latest.current, e.clientX, e.clientY, el);
    };

    const onCancel = () => {
      drag = null;
    };

    el.addEventListener('wheel', onWheel, { passive: false });
    el.addEventListener('pointerdown', onDown);
    el.addEventListener('pointermove', onMove);
    el.addEventListener('pointerup', onUp);
    el.addEventListener('pointercancel', onCancel);
    return () => {
      el.removeEventListener('wheel', onWheel);
      el.removeEventListener('pointerdown', onDown);
      el.removeEventListener('pointermove', onMove);
      el.removeEventListener('pointerup', onUp);
      el.removeEventListener('pointercancel', onCancel);
    };
  }, [root]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
      const s = latest.current;
      const act = navKey(e.key, s.view.t0, s.view.t1, s.cursor, s.meta.duration_ns);
      if (!act) return;
      move(latest, 'view' in act ? act.view : act.cursor);
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** A click: the cursor moves to the instant under the pointer and the task under it is selected;
 * a click on a group lane's name (in the gutter) collapses or expands that group. */
function click(s: InputState, clientX: number, clientY: number, root: HTMLElement) {
  const x = clientX - root.getBoundingClientRect().left;
  if (x >= GUTTER_W) s.onCursor(Math.min(s.meta.duration_ns, Math.max(0, timeAt(s, x))));
  for (const hit of s.hits.values()) {
    const r = hit.canvas.getBoundingClientRect();
    if (clientY < r.top || clientY >= r.bottom) continue;
    const cx = clientX - r.left;
    const cy = clientY - r.top;
    const tg = hit.entity.groupAt(cx, cy);
    if (tg !== null && cx < GUTTER_W) {
      s.onToggleGroup?.(tg);
      return;
    }
    s.onSelect(hit.cpu.taskAt(cx, cy) ?? hit.vcpu?.taskAt(cx, cy) ?? hit.entity.taskAt(cx, cy) ?? null);
    return;
  }
  s.onSelect(null);
}
