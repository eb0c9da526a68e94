// Kernel variants offered in the UI: named, documented sets of NAME=VALUE overrides applied
// to the Linux 6.18.44 baseline. Later issues add the proposals from the review threads.

import type { VariantSpec } from '../engine/protocol';

export interface VariantPreset extends VariantSpec {
  doc: string;
}

export const PRESETS: VariantPreset[] = [
  { key: 'baseline', overrides: [], doc: 'Linux 6.18.44 as measured on our machines (forfeit yield, lag clamp max_slice + tick).' },
  { key: 'yield-6.18.0', overrides: [['yield', 'deadline_bump']], doc: 'sched_yield before the forfeit backport: only the deadline moves.' },
  { key: 'no-run-to-parity', overrides: [['RUN_TO_PARITY', 'false']], doc: 'NO_RUN_TO_PARITY: protection only for the 0.7 ms normalized base slice.' },
  { key: 'no-preempt-short', overrides: [['PREEMPT_SHORT', 'false']], doc: 'A shorter slice no longer breaks protection at wakeup.' },
  { key: 'no-delay-dequeue', overrides: [['DELAY_DEQUEUE', 'false']], doc: 'Sleeping tasks leave the queue at once, negative lag and all.' },
  { key: 'no-place-lag', overrides: [['PLACE_LAG', 'false']], doc: 'Waking tasks are placed at V: lag is forgotten.' },
  { key: 'next-buddy', overrides: [['NEXT_BUDDY', 'true']], doc: 'Wakeup preemption sets the wakee as next buddy (6.19 default).' },
  { key: 'old-lag-clamp', overrides: [['lag_clamp', 'two_slice_or_tick']], doc: 'Stock 6.18 lag clamp: ±max(2·slice, tick).' },
  { key: 'hz-1000', overrides: [['hz', '1000']], doc: 'CONFIG_HZ=1000: slice expiry noticed every 1 ms.' },
];

/** Parses "NAME=VALUE, NAME=VALUE" into overrides; returns an error message on bad input. */
export function parseOverrides(text: string): [string, string][] | string {
  const out: [string, string][] = [];
  for (const part of text.split(',').map((p) => p.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1) return `"${part}": expected NAME=VALUE`;
    out.push([part.slice(0, eq).trim(), part.slice(eq + 1).trim()]);
  }
  return out;
}
