// The review-thread guide (the vCPU debooster, IPI-aware directed yield): each claim, the scenario
// and variants that test it, the numbers `schedlab compare` measured, and how to read the
// same numbers live from the loaded variants' summaries.

import type { CputimerTotals, Summary, TaskSummary, VariantSpec, YieldToCounts } from '../engine/protocol';
import { presetSpec } from './variants';

export interface GuideClaim {
  id: string;
  title: string;
  /** Who made the claim, and where. */
  who: string;
  /** The claim, in our words. */
  claim: string;
  /** What schedlab measured (`schedlab compare`, deterministic). */
  answer: string;
  /** Bundled scenario id (gallery). */
  scenario: string;
  /** Variant keys opened side by side (at most 4), the reference first. */
  variants: string[];
  /** Columns of the live table (after the variant). */
  columns: string[];
  /** The expected headline figure per variant, shown beside the live one. */
  expected: Record<string, string>;
  /** One live row: the cells for `s`; `first` is the first loaded variant's summary. */
  row: (s: Summary, first: Summary) => string[];
}

/** The yield_to counters of a summary. */
export function yieldTo(s: Summary): YieldToCounts {
  return s.yield_to;
}

/** The cputimer contention figures: null when the scenario has no profiling timer. */
export function cputimer(s: Summary): CputimerTotals | null {
  return s.cputimer;
}

export function task(s: Summary, name: string): TaskSummary | undefined {
  return s.tasks.find((t) => t.name === name);
}

const DASH = '–';
const pct = (n: number | undefined) => (n === undefined ? DASH : n.toFixed(2));
const fixed3 = (n: number | undefined) => (n === undefined ? DASH : n.toFixed(3));
const share = (s: Summary, name: string) => pct(task(s, name)?.share_pct);
const penalties = (s: Summary) => `${s.yield_to.penalties}/${s.yield_to.calls}`;
/** The numeric per-task metrics. */
type TaskNumber = { [K in keyof TaskSummary]: TaskSummary[K] extends number ? K : never }[keyof TaskSummary];
/** Sum of a task metric over all tasks. */
function total(s: Summary, field: TaskNumber): number {
  return s.tasks.reduce((sum, t) => sum + t[field], 0);
}

