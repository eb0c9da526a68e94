// The lesson controller: which lesson and step are open, the knob being tried, and the moves
// between them. Every move builds the step's view (scenario, variants, window, cursor,
// panels) and hands it to the app's `show`, which reloads only when the scenario or the
// variants change. Keys: L opens/closes the lessons, "," and "." go to the previous / next step.

import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { ViewState } from '../base/share';
import type { VariantSpec } from '../engine/protocol';
import { findLesson, LESSONS } from './data';
import type { Lesson, Step } from './model';
import { STEP_PANELS, stepScenario, stepVariants, stepWindow, tryVariant } from './step_view';

export interface LessonPos {
  id: string;
  step: number;
}

export interface LessonController {
  open: boolean;
  pos: LessonPos | null;
  lesson: Lesson | null;
  step: Step | null;
  /** The knob value being tried, or null. */
  tried: string | null;
  toggle(): void;
  close(): void;
  /** Back to the list of lessons. */
  list(): void;
  goto(id: string, step: number): void;
  next(): void;
  prev(): void;
  tryValue(value: string): void;
  /** Shows the step's own state again (drops the knob). */
  back(): void;
  /** Opens the panel at `pos` without changing the view (a share link brought the view). */
  restore(pos: LessonPos): void;
  /** The step's own view, with the lesson attached (for its share link); null when none. */
  stepView(): ViewState | null;
}

/** The view of `step` of `lesson`, with `extra` variants appended (the knob's). */
export function viewOfStep(lesson: Lesson, index: number, extra: VariantSpec[] = []): ViewState | null {
  const step = lesson.steps[index];
  const g = step && stepScenario(lesson, step);
  const variants = step && stepVariants(step);
  if (!step || !g || typeof variants === 'string') return null;
  const w = stepWindow(step, null);
  return {
    scenario: { kind: 'bundled', name: g.id, hash: g.hash },
    variants: [...variants, ...extra].slice(0, 4),
    window: w.window,
    cursor: w.cursor,
    selection: null,
    panels: STEP_PANELS,
    mode: 'relative',
    lesson: { id: lesson.id, step: index },
  };
}

function isTyping(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || el.isContentEditable);
}

export function useLessons(show: (v: ViewState) => void, onError: (message: string) => void): LessonController {
  const [open, setOpen] = useState(false);
  const [pos, setPos] = useState<LessonPos | null>(null);
  const [tried, setTried] = useState<string | null>(null);
  const lesson = pos ? (findLesson(pos.id) ?? null) : null;
  const step = lesson && pos ? (lesson.steps[pos.step] ?? null) : null;

  const goto = useCallback(
    (id: string, index: number) => {
      const l = findLesson(id);
      const v = l && viewOfStep(l, index);
      if (!l || !v) return onError(`There is no step ${index + 1} in lesson "${id}" here.`);
      setOpen(true);
      setPos({ id, step: index });
      setTried(null);
      show(v);
    },
    [show, onError],
  );

  const latest = useRef({ open, pos, lesson, goto });
  latest.current = { open, pos, lesson, goto };
  const next = useCallback(() => {
    const { pos: p, lesson: l, goto: g } = latest.current;
    if (p && l && p.step + 1 < l.steps.length) g(p.id, p.step + 1);
  }, []);
  const prev = useCallback(() => {
    const { pos: p, goto: g } = latest.current;
    if (p && p.step > 0) g(p.id, p.step - 1);
  }, []);

  const tryValue = useCallback(
    (value: string) => {
      if (!lesson || !pos || !step) return;
      const extra = tryVariant(step, value);
      const v = extra && viewOfStep(lesson, pos.step, [extra]);
      if (!v) return;
      setTried(value);
      show(v);
    },
    [lesson, pos, step, show],
  );
  const back = useCallback(() => {
    if (pos) goto(pos.id, pos.step);
  }, [pos, goto]);
  const toggle = useCallback(() => setOpen((o) => !o), []);
  const close = useCallback(() => setOpen(false), []);
  const list = useCallback(() => {
    setPos(null);
    setTried(null);
  }, []);
  const restore = useCallback((p: LessonPos) => {
    if (!findLesson(p.id)?.steps[p.step]) return;
    setOpen(true);
    setPos(p);
    setTried(null);
  }, []);
  const stepView = useCallback(() => (lesson && pos ? viewOfStep(lesson, pos.step) : null), [lesson, pos]);

  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
      if (e.key === 'l' || e.key === 'L') setOpen((o) => !o);
      else if ((e.key === '.' || e.key === ',') && latest.current.open && latest.current.pos) (e.key === '.' ? next : prev)();
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  }, [next, prev]);

  return useMemo(
    () => ({ open, pos, lesson, step, tried, toggle, close, list, goto, next, prev, tryValue, back, restore, stepView }),
    [open, pos, lesson, step, tried, toggle, close, list, goto, next, prev, tryValue, back, restore, stepView],
  );
}

export { LESSONS };
