// Playback: play/pause, step to the previous/next scheduler event, scrub, speed. The cursor
// advances in simulated time at the chosen rate; the view follows it.

import { useEffect, useRef, useState } from 'react';
import type { ScenarioMeta, WindowData } from '../engine/protocol';
import type { ViewWindow } from '../state/types';
import { formatNs } from '../timeline/time_scale';

interface Props {
  meta: ScenarioMeta;
  view: ViewWindow;
  cursor: number;
  windows: Record<string, WindowData>;
  focused: string | undefined;
  onCursor: (t: number) => void;
  onView: (t0: number, t1: number) => void;
}

const SPEEDS = [1e4, 1e5, 1e6, 1e7, 1e8]; // simulated ns per real second

/** Times of switch/wakeup/yield markers of the focused variant, ascending. */
function eventTimes(w: WindowData | undefined): Float64Array {
  return w ? w.markers.t : new Float64Array();
}

export function PlaybackBar({ meta, view, cursor, windows, focused, onCursor, onView }: Props) {
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1e6);
  const state = useRef({ cursor, view });
  state.current = { cursor, view };

  useEffect(() => {
    if (!playing) return;
    let last = performance.now();
    let raf = 0;
    const tick = (now: number) => {
      const dt = (now - last) / 1000;
      last = now;
      const { cursor: c, view: v } = state.current;
      const next = Math.min(meta.duration_ns, c + dt * speed);
      onCursor(next);
      const w = v.t1 - v.t0;
      if (next > v.t1 - w * 0.1) onView(Math.min(next - w * 0.1, meta.duration_ns - w), Math.min(next + w * 0.9, meta.duration_ns));
      if (next >= meta.duration_ns) setPlaying(false);
      else raf = requestAnimationFrame(tick);
    };
    raf = requestAnimationFrame(tick);
    return () => cancelAnimationFrame(raf);
  }, [playing, speed, meta.duration_ns, onCursor, onView]);

  const step = (dir: 1 | -1) => {
    const ts = eventTimes(focused ? windows[focused] : undefined);
    if (dir > 0) {
      const t = ts.find((x) => x > cursor);
      if (t !== undefined) onCursor(t);
    } else {
      let best: number | undefined;
      for (const x of ts) if (x < cursor) best = x;
      if (best !== undefined) onCursor(best);
    }
  };

  useEffect(() => {
    const key = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.isContentEditable)) return;
      if (e.key === ' ') {
        e.preventDefault();
        setPlaying((p) => !p);
      } else if (e.key === ']') step(1);
      else if (e.key === '[') step(-1);
    };
    window.addEventListener('keydown', key);
    return () => window.removeEventListener('keydown', key);
  });

  return (
    <div className="playback" aria-label="playback">
      <button aria-label="previous event" onClick={() => step(-1)}>
        ◂ prev
      </button>
      <button aria-label={playing ? 'pause' : 'play'} onClick={() => setPlaying((p) => !p)}>
        {playing ? '❚❚ pause' : '▶ play'}
      </button>
      <button aria-label="next event" onClick={() => step(1)}>
        next ▸
      </button>
      <input
        type="range"
        aria-label="scrub"
        min={view.t0}
        max={view.t1}
        step={(view.t1 - view.t0) / 1000}
        value={Math.min(Math.max(cursor, view.t0), view.t1)}
        onChange={(e) => onCursor(Number(e.target.value))}
      />
      <span className="cursor-time" data-testid="cursor-time">
        t = {formatNs(cursor)}
      </span>
      <label>
        speed{' '}
        <select aria-label="speed" value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
          {SPEEDS.map((s) => (
            <option key={s} value={s}>
              {formatNs(s)}/s
            </option>
          ))}
        </select>
      </label>
      <span className="window-time">
        window {formatNs(view.t0)} – {formatNs(view.t1)}
      </span>
    </div>
  );
}