export const GUIDE: GuideClaim[] = [
  {
    id: 'topology-1',
    title: 'Does yield_to move CPU to the lock holder across cgroups?',
    who: 'Wanpeng Li, motivating the vCPU debooster (cover letter)',
    claim:
      'Mainline yield_to only sets the target as next buddy. That hint is transient: the yielder can preempt the target again, and when yielder and target live in different cgroups no CPU time moves from one group to the other.',
    answer:
      'In Prateek’s first topology (root → CG0{A}, CG1{B}; A keeps yielding to B) the hint itself works: B runs at the first pick after every yield_to (1.000 picks) in every variant. What does not happen under mainline is a transfer: B stays at 50.10 %, as if A never yielded. Acting above the task level does move CPU: hier-yield 77.40 %, debooster-v2 68.00 %, lag-credit 85.20 % (debooster-v1 50.40 %, last-buddy 50.10 %).',
    scenario: 'yield/prateek-topology-1',
    variants: ['baseline', 'hier-yield', 'debooster-v2', 'lag-credit'],
    columns: ['B share %', 'picks until B', 'penalties/calls'],
    expected: { baseline: '50.10', 'hier-yield': '77.40', 'debooster-v2': '68.00', 'lag-credit': '85.20' },
    row: (s) => [share(s, 'B'), fixed3(task(s, 'A')?.yield_to_picks_mean), penalties(s)],
  },
  {
    id: 'bystander',
    title: 'Who pays for the yield? The bystander in the yielder’s cgroup',
    who: 'K Prateek Nayak, reviewing the debooster',
    claim:
      'The debooster penalises the yielder at the lowest common ancestor of yielder and target. Across cgroups that is the yielder’s group entity at the root, so every task of that cgroup is charged, including tasks that never yield. A hierarchical walk stops inside the cgroup while another task is runnable there.',
    answer:
      'Prateek’s second topology (root → CG0{A, C}, CG1{B}; C is a CPU-bound bystander): C gets 38.80 % under the baseline and the same 38.80 % under hier-yield; the debooster cuts it to 28.00 % (v1) and 30.00 % (v2). For reference lag-credit gives 25.10 % and last-buddy 38.80 %.',
    scenario: 'yield/prateek-topology-2',
    variants: ['baseline', 'hier-yield', 'debooster-v1', 'debooster-v2'],
    columns: ['C share %', 'B share %', 'A share %', 'penalties/calls'],
    expected: { baseline: '38.80', 'hier-yield': '38.80', 'debooster-v1': '28.00', 'debooster-v2': '30.00' },
    row: (s) => [share(s, 'C'), share(s, 'B'), share(s, 'A'), penalties(s)],
  },
  {
    id: 'rate-limit',
    title: 'The 6 ms rate limit: v1 code vs the description',
    who: 'Wanpeng Li described the limit as one penalty per 6 ms per runqueue; the v1 code reads otherwise',
    claim:
      'v1 stores the timestamp on every call, allowed or not, so a stream of yield_to calls less than 6 ms apart suppresses every penalty after the first. v2 refreshes the timestamp only when a penalty is applied, which is the behaviour Wanpeng described.',
    answer:
      'Ping-pong (A and B yield_to each other every 50 µs beside a hog H, one CPU): debooster-v1 applies 1 penalty in 295 calls (294 rate-limited); debooster-v2 applies 15 in 294 (279 rate-limited), one per 6 ms while the calls continue.',
    scenario: 'yield/ping-pong',
    variants: ['debooster-v1', 'debooster-v2'],
    columns: ['penalties/calls', 'rate-limited', 'debounced', 'H share %'],
    expected: { 'debooster-v1': '1/295', 'debooster-v2': '15/294' },
    row: (s) => {
      const y = yieldTo(s);
      return [penalties(s), String(y.rate_limited), String(y.debounced), share(s, 'H')];
    },
  },
  {
    id: 'yield-storm',
    title: 'Yield storms and the process CPU-time counter',
    who: 'Kuba Piecuch, yield throttling RFC (seed 000)',
    claim:
      'With a profiling timer armed, 80 threads spinning on sched_yield() over 40 CPUs spend about 80 % of the CPU in the atomic add on the process-wide CPU-time counter. Throttling yields (yield_interval_ns = 10000) brings that to 1–2 % and lets about 60 % fewer yields reach schedule().',
    answer:
      'Our cputimer contention model gives 77.4 % for the baseline and 2.21 % with yield-throttle-10us, with 64.6 % fewer yields reaching schedule(). Seed 000: ~80 %, 1–2 %, ~60 %.',
    scenario: 'yield/yield-storm',
    variants: ['baseline', 'yield-throttle-10us'],
    columns: ['cputimer atomic', 'sched_yield() calls', 'reaching schedule()', 'vs first'],
    expected: { baseline: '77.4 % (seed ~80 %)', 'yield-throttle-10us': '2.21 %, 64.6 % fewer (seed 1–2 %, ~60 %)' },
    row: (s, first) => {
      const c = cputimer(s);
      const sched = total(s, 'yields_scheduled');
      const base = total(first, 'yields_scheduled');
      const fewer = s === first || !base ? '' : `${((1 - sched / base) * 100).toFixed(1)} % fewer`;
      return [c ? `${c.atomic_pct.toFixed(2)} %` : DASH, String(total(s, 'yields')), String(sched), fewer];
    },
  },
  {
    id: 'forfeit',
    title: '6.18.44 already yields like 6.19',
    who: 'Our measurements of 6.18.44 (docs/kernel-6.18.44-findings.md, §4)',
    claim:
      '6.19’s forfeit yield (79104becf42b: an eligible yielder’s vruntime jumps to its deadline) is in 6.18.y stable since 6.18.2, so 6.18.44 has it. Only 6.18.0 and 6.18.1 merely bump the deadline.',
    answer:
      'A sched_yield() loop against a hog on one CPU: the yielder gets 1.37 % under the baseline and under forfeit-6.19 (identical runs), against 48.02 % with the 6.18.0 deadline bump (yield-6.18.0).',
    scenario: 'gallery/yield-vs-hog',
    variants: ['baseline', 'forfeit-6.19', 'yield-6.18.0'],
    columns: ['yielder share %', 'hog share %', 'sched_yield() calls'],
    expected: { baseline: '1.37', 'forfeit-6.19': '1.37', 'yield-6.18.0': '48.02' },
    row: (s) => [share(s, 'yielder'), share(s, 'hog'), String(task(s, 'yielder')?.yields ?? DASH)],
  },
];

