// Playback: play/pause, step to the previous/next scheduler event, scrub, speed. The playing
// itself (the cursor advancing every frame, the view following it) and the keys (Space, [ and
// ]) are the shell's; this bar shows the state and calls its actions.

import { memo } from 'react';
import type { ViewWindow } from '../state/types';
import { formatNs } from '../timeline/time_scale';

interface Props {
  view: ViewWindow;
  cursor: number;
  playing: boolean;
  /** Simulated ns per real second. */
  speed: number;
  speeds: readonly number[];
  onToggle: () => void;
  onStep: (dir: 1 | -1) => void;
  onScrub: (t: number) => void;
  onSpeed: (speed: number) => void;
}

export const PlaybackBar = memo(function PlaybackBar({ view, cursor, playing, speed, speeds, onToggle, onStep, onScrub, onSpeed }: Props) {
  return (
    <div className="playback" aria-label="playback">
      <button aria-label="previous event" onClick={() => onStep(-1)}>
        ◂ prev
      </button>
      <button aria-label={playing ? 'pause' : 'play'} onClick={onToggle}>
        {playing ? '❚❚ pause' : '▶ play'}
      </button>
      <button aria-label="next event" onClick={() => onStep(1)}>
        next ▸
      </button>
      <input
        type="range"
        aria-label="scrub"
        min={view.t0}
        max={view.t1}
        step={(view.t1 - view.t0) / 1000}
        value={Math.min(Math.max(cursor, view.t0), view.t1)}
        onChange={(e) => onScrub(Number(e.target.value))}
      />
      <span className="cursor-time" data-testid="cursor-time">
        t = {formatNs(cursor)}
      </span>
      <label>
        speed{' '}
        <select aria-label="speed" value={speed} onChange={(e) => onSpeed(Number(e.target.value))}>
          {speeds.map((s) => (
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
});
