// What the page listens to outside React: files dropped anywhere, the shell's keys (`?` and
// Escape for the help, Space, `[` and `]` for playback), and failures: the engine worker's
// (EngineClient.onFailure), uncaught errors and unhandled rejections all show in the page's
// error banner.

import { WorkerFailure } from '../engine/client';
import { isScenarioFile } from '../state/trace_import';
import { errorMessage } from '../base/errors';
import { isTypingTarget } from '../timeline/use_timeline_input';
import type { Loader } from './loading';
import type { Playback } from './playback';
import { detach, reportFailure, type ShellCtx } from './shell_ctx';
import type { TraceImportActions } from './trace_imports';
import type { ViewActions } from './view_actions';

interface Parts {
  loader: Loader;
  view: ViewActions;
  playback: Playback;
  imports: TraceImportActions;
  /** Files for a replay share link waiting for them; false when none waits. */
  shareFiles?: (files: File[]) => boolean;
}

/** Binds every page listener; returns the unbinding. */
export function bindPageEvents(ctx: ShellCtx, { loader, view, playback, imports, shareFiles }: Parts): () => void {
  const offs: (() => void)[] = [];
  const on = <K extends keyof WindowEventMap>(type: K, fn: (e: WindowEventMap[K]) => void) => {
    window.addEventListener(type, fn);
    offs.push(() => window.removeEventListener(type, fn));
  };

  // Drag and drop anywhere on the page: a scenario file opens in the editor; anything else is
  // imported as a trace (with its EEVDF dump, if dropped together); while a replay share link
  // waits for the files it names, they go to it.
  on('dragover', (e) => e.preventDefault());
  on('drop', (e) => {
    e.preventDefault();
    const files = [...(e.dataTransfer?.files ?? [])];
    const f = files[0];
    if (files.length && shareFiles?.(files)) return;
    if (f && files.every((x) => isScenarioFile(x.name))) detach(ctx, f.text().then((t) => loader.openText(f.name, t)));
    else if (files.length) imports.pick(files, true);
  });

  on('keydown', (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || isTypingTarget(e.target)) return;
    if (e.key === '?') return view.togglePanel('help');
    if (e.key === 'Escape') return view.closeHelp();
    // Playback keys while the simulated view is on screen.
    if (ctx.imports.get().trace || !ctx.session.get().sim.meta) return;
    if (e.key === ' ') {
      // Space on a focused button or <summary> (the inspector's "Why CPU n?") presses it.
      if (isPressable(e.target)) return;
      e.preventDefault();
      playback.toggle();
    } else if (e.key === ']') playback.step(1);
    else if (e.key === '[') playback.step(-1);
  });

  on('error', (e) => reportFailure(ctx, e.error ?? e.message));
  on('unhandledrejection', (e) => reportFailure(ctx, e.reason));
  offs.push(
    ctx.client.onFailure((e: WorkerFailure) => {
      ctx.session.set({ pageError: errorMessage(e), engineDown: true });
    }),
  );
  return () => offs.forEach((off) => off());
}

/** Whether Space on `target` is its own action (a button, a link, a <details> summary). */
function isPressable(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el || typeof el.tagName !== 'string') return false;
  return ['BUTTON', 'SUMMARY', 'A'].includes(el.tagName.toUpperCase());
}