const ipis = (s: Summary) => String(total(s, 'ipis_answered'));
/** Mean IPI latency over all senders, µs. */
const ipiLatency = (s: Summary) => {
  let n = 0;
  let sum = 0;
  for (const t of s.tasks) {
    const k = t.ipis_answered;
    n += k;
    sum += k * t.ipi_latency_ns_mean;
  }
  return n === 0 ? DASH : (sum / n / 1000).toFixed(1);
};

GUIDE.push(
  {
    id: 'ipi-aware',
    title: 'IPI-aware directed yield: better targets, and what the relaxed round costs',
    who: 'Wanpeng Li, v1 patches 7–10 (IPI tracking, relaxed boost)',
    claim:
      'When a vCPU spins waiting for an IPI to be handled, kvm_vcpu_on_spin() should boost the receiver. Mainline skips vCPUs preempted in guest user mode, the receiver included; the series tracks sender → receiver and, failing that, boosts any preempted vCPU in a relaxed second round.',
    answer:
      'ipi-pipeline (4 vCPUs on 2 pCPUs; vcpu0 and vcpu1 exchange IPIs, vcpu2 and vcpu3 compute): IPIs answered 4,762 baseline, 3,820 ipi-aware, 4,760 without the relaxed round, 3,262 for the whole series. The relaxed round boosts the compute vCPUs and, under 6.18.44’s forfeit yield, each yield costs the IPI pair its slice.',
    scenario: 'kvm/ipi-pipeline',
    variants: ['baseline', 'ipi-aware', 'ipi-aware-no-relaxed', 'wanpeng-series'],
    columns: ['IPIs answered', 'IPI latency µs', 'vcpu0 share %'],
    expected: { baseline: '4762', 'ipi-aware': '3820', 'ipi-aware-no-relaxed': '4760', 'wanpeng-series': '3262' },
    row: (s) => [ipis(s), ipiLatency(s), share(s, 'vm0/vcpu0')],
  },
  {
    id: 'wanpeng-table',
    title: 'The series on 16 pCPUs: Wanpeng’s table, one cell',
    who: 'Wanpeng Li, v1 cover letter (2 VMs: +47.1 % on dedup; 3 VMs: +28.1 %)',
    claim: 'The series improves IPI-heavy guests in overcommitted hosts, most with 2 VMs on 16 pCPUs, least with 4.',
    answer:
      'The dedup-like preset with 3 VMs × 16 vCPUs on 16 pCPUs (200 ms): 66,116 IPIs answered under the baseline, 99,739 with wanpeng-series (+51 %; the cover letter: +28.1 %). This scenario pins vCPU i of every VM to pCPU i, where the model’s gains come at 3 and 4 VMs. `schedlab wanpeng-table` prints all nine cells on libvirt’s default layout (unpinned vCPU threads, a cgroup per vCPU), where dedup and vips gain most at 2 VMs as in the seed, and so does dbench-like with one hot lock per VM, at about half the seed’s gain (docs/kvm-model.md).',
    scenario: 'kvm/wanpeng-dedup-3vm',
    variants: ['baseline', 'wanpeng-series'],
    columns: ['IPIs answered', 'IPI latency µs', 'PLE exits'],
    expected: { baseline: '66116', 'wanpeng-series': '99739' },
    row: (s) => [ipis(s), ipiLatency(s), String(total(s, 'ple_exits'))],
  },
  {
    id: 'dbench-row',
    title: 'A lock-heavy guest: the debooster and the dbench row',
    who: 'Wanpeng Li, v1 cover letter (dbench, 2 VMs: +14.4 %; “Dbench benefits primarily from the scheduler-side debooster”)',
    claim:
      'When a spinning vCPU yields to a preempted lock holder on its own pCPU, the buddy hint is used up after one pick; the debooster’s penalty at the cgroup LCA keeps the holder running, so lock-heavy guests gain.',
    answer:
      'The dbench-like preset (all 16 vCPUs of a VM on one hot spinlock) with 2 VMs on libvirt’s layout (unpinned, a cgroup per vCPU; the host balances them as 6.18 does), 200 ms: 28,223 lock acquisitions under the baseline, 29,453 with debooster-v1 (+4.4 %, from only 7 penalties: v1’s limiter, refreshed on every call, passes one only after 6 ms without a yield_to on that runqueue, but each moves the yielder’s group entity back by up to 6 base slices) and 29,498 with the whole series (+4.5 %). Over 5 layouts the series gains +6.4/+5.1/+1.8 % at 2/3/4 VMs (the seed: +14.4/+9.8/+6.7): the seed’s order at about half its size. With the vCPUs spread over 4 locks per VM it gains +0.4/+3.6/+4.5 %, the order reversed: the one hot lock is what gives the row the seed’s shape (docs/kvm-model.md).',
    scenario: 'kvm/wanpeng-dbench-2vm',
    variants: ['baseline', 'debooster-v1', 'wanpeng-series'],
    columns: ['guest locks', 'PLE exits', 'penalties/calls'],
    expected: { baseline: '28223', 'debooster-v1': '29453', 'wanpeng-series': '29498' },
    row: (s) => [String(total(s, 'guest_locks')), String(total(s, 'ple_exits')), penalties(s)],
  },
  {
    id: 'apicv',
    title: 'With APICv, does the IPI tracking still matter?',
    who: 'Our reading of the series against kvm_arch_dy_has_pending_interrupt() (spec §5 open question)',
    claim:
      'With APICv/IPIv, ICR writes do not exit, so the series tracks nothing; but mainline kvm_vcpu_on_spin() already accepts a preempted vCPU with a pending posted interrupt, which is the IPI receiver.',
    answer:
      'The dedup-like preset, 3 VMs × 16 vCPUs on 16 pCPUs (200 ms), IPIs answered: 66,116 baseline and 99,739 wanpeng-series without APICv; 98,676 and 99,862 with it. With posted interrupts the baseline is within 1.2 % of the series: measure the IPI-aware patches with APICv off.',
    scenario: 'kvm/wanpeng-dedup-3vm',
    variants: ['baseline', 'wanpeng-series', 'apicv', 'apicv-series'],
    columns: ['IPIs answered', 'IPI latency µs', 'yield_to calls'],
    expected: { baseline: '66116', 'wanpeng-series': '99739', apicv: '98676', 'apicv-series': '99862' },
    row: (s) => [ipis(s), ipiLatency(s), String(total(s, 'yield_to_calls'))],
  },
);

/** The claim's variants as specs for loading. */
export function guideVariants(c: GuideClaim): VariantSpec[] {
  return c.variants.map((k) => presetSpec(k)).filter((v): v is VariantSpec => v !== undefined);
}

/** The live table of a claim: one row per loaded variant, in load order. */
export function liveRows(c: GuideClaim, loaded: { key: string; summary: Summary }[]): { key: string; cells: string[]; expected: string }[] {
  if (loaded.length === 0) return [];
  const first = loaded[0].summary;
  return loaded.map((v) => ({ key: v.key, cells: c.row(v.summary, first), expected: c.expected[v.key] ?? '' }));
}
