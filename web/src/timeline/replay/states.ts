// The state a task left its CPU in (sched_switch prev_state), from the engine's column code
// (`PrevStateCode`, generated from `PrevState::code`): R, R+ (TASK_REPORT_MAX), the blocked
// states' report bits, an undecoded number `raw | n`; and the replay view's two special codes.
import { PrevStateCode as C, SPAN_LOST, SPAN_OPEN } from '../../engine/protocol';

export type StateKind = 'preempted' | 'runnable' | 'sleeping' | 'disk' | 'idle' | 'stopped' | 'raw' | 'lost' | 'open';

export interface SpanState {
  /** As the kernel prints it: R, R+, S, D, S|D, I, …; `?` lost; '' still running. */
  label: string;
  kind: StateKind;
  colour: string;
  /** What it means, for the legend and the inspector. */
  words: string;
}

const LETTERS: [number, string][] = [
  [C.S, 'S'],
  [C.D, 'D'],
  [C.T, 'T'],
  [C.t, 't'],
  [C.X, 'X'],
  [C.Z, 'Z'],
  [C.P, 'P'],
  [C.I, 'I'],
  [C.unknown, '?'],
];

export const STATE_COLOURS: Record<StateKind, string> = {
  preempted: '#d32f2f',
  runnable: '#ef6c00',
  sleeping: '#1565c0',
  disk: '#6a1b9a',
  idle: '#78909c',
  stopped: '#000000',
  raw: '#5d4037',
  lost: '#9e9e9e',
  open: '#2e7d32',
};

export const STATE_WORDS: Record<StateKind, string> = {
  preempted: 'R+: preempted, still runnable',
  runnable: 'R: switched out still runnable (sched_yield(), or need-resched at return to user)',
  sleeping: 'S: interruptible sleep',
  disk: 'D: uninterruptible sleep',
  idle: 'I: idle kernel thread sleeping',
  stopped: 'T/t/X/Z/P: stopped, traced, dead or parked',
  raw: 'a number the importer could not decode',
  lost: '?: its switch-out is not in the trace (another task was current at the next record)',
  open: 'still on the CPU when the trace ended',
};

const cache = new Map<number, SpanState>();

/** Decodes a span_state code. */
export function spanState(code: number): SpanState {
  code = code >>> 0;
  let s = cache.get(code);
  if (s) return s;
  let label: string;
  let kind: StateKind;
  if (code === SPAN_OPEN) [label, kind] = ['', 'open'];
  else if (code === SPAN_LOST) [label, kind] = ['?', 'lost'];
  else if (code === C.runnable) [label, kind] = ['R', 'runnable'];
  else if (code === C.preempted) [label, kind] = ['R+', 'preempted'];
  else if (code >= C.raw) [label, kind] = [String(code - C.raw), 'raw'];
  else {
    label = LETTERS.filter(([bit]) => code & bit)
      .map(([, c]) => c)
      .join('|');
    kind = code & C.D ? 'disk' : code & C.S ? 'sleeping' : code & C.I ? 'idle' : 'stopped';
  }
  s = { label, kind, colour: STATE_COLOURS[kind], words: STATE_WORDS[kind] };
  cache.set(code, s);
  return s;
}
