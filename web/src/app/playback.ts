// Playback: the cursor advances in simulated time at the chosen speed, one step per animation
// frame, written into the viewport store (one render per frame); the view follows it. Also
// stepping to the previous/next scheduler event of the focused variant's window.

import type { ShellCtx } from './shell_ctx';

export const SPEEDS = [1e4, 1e5, 1e6, 1e7, 1e8]; // simulated ns per real second

export type Playback = ReturnType<typeof createPlayback>;

export function createPlayback({ viewport, session }: ShellCtx) {
  let raf = 0;
  let last = 0;

  const tick = (now: number) => {
    raf = 0;
    const { playing, speed, cursor, view } = viewport.get();
    const meta = session.get().sim.meta;
    if (!playing || !meta) return;
    const end = meta.duration_ns;
    const next = Math.min(end, cursor + ((now - last) / 1000) * speed);
    last = now;
    const w = view.t1 - view.t0;
    viewport.set({
      cursor: next,
      playing: next < end,
      ...(next > view.t1 - w * 0.1 ? { view: { t0: Math.min(next - w * 0.1, end - w), t1: Math.min(next + w * 0.9, end) } } : {}),
    });
    if (next < end) raf = requestAnimationFrame(tick);
  };

  const pause = () => {
    if (raf) cancelAnimationFrame(raf);
    raf = 0;
    viewport.set({ playing: false });
  };
  const play = () => {
    viewport.set({ playing: true });
    last = performance.now();
    if (!raf) raf = requestAnimationFrame(tick);
  };

  return {
    pause,
    toggle: () => (viewport.get().playing ? pause() : play()),
    setSpeed: (speed: number) => viewport.set({ speed }, { now: true }),
    /** The cursor to the next (1) or previous (-1) switch, wakeup or yield of the focused variant. */
    step: (dir: 1 | -1) => {
      const { windows, cursor } = viewport.get();
      const focused = session.get().sim.loaded[0]?.key;
      const ts = (focused && windows.data?.[focused]?.markers.t) || new Float64Array();
      let t: number | undefined;
      if (dir > 0) t = ts.find((x) => x > cursor);
      else for (const x of ts) if (x < cursor) t = x;
      if (t !== undefined) viewport.set({ cursor: t });
    },
  };
}
