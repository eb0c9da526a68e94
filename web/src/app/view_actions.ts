// The shell's small actions: the view window, the cursor, the selection, panels, mode, the
// editor's text, messages; and the shareable view (share links, the test hook) read from the
// stores as they are now.

import { encodeState, shareUrl, type ViewState } from '../base/share';
import type { Lessons } from '../lessons/controller';
import type { LaneMode, PanelId } from '../state/types';
import type { ShellCtx } from './shell_ctx';

const LINK_PANELS: readonly string[] = ['editor', 'inspector', 'metrics', 'help'];

function toggled<T>(s: ReadonlySet<T>, x: T): ReadonlySet<T> {
  const n = new Set(s);
  if (n.has(x)) n.delete(x);
  else n.add(x);
  return n;
}

export type ViewActions = ReturnType<typeof createViewActions>;

export function createViewActions({ viewport, session }: ShellCtx, lessons: Lessons) {
  /** The view as a share link holds it. */
  const viewState = (): ViewState => {
    const { sim, selection, panels, mode } = session.get();
    const { view, cursor } = viewport.get();
    const l = lessons.store.get();
    return {
      scenario: sim.ref,
      variants: sim.variants,
      window: [view.t0, view.t1],
      cursor,
      selection,
      // The cgroup tree is not a share-link panel (see PanelId): it is left out of links.
      panels: [...panels].filter((p) => p !== 'cgroups'),
      mode,
      ...(l.open && l.pos ? { lesson: l.pos } : {}),
    };
  };

  return {
    setView: (t0: number, t1: number) => viewport.set({ view: { t0, t1 } }),
    setCursor: (t: number) => viewport.set({ cursor: t }),
    /** The playback bar's range input (a controlled input: published at once). */
    scrub: (t: number) => viewport.set({ cursor: t }, { now: true }),
    select: (task: number | null) => session.set({ selection: task }),
    toggleGroup: (tg: number) => session.set((s) => ({ collapsed: toggled(s.collapsed, tg) })),
    togglePanel: (p: PanelId) => session.set((s) => ({ panels: toggled(s.panels, p) })),
    closeHelp: () => session.set((s) => (s.panels.has('help') ? { panels: toggled(s.panels, 'help') } : {})),
    setMode: (mode: LaneMode) => session.set({ mode }, { now: true }),
    setEditorText: (editorText: string) => session.set({ editorText }, { now: true }),
    toggleGuide: () => session.set((s) => ({ guide: !s.guide })),
    closeGuide: () => session.set({ guide: false }),
    notify: (notice: string) => session.set({ notice }),
    dismissNotice: () => session.set({ notice: null }),
    dismissPageError: () => session.set({ pageError: null }),

    /** Applies a view's window, cursor, selection, panels and mode (its scenario is loaded). */
    applyView: (r: ViewState, duration: number) => {
      viewport.set({ view: { t0: r.window[0], t1: Math.min(r.window[1], duration) }, cursor: r.cursor });
      session.set((s) => ({
        selection: r.selection,
        panels: new Set(r.panels.filter((p): p is PanelId => LINK_PANELS.includes(p))),
        mode: r.mode ?? s.mode,
      }));
    },

    viewState,
    shareUrl: async (): Promise<string> => shareUrl(window.location.href.split('#')[0], await encodeState(viewState())),
  };
}
