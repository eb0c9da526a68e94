// Kernel variants offered in the UI: named, documented sets of NAME=VALUE overrides applied
// to the Linux 6.18.44 baseline. The first block mirrors the engine's named variants
// (wasm-engine/engine/src/scenario/variants.rs, used by `schedlab compare`) key for key;
// variants.test.ts reads that file and fails if the two lists drift. The second block is
// UI-only: single feature or knob flips.

import type { VariantSpec } from '../engine/protocol';

export interface VariantPreset extends VariantSpec {
  doc: string;
}

/** The engine's named variants, in the engine's order. */
export const ENGINE_PRESETS: VariantPreset[] = [
  { key: 'baseline', overrides: [], doc: 'Linux 6.18.44 as measured on our machines.' },
  { key: 'forfeit-6.19', overrides: [['yield', 'forfeit']], doc: "6.19's forfeit yield (79104becf42b); identical to the baseline, which carries the backport." },
  { key: 'yield-6.18.0', overrides: [['yield', 'deadline_bump']], doc: 'sched_yield before the forfeit backport: only the deadline moves.' },
  { key: 'hier-yield', overrides: [['yield', 'hierarchical']], doc: "K Prateek Nayak's hierarchical yield (Nov 2025): forfeit at each level while eligible." },
  { key: 'debooster-v1', overrides: [['yield_to', 'debooster_v1']], doc: "Wanpeng Li's vCPU debooster v1 (2025-11-10): LCA penalty, 6 ms rate limit refreshed on every call." },
  {
    key: 'debooster-v1-nolimit',
    overrides: [
      ['yield_to', 'debooster_v1'],
      ['debooster_rate_limit', 'false'],
    ],
    doc: 'Debooster v1 with its rate limiter commented out, as in Christian Borntraeger\'s s390 test.',
  },
  { key: 'debooster-v2', overrides: [['yield_to', 'debooster_v2']], doc: "Wanpeng Li's vCPU debooster v2 (2025-12-19): h_nr_queued table, no vlag write, rate limit refreshed when allowed." },
  { key: 'lag-credit', overrides: [['yield_to', 'lag_credit']], doc: "Wanpeng Li's v3 (cover letter only, details assumed): the target's lag credited up to eligibility at every level." },
  { key: 'lag-transfer', overrides: [['yield_to', 'lag_transfer']], doc: "The yielder's positive lag handed to the target at the LCA (Prateek's suggestion, Σ lag kept 0)." },
  { key: 'last-buddy', overrides: [['yield_to', 'last_buddy']], doc: "A LAST_BUDDY-like sustained buddy for the yield_to target (Prateek's suggestion; 3 picks assumed)." },
  { key: 'yield-throttle-10us', overrides: [['yield_interval', '10us']], doc: "Kuba Piecuch's yield throttling RFC with yield_interval_ns = 10000." },
  { key: 'on-spin-fixed', overrides: [['kvm_on_spin', 'fixed']], doc: "kvm_vcpu_on_spin() with the last_boosted_vcpu fix of 6.19-rc1 (Wanpeng Li's patch 6/10)." },
  { key: 'ipi-aware', overrides: [['kvm_ipi_aware', 'true']], doc: "Wanpeng Li's IPI-aware directed yield (v1 patches 7-10): receiver tracking, IPI-first candidates, relaxed round." },
  { key: 'wanpeng-series', overrides: [['yield_to', 'debooster_v1'], ['kvm_on_spin', 'fixed'], ['kvm_ipi_aware', 'true']], doc: 'The whole v1 series (2025-11-10): debooster v1, the last_boosted_vcpu fix and IPI-aware directed yield.' },
  { key: 'pv-sched-yield', overrides: [['kvm_pv_sched_yield', 'true']], doc: "The guest's PV sched_yield: after an IPI to a preempted vCPU, KVM_HC_SCHED_YIELD yields to it." },
  { key: 'pv-spinlock', overrides: [['kvm_pv_spinlock', 'true']], doc: "The guest's PV qspinlock (KVM_FEATURE_PV_UNHALT): FIFO waiters halt after the spin threshold; the unlock's KVM_HC_KICK_CPU wakes the head and yields to it." },
  { key: 'cfs-rq-throttle', overrides: [['throttle', 'cfs_rq']], doc: 'The cfs_rq-based CFS bandwidth throttle of kernels up to 6.17.' },
];

/** UI-only variants: one feature or knob flipped. */
export const UI_PRESETS: VariantPreset[] = [
  { key: 'no-run-to-parity', overrides: [['RUN_TO_PARITY', 'false']], doc: 'NO_RUN_TO_PARITY: protection only for the 0.7 ms normalized base slice.' },
  { key: 'no-preempt-short', overrides: [['PREEMPT_SHORT', 'false']], doc: 'A shorter slice no longer breaks protection at wakeup.' },
  { key: 'no-delay-dequeue', overrides: [['DELAY_DEQUEUE', 'false']], doc: 'Sleeping tasks leave the queue at once, negative lag and all.' },
  { key: 'no-place-lag', overrides: [['PLACE_LAG', 'false']], doc: 'Waking tasks are placed at V: lag is forgotten.' },
  { key: 'next-buddy', overrides: [['NEXT_BUDDY', 'true']], doc: 'Wakeup preemption sets the wakee as next buddy (6.19 default).' },
  { key: 'old-lag-clamp', overrides: [['lag_clamp', 'two_slice_or_tick']], doc: 'Stock 6.18 lag clamp: ±max(2·slice, tick).' },
  { key: 'hz-1000', overrides: [['hz', '1000']], doc: 'CONFIG_HZ=1000: slice expiry noticed every 1 ms.' },
  { key: 'ipi-aware-no-relaxed', overrides: [['kvm_ipi_aware', 'true'], ['kvm_relaxed_boost', 'false']], doc: 'IPI-aware directed yield without the relaxed second round (enable_relaxed_boost=0).' },
  { key: 'apicv', overrides: [['kvm_apicv', 'true']], doc: 'APICv/IPIv: IPIs posted without exits; a pending posted interrupt makes a preempted vCPU a candidate.' },
  { key: 'apicv-series', overrides: [['kvm_apicv', 'true'], ['yield_to', 'debooster_v1'], ['kvm_on_spin', 'fixed'], ['kvm_ipi_aware', 'true']], doc: 'wanpeng-series on an APICv/IPIv host: nothing is tracked, posted interrupts still mark receivers.' },
  { key: 'no-ple', overrides: [['kvm_ple', 'false']], doc: 'ple_gap=0: PAUSE never exits, so spinning vCPUs never yield.' },
];

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
