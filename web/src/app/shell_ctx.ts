// What every part of the shell is built from: the engine client, the frame hub, the stores,
// and where a failure nobody else handles is reported (the page's error banner).

import type { EngineClient } from '../engine/client';
import type { FrameHub, Store } from '../state/store';
import type { Session, TraceImports, Viewport } from '../state/types';
import { errorMessage } from '../base/errors';

export interface ShellCtx {
  client: EngineClient;
  hub: FrameHub;
  viewport: Store<Viewport>;
  session: Store<Session>;
  imports: Store<TraceImports>;
}

/** Shows a failure in the page's error banner. */
export function reportFailure(ctx: Pick<ShellCtx, 'session'>, e: unknown): void {
  ctx.session.set({ pageError: errorMessage(e) });
}

/** Runs a promise to its end, its failure shown in the page's error banner. */
export function detach(ctx: Pick<ShellCtx, 'session'>, p: Promise<unknown>): void {
  p.then(undefined, (e: unknown) => reportFailure(ctx, e));
}
