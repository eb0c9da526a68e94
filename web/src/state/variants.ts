// Kernel variants offered in the UI: named, documented sets of NAME=VALUE overrides applied
// to the Linux 6.18.44 baseline. The first block is the engine's named variants (the ones
// `schedlab compare` knows), generated from wasm-engine/engine/src/scenario/variants.rs into
// the contract; the second block is UI-only: single feature or knob flips.

import { ENGINE_VARIANTS, type VariantSpec } from '../engine/protocol';

export interface VariantPreset extends VariantSpec {
  /** The full description. */
  doc: string;
  /** What it does in one short line (shown under the name in the picker). */
  short: string;
  /** Where it comes from: a patch, a kernel version, a review-thread suggestion. */
  source: string;
}

/** The engine's named variants, in the engine's order. */
export const ENGINE_PRESETS: VariantPreset[] = ENGINE_VARIANTS.map((v) => ({ key: v.key, overrides: v.overrides, doc: v.doc, short: v.short, source: v.source }));

/** Where the UI-only variants come from. */
const UI_SOURCE = 'schedlab: one feature or knob of the baseline flipped';

/** UI-only variants: one feature or knob flipped. */
const UI_ONLY: Omit<VariantPreset, 'short' | 'source'>[] = [
  { key: 'no-run-to-parity', overrides: [['RUN_TO_PARITY', 'false']], doc: 'NO_RUN_TO_PARITY: protection only for the 0.7 ms normalized base slice.' },
  { key: 'no-preempt-short', overrides: [['PREEMPT_SHORT', 'false']], doc: 'A shorter slice no longer breaks protection at wakeup.' },
  { key: 'no-delay-dequeue', overrides: [['DELAY_DEQUEUE', 'false']], doc: 'Sleeping tasks leave the queue at once, negative lag and all.' },
  { key: 'no-place-lag', overrides: [['PLACE_LAG', 'false']], doc: 'Waking tasks are placed at V: lag is forgotten.' },
  { key: 'next-buddy', overrides: [['NEXT_BUDDY', 'true']], doc: 'NEXT_BUDDY on (6.19 default): a non-fork wakee becomes next buddy unless one with an earlier deadline is set (set_preempt_buddy), and an eligible buddy wins the wakeup pick.' },
  { key: 'old-lag-clamp', overrides: [['lag_clamp', 'two_slice_or_tick']], doc: 'Stock 6.18 lag clamp: ±max(2·slice, tick).' },
  { key: 'hz-1000', overrides: [['hz', '1000']], doc: 'CONFIG_HZ=1000: slice expiry noticed every 1 ms.' },
  { key: 'ipi-aware-no-relaxed', overrides: [['kvm_ipi_aware', 'true'], ['kvm_relaxed_boost', 'false']], doc: 'IPI-aware directed yield without the relaxed second round (enable_relaxed_boost=0).' },
  { key: 'apicv', overrides: [['kvm_apicv', 'true']], doc: 'APICv/IPIv: IPIs posted without exits; a pending posted interrupt makes a preempted vCPU a candidate.' },
  { key: 'apicv-series', overrides: [['kvm_apicv', 'true'], ['yield_to', 'debooster_v1'], ['kvm_on_spin', 'fixed'], ['kvm_ipi_aware', 'true']], doc: 'wanpeng-series on an APICv/IPIv host: nothing is tracked, posted interrupts still mark receivers.' },
  { key: 'no-ple', overrides: [['kvm_ple', 'false']], doc: 'ple_gap=0: PAUSE never exits, so spinning vCPUs never yield.' },
];

/** The UI-only variants, their description doubling as the short line. */
export const UI_PRESETS: VariantPreset[] = UI_ONLY.map((p) => ({ ...p, short: p.doc, source: UI_SOURCE }));

/** Every variant offered in the UI; baseline first. */
export const PRESETS: VariantPreset[] = [...ENGINE_PRESETS, ...UI_PRESETS];

/** The preset named `key` as a variant spec, or undefined. */
export function presetSpec(key: string): VariantSpec | undefined {
  const p = PRESETS.find((x) => x.key === key);
  return p ? { key: p.key, overrides: p.overrides } : undefined;
}

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
