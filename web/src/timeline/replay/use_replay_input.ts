// Mouse and keyboard input of the replay timeline, as the scenario timeline's: wheel zooms
// around the pointer, drag pans, click sets the cursor (and picks what is under the pointer),
// pointer moves report what is under the pointer; Shift+drag selects an area (onArea); W/S zoom around the cursor, A/D pan by 20 %
// of the window, Left/Right move the cursor by 1 % of the window.
import { useEffect, useRef, type RefObject } from 'react';
import { GUTTER_W } from '../layout';
import { navKey, panView, zoomView } from '../time_scale';
import { isTypingTarget } from '../use_timeline_input';

export interface ReplayInputState {
  duration: number;
  view: { t0: number; t1: number };
  cursor: number;
  width: number;
  onView: (t0: number, t1: number) => void;
  onCursor: (t: number) => void;
  /** A click at canvas-relative (x, y) (the cursor has already moved there). */
  onClick: (x: number, y: number) => void;
  /** The pointer at canvas-relative (x, y), or null when it left. */
  onHover: (p: { x: number; y: number } | null) => void;
  /** False: the keyboard leaves this view alone (a second timeline sharing another's view). */
  keys?: boolean;
  /** Shift+drag: the area from (x0, y0) to (x1, y1), canvas-relative, while dragged and when
   * let go (`done`). */
  onArea?: (a: { x0: number; y0: number; x1: number; y1: number; done: boolean }) => void;
}

const DRAG_THRESHOLD_PX = 3;

export function timeAtX(s: Pick<ReplayInputState, 'view' | 'width'>, x: number): number {
  const plotW = Math.max(1, s.width - GUTTER_W);
  return s.view.t0 + ((x - GUTTER_W) / plotW) * (s.view.t1 - s.view.t0);
}

/** Moves the view ([t0, t1]) or the cursor (t) and remembers it for the next event: several
 * can arrive before the next render (which comes at most once per frame) brings the props. */
function move(latest: RefObject<ReplayInputState>, to: [number, number] | number): void {
  const s = latest.current;
  if (typeof to === 'number') {
    latest.current = { ...s, cursor: to };
    s.onCursor(to);
  } else {
    latest.current = { ...s, view: { t0: to[0], t1: to[1] } };
    s.onView(to[0], to[1]);
  }
}

/** Binds the handlers: pointer and wheel on `root` (whose box is the canvas's), keys on window. */
export function useReplayInput(root: RefObject<HTMLElement | null>, state: ReplayInputState): void {
  const latest = useRef(state);
  latest.current = state;

  useEffect(() => {
    const el = root.current;
    if (!el) return;
    let drag: { id: number; x: number; t0: number; t1: number; moved: boolean } | null = null;
    let area: { id: number; x: number; y: number } | null = null;
    const local = (e: { clientX: number; clientY: number }) => {
      const r = el.getBoundingClientRect();
      return { x: e.clientX - r.left, y: e.clientY - r.top };
    };
    const onWheel = (e: WheelEvent) => {
      const s = latest.current;
      e.preventDefault();
      const unit = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? 400 : 1;
      const { t0, t1 } = s.view;
      if (Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const dt = (e.deltaX * unit * (t1 - t0)) / Math.max(1, s.width - GUTTER_W);
        move(latest, panView(t0, t1, dt, s.duration));
        return;
      }
      const factor = Math.min(2, Math.max(0.5, Math.exp(e.deltaY * unit * 0.0015)));
      const anchor = timeAtX(s, Math.max(local(e).x, GUTTER_W));
      move(latest, zoomView(t0, t1, anchor, factor, s.duration));
    };
    const onDown = (e: PointerEvent) => {
      if (e.button !== 0) return;
      if (e.shiftKey && latest.current.onArea) {
        const p = local(e);
        area = { id: e.pointerId, x: Math.max(p.x, GUTTER_W), y: p.y };
        el.setPointerCapture?.(e.pointerId);
        return;
      }
      const { t0, t1 } = latest.current.view;
      drag = { id: e.pointerId, x: e.clientX, t0, t1, moved: false };
      el.setPointerCapture?.(e.pointerId);
    };
    const onMove = (e: PointerEvent) => {
      const s = latest.current;
      if (area && e.pointerId === area.id) {
        const p = local(e);
        s.onArea?.({ x0: area.x, y0: area.y, x1: Math.max(p.x, GUTTER_W), y1: p.y, done: false });
        return;
      }
      if (!drag || e.pointerId !== drag.id) {
        s.onHover(local(e));
        return;
      }
      const dx = e.clientX - drag.x;
      if (!drag.moved && Math.abs(dx) < DRAG_THRESHOLD_PX) return;
      drag.moved = true;
      const dt = (-dx * (drag.t1 - drag.t0)) / Math.max(1, s.width - GUTTER_W);
      move(latest, panView(drag.t0, drag.t1, dt, s.duration));
    };
    const onUp = (e: PointerEvent) => {
      if (area && e.pointerId === area.id) {
        const p = local(e);
        latest.current.onArea?.({ x0: area.x, y0: area.y, x1: Math.max(p.x, GUTTER_W), y1: p.y, done: true });
        area = null;
        el.releasePointerCapture?.(e.pointerId);
        return;
      }
      if (!drag || e.pointerId !== drag.id) return;
      const wasDrag = drag.moved;
      drag = null;
      el.releasePointerCapture?.(e.pointerId);
      if (wasDrag) return;
      const s = latest.current;
      const p = local(e);
      if (p.x >= GUTTER_W) s.onCursor(Math.min(s.duration, Math.max(0, timeAtX(s, p.x))));
      s.onClick(p.x, p.y);
    };
    const onLeave = () => latest.current.onHover(null);
    const onCancel = () => {
      drag = null;
      area = null;
    };
    el.addEventListener('wheel', onWheel, { passive: false });
    el.addEventListener('pointerdown', onDown);
    el.addEventListener('pointermove', onMove);
    el.addEventListener('pointerup', onUp);
    el.addEventListener('pointerleave', onLeave);
    el.addEventListener('pointercancel', onCancel);
    return () => {
      el.removeEventListener('wheel', onWheel);
      el.removeEventListener('pointerdown', onDown);
      el.removeEventListener('pointermove', onMove);
      el.removeEventListener('pointerup', onUp);
      el.removeEventListener('pointerleave', onLeave);
      el.removeEventListener('pointercancel', onCancel);
    };
  }, [root]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
      const s = latest.current;
      if (s.keys === false) return;
      const act = navKey(e.key, s.view.t0, s.view.t1, s.cursor, s.duration);
      if (!act) return;
      move(latest, 'view' in act ? act.view : act.cursor);
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}
