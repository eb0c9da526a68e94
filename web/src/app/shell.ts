// The app shell outside React: the engine client, the frame hub and the stores, and the
// controllers over them (loading, view actions, playback, queries, trace import and replay,
// lessons). createShell() builds it; startShell() binds the page listeners, the queries and the
// test hook and opens the first view. React components only read the stores and call actions.

import { flushSync } from 'react-dom';
import { EngineClient } from '../engine/client';
import { bindLessonKeys, createLessons, type Lessons } from '../lessons/controller';
import { createStore, FrameHub, type Store } from '../state/store';
import type { PanelId, Session, TraceImports, Viewport } from '../state/types';
import { EMPTY_WINDOW } from '../state/window_cache';
import { scheduleRedraw } from '../timeline/raf_scheduler';
import { createLoader, type Loader } from './loading';
import { bindPageEvents } from './page_events';
import { createPlayback, type Playback } from './playback';
import { createReplay, type Replay } from './replay';
import { createAb, type Ab } from './ab';
import { createReplayShare, type ReplayShareActions } from './replay_share';
import { startSimQueries } from './sim_queries';
import { openFromUrl, BASELINE, DEFAULT_ENTRY } from './startup';
import { installTestHook } from './test_hook';
import { createTraceImports, NO_IMPORT, type TraceImportActions } from './trace_imports';
import { detach, type ShellCtx } from './shell_ctx';
import { createViewActions, type ViewActions } from './view_actions';

export interface Shell extends ShellCtx {
  view: ViewActions;
  loader: Loader;
  playback: Playback;
  traces: TraceImportActions;
  replay: Replay;
  /** The A/B comparison beside the replay (a second capture). */
  ab: Ab;
  /** The replay view's share links. */
  replayShare: ReplayShareActions;
  lessons: Lessons;
  /** The simulated timeline's width in px (for the windows' bucket), set by its wrapper. */
  plotWidth: { current: number };
}

const PANELS: PanelId[] = ['editor', 'inspector', 'metrics'];

export function createShell(): Shell {
  const hub = new FrameHub({ request: scheduleRedraw, batch: (fn) => flushSync(fn) });
  const e = DEFAULT_ENTRY;
  const viewport: Store<Viewport> = createStore<Viewport>(
    { view: { t0: 0, t1: 1 }, cursor: 0, playing: false, speed: 1e6, windows: EMPTY_WINDOW, cursorStates: {}, cursorError: null, cgroup: EMPTY_WINDOW },
    hub,
  );
  const session: Store<Session> = createStore<Session>(
    {
      sim: { ref: { kind: 'bundled', name: e.id, hash: e.hash }, file: e.file, text: e.text, variants: [BASELINE], run: null, meta: null, loaded: [], error: null, progress: null },
      selection: null,
      collapsed: new Set(),
      panels: new Set(PANELS),
      mode: 'relative',
      notice: null,
      pageError: null,
      engineDown: false,
      editorText: e.text,
      guide: false,
    },
    hub,
  );
  const imports: Store<TraceImports> = createStore(NO_IMPORT, hub);
  const ctx: ShellCtx = { client: new EngineClient(), hub, viewport, session, imports };

  // The lessons and the loader need each other: a lesson step shows its view through the loader.
  let loader: Loader | null = null;
  const lessons = createLessons(hub, (v) => loader?.showView(v), (m) => session.set({ notice: m }));
  const view = createViewActions(ctx, lessons);
  loader = createLoader(ctx, view);
  const playback = createPlayback(ctx);
  const replay = createReplay(ctx);
  const traces = createTraceImports(ctx, replay, playback);
  const ab = createAb(ctx, replay);
  const replayShare = createReplayShare(ctx, traces, replay, ab);
  return { ...ctx, view, loader, playback, traces, replay, ab, replayShare, lessons, plotWidth: { current: 1200 } };
}

/** Starts the shell: page listeners, queries, the test hook, then the first view. */
export function startShell(shell: Shell): () => void {
  const offs = [
    bindPageEvents(shell, { loader: shell.loader, view: shell.view, playback: shell.playback, imports: shell.traces, shareFiles: shell.replayShare.give }),
    bindLessonKeys(shell.lessons),
    startSimQueries(shell, () => shell.plotWidth.current),
    installTestHook({ client: shell.client, hub: shell.hub, getState: shell.view.viewState, shareUrl: shell.view.shareUrl, importFiles: shell.traces.importFiles }),
    shell.replay.start(),
    shell.ab.start(),
  ];
  detach(shell, openFromUrl(window.location.hash.replace(/^#/, ''), shell.loader, shell.view, shell.lessons, shell.replayShare));
  return () => offs.forEach((off) => off());
}
