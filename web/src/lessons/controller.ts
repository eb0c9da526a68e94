// The lesson controller: which lesson and step are open, the knob being tried, and the moves
// between them, over a store (state/store.ts). Every move builds the step's view (scenario,
// variants, window, cursor, panels) and hands it to the app's `show`, which reloads only when
// the scenario or the variants change. Keys (bindLessonKeys): L opens/closes the lessons, ","
// and "." go to the previous / next step.

import type { ViewState } from '../base/share';
import type { VariantSpec } from '../engine/protocol';
import { useStore, type FrameHub, type Store, createStore } from '../state/store';
import { findLesson, LESSONS } from './data';
import type { Lesson, Step } from './model';
import { STEP_PANELS, stepScenario, stepVariants, stepWindow, tryVariant } from './step_view';

export interface LessonPos {
  id: string;
  step: number;
}

export interface LessonState {
  open: boolean;
  pos: LessonPos | null;
  /** The knob value being tried, or null. */
  tried: string | null;
}

export interface LessonActions {
  toggle: () => void;
  close: () => void;
  /** Back to the list of lessons. */
  list: () => void;
  goto: (id: string, step: number) => void;
  next: () => void;
  prev: () => void;
  tryValue: (value: string) => void;
  /** Shows the step's own state again (drops the knob). */
  back: () => void;
  /** Opens the panel at `pos` without changing the view (a share link brought the view). */
  restore: (pos: LessonPos) => void;
  /** The step's own view, with the lesson attached (for its share link); null when none. */
  stepView: () => ViewState | null;
}

/** What the lessons drawer renders: the state, its lesson and step, and the moves. */
export interface LessonController extends LessonState, LessonActions {
  lesson: Lesson | null;
  step: Step | null;
}

export interface Lessons {
  store: Store<LessonState>;
  actions: LessonActions;
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

/** The open lesson and step of a state. */
export function lessonAt(s: LessonState): { lesson: Lesson | null; step: Step | null } {
  const lesson = s.pos ? (findLesson(s.pos.id) ?? null) : null;
  return { lesson, step: lesson && s.pos ? (lesson.steps[s.pos.step] ?? null) : null };
}

export function createLessons(hub: FrameHub, show: (v: ViewState) => void, onError: (message: string) => void): Lessons {
  const store = createStore<LessonState>({ open: false, pos: null, tried: null }, hub);
  const goto = (id: string, index: number) => {
    const l = findLesson(id);
    const v = l && viewOfStep(l, index);
    if (!l || !v) return onError(`There is no step ${index + 1} in lesson "${id}" here.`);
    store.set({ open: true, pos: { id, step: index }, tried: null });
    show(v);
  };
  const actions: LessonActions = {
    toggle: () => store.set((s) => ({ open: !s.open })),
    close: () => store.set({ open: false }),
    list: () => store.set({ pos: null, tried: null }),
    goto,
    next: () => {
      const { pos } = store.get();
      const { lesson } = lessonAt(store.get());
      if (pos && lesson && pos.step + 1 < lesson.steps.length) goto(pos.id, pos.step + 1);
    },
    prev: () => {
      const { pos } = store.get();
      if (pos && pos.step > 0) goto(pos.id, pos.step - 1);
    },
    tryValue: (value) => {
      const s = store.get();
      const { lesson, step } = lessonAt(s);
      if (!lesson || !s.pos || !step) return;
      const extra = tryVariant(step, value);
      const v = extra && viewOfStep(lesson, s.pos.step, [extra]);
      if (!v) return;
      store.set({ tried: value });
      show(v);
    },
    back: () => {
      const { pos } = store.get();
      if (pos) goto(pos.id, pos.step);
    },
    restore: (p) => {
      if (findLesson(p.id)?.steps[p.step]) store.set({ open: true, pos: p, tried: null });
    },
    stepView: () => {
      const s = store.get();
      const { lesson } = lessonAt(s);
      return lesson && s.pos ? viewOfStep(lesson, s.pos.step) : null;
    },
  };
  return { store, actions };
}

function isTyping(t: EventTarget | null): boolean {
  return t instanceof HTMLElement && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable);
}

/** L, "," and "." on the page; returns the unbinding. */
export function bindLessonKeys(lessons: Lessons): () => void {
  const key = (e: KeyboardEvent) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTyping(e.target)) return;
    const { open, pos } = lessons.store.get();
    if (e.key === 'l' || e.key === 'L') lessons.actions.toggle();
    else if ((e.key === '.' || e.key === ',') && open && pos) (e.key === '.' ? lessons.actions.next : lessons.actions.prev)();
    else return;
    e.preventDefault();
  };
  window.addEventListener('keydown', key);
  return () => window.removeEventListener('keydown', key);
}

/** The lessons drawer's controller, re-rendered when the lesson state is published. */
export function useLessonController(lessons: Lessons): LessonController {
  const s = useStore(lessons.store, (x) => x);
  return { ...s, ...lessonAt(s), ...lessons.actions };
}

export { LESSONS };
