//! Named kernel variants: documented sets of `NAME=VALUE` overrides applied to the Linux
//! 6.18.44 baseline, shared by `schedlab compare` and the web UI.

/// One named variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Name used on the command line and in share links.
    pub name: &'static str,
    /// Overrides applied to the scenario.
    pub overrides: &'static [(&'static str, &'static str)],
    /// What it does, in one short line (the UI's variant picker shows it under the name).
    pub short: &'static str,
    /// Where it comes from: a patch (author, series, date), a kernel version (and commit), a
    /// review-thread suggestion (who), or the engine itself.
    pub source: &'static str,
    /// What it is and where it comes from, in full.
    pub doc: &'static str,
}

/// Every named variant.
pub const VARIANTS: &[Variant] = &[
    Variant { name: "baseline", overrides: &[], short: "The measured kernel, no change.", source: "Linux 6.18.44 (our machines)", doc: "Linux 6.18.44 as measured on our machines." },
    Variant {
        name: "forfeit-6.19",
        overrides: &[("yield", "forfeit")],
        short: "Forfeit yield: an eligible yielder's vruntime jumps to its deadline.",
        source: "Linux 6.19, commit 79104becf42b (in 6.18.y since 6.18.2)",
        doc: "6.19's forfeit yield (79104becf42b); identical to the baseline: 6.18.y stable has had it since 6.18.2.",
    },
    Variant {
        name: "yield-6.18.0",
        overrides: &[("yield", "deadline_bump")],
        short: "Old sched_yield: only the yielder's deadline moves.",
        source: "Linux 6.18.0 and 6.18.1",
        doc: "sched_yield of 6.18.0 and 6.18.1, before the forfeit reached 6.18.y stable: only the deadline moves.",
    },
    Variant {
        name: "hier-yield",
        overrides: &[("yield", "hierarchical")],
        short: "Yield forfeits at each cgroup level while eligible.",
        source: "review thread suggestion (K Prateek Nayak, Nov 2025)",
        doc: "K Prateek Nayak's hierarchical yield (Nov 2025): forfeit at each level while eligible.",
    },
    Variant {
        name: "debooster-v1",
        overrides: &[("yield_to", "debooster_v1")],
        short: "yield_to penalises the yielder at the cgroup LCA; 6 ms rate limit.",
        source: "patch: Wanpeng Li, vCPU debooster v1, 2025-11-10",
        doc: "Wanpeng Li's vCPU debooster v1 (2025-11-10): LCA penalty, 6 ms rate limit refreshed on every call.",
    },
    Variant {
        name: "debooster-v1-nolimit",
        overrides: &[("yield_to", "debooster_v1"), ("debooster_rate_limit", "false")],
        short: "Debooster v1 without its rate limiter.",
        source: "review thread test (Christian Borntraeger, s390) of Wanpeng Li's v1",
        doc: "Debooster v1 with its rate limiter commented out, as in Christian Borntraeger's s390 test.",
    },
    Variant {
        name: "debooster-v2",
        overrides: &[("yield_to", "debooster_v2")],
        short: "Debooster v2: h_nr_queued penalty table, no vlag write.",
        source: "patch: Wanpeng Li, vCPU debooster v2, 2025-12-19",
        doc: "Wanpeng Li's vCPU debooster v2 (2025-12-19): h_nr_queued table, no vlag write, rate limit refreshed when allowed.",
    },
    Variant {
        name: "lag-credit",
        overrides: &[("yield_to", "lag_credit")],
        short: "The yield_to target's lag credited up to eligibility at every level.",
        source: "Wanpeng Li's v3 cover letter (details assumed)",
        doc: "Wanpeng Li's v3 (cover letter only, details assumed): the target's lag credited up to eligibility at every level.",
    },
    Variant {
        name: "lag-transfer",
        overrides: &[("yield_to", "lag_transfer")],
        short: "The yielder's positive lag handed to the yield_to target at the LCA.",
        source: "review thread suggestion (K Prateek Nayak)",
        doc: "The yielder's positive lag handed to the target at the LCA (Prateek's suggestion, Σ lag kept 0).",
    },
    Variant {
        name: "last-buddy",
        overrides: &[("yield_to", "last_buddy")],
        short: "The yield_to target kept as a sustained buddy (3 picks assumed).",
        source: "review thread suggestion (K Prateek Nayak)",
        doc: "A LAST_BUDDY-like sustained buddy for the yield_to target (Prateek's suggestion; 3 picks assumed).",
    },
    Variant {
        name: "yield-throttle-10us",
        overrides: &[("yield_interval", "10us")],
        short: "sched_yield throttled: each thread yields at most once per 10 µs.",
        source: "patch: Kuba Piecuch, yield throttling RFC (yield_interval_ns), 2025-08-08",
        doc: "Kuba Piecuch's yield throttling RFC with yield_interval_ns = 10000.",
    },
    Variant {
        name: "on-spin-fixed",
        overrides: &[("kvm_on_spin", "fixed")],
        short: "kvm_vcpu_on_spin() with the last_boosted_vcpu fix.",
        source: "Linux 6.19-rc1 (Wanpeng Li's v1 patch 6/10)",
        doc: "kvm_vcpu_on_spin() with the last_boosted_vcpu fix of 6.19-rc1 (Wanpeng Li's patch 6/10).",
    },
    Variant {
        name: "ipi-aware",
        overrides: &[("kvm_ipi_aware", "true")],
        short: "Directed yield prefers the vCPU that received an IPI.",
        source: "patch: Wanpeng Li, v1 patches 7-10, 2025-11-10",
        doc: "Wanpeng Li's IPI-aware directed yield (v1 patches 7-10): receiver tracking, IPI-first candidates, relaxed round.",
    },
    Variant {
        name: "wanpeng-series",
        overrides: &[("yield_to", "debooster_v1"), ("kvm_on_spin", "fixed"), ("kvm_ipi_aware", "true")],
        short: "Debooster v1 + last_boosted_vcpu fix + IPI-aware directed yield.",
        source: "patch series: Wanpeng Li, v1 (10 patches), 2025-11-10",
        doc: "The whole v1 series (2025-11-10): debooster v1, the last_boosted_vcpu fix and IPI-aware directed yield.",
    },
    Variant {
        name: "pv-sched-yield",
        overrides: &[("kvm_pv_sched_yield", "true")],
        short: "The guest yields to a preempted vCPU it just sent an IPI to.",
        source: "KVM paravirt feature (KVM_HC_SCHED_YIELD)",
        doc: "The guest's PV sched_yield: after an IPI to a preempted vCPU, KVM_HC_SCHED_YIELD yields to it.",
    },
    Variant {
        name: "pv-spinlock",
        overrides: &[("kvm_pv_spinlock", "true")],
        short: "Guest PV qspinlock: waiters halt, the unlock kicks and yields to the head.",
        source: "KVM paravirt feature (KVM_FEATURE_PV_UNHALT)",
        doc: "The guest's PV qspinlock (KVM_FEATURE_PV_UNHALT): FIFO waiters halt after the spin threshold; the unlock's KVM_HC_KICK_CPU wakes the head and yields to it.",
    },
    Variant {
        name: "wakeup-6.18",
        overrides: &[("wakeup_preempt", "6.18")],
        short: "Wakeup preemption as in 6.18.y stable, not as our machine behaves.",
        source: "Linux 6.18.y stable (6.18.26 fair.c l.8802)",
        doc: "check_preempt_wakeup_fair() of 6.18.y stable (6.18.26 fair.c l.8802): a fork wakeup runs the pick and may preempt at once, protection is tightened only for a shorter-slice wakee, NEXT_BUDDY marks every wakee, no buddy in the wakeup pick, a delayed winner blocks the preemption. Not what our machine runs: of 291 children forked onto their spinning parent's CPU none preempted it (all waited for a tick, 2.03 ms on average); with this function the mirror has 247 of 290 preempt at once.",
    },
    Variant {
        name: "tick-order-machine",
        overrides: &[("tick_order", "machine")],
        short: "One jiffy's ticks, balance passes and switches in the machine's order.",
        source: "Measured on our 6.18.44 machine (balance-pass probe, tools/capture/schedlab-balance.bt)",
        doc: "A busy CPU acts on its tick's resched only after its own SCHED softirq: every CPU's tick runs first, then the switches of the CPUs with no balance pass due, then the passes (busiest CPU first), then the switches they held. So a CPU pulling from a source with no pass due finds the source already switched, and its candidate is the hog the source just switched out (cache-hot until nr_balance_failed passes cache_nice_tries): 27 of 28 hog pulls on the machine, 22 of 22 in a three-hog run under this order, 12 of 23 under the default CPU order. Only SMP runs with balancing see a difference.",
    },
    Variant {
        name: "tick-ahead",
        overrides: &[("tick_ahead", "11.4")],
        short: "Balance passes a jiffy late where a tick runs ahead of the timekeeper's.",
        source: "Measured on our 6.18.44 machine (traces/linux-6.18-smp-balance; calibrated: 11.4 %)",
        doc: "Only the timekeeping CPU advances jiffies, at the start of its tick; a CPU whose tick interrupt runs a few microseconds ahead of it reads the previous jiffy in sched_balance_trigger(), and a balance pass due then runs at its next tick. Seeded draws per CPU and jiffy at the rate measured on the machine (14 of 123 busy passes due on the CPU that did not keep time, 11.4 %; calibrated on those captures). It moves the three-hog rotation from one orbit to another, as on the machine; without it a run keeps the orbit it starts on. Only SMP runs with balancing see a difference.",
    },
    Variant {
        name: "vcpu-pack-6.18",
        overrides: &[("vcpu_pack", "6.18")],
        short: "Wakeup placement without this build's vCPU-packing vendor block.",
        source: "Linux 6.18.y stable select_task_rq_fair()",
        doc: "select_task_rq_fair() of 6.18.y stable, without this build's vendor block (vcpu_pack_room(), sched_vcpu_pack=15), which first packs a waking or forked task onto a busy CPU under 70 % utilization with at most one other runnable task, and a wakeup run by an idle CPU onto that CPU. Only SMP runs (smp = \"fair\") see a difference.",
    },
    Variant {
        name: "cfs-rq-throttle",
        overrides: &[("throttle", "cfs_rq")],
        short: "CFS bandwidth throttles whole cfs_rqs, not tasks.",
        source: "Linux up to 6.17",
        doc: "The cfs_rq-based CFS bandwidth throttle of kernels up to 6.17.",
    },
    Variant {
        name: "smp-static",
        overrides: &[("smp", "static")],
        short: "Idle CPU first at each wakeup, no load balancing.",
        source: "schedlab: the engine before its SMP model",
        doc: "The engine's placement before the SMP model: an idle CPU first at each wakeup, and no load balancing (nothing ever migrates a queued task).",
    },
    Variant {
        name: "pelt-shares",
        overrides: &[("group_shares", "pelt")],
        short: "Group weights from PELT averages (calc_group_shares()).",
        source: "Linux fair.c calc_group_shares() (the engine's default: instantaneous weights)",
        doc: "Group entity weights from PELT load averages, as calc_group_shares() computes them, instead of the engine's instantaneous runnable weights.",
    },
];

/// Looks a variant up by name.
pub fn find(name: &str) -> Option<&'static Variant> {
    VARIANTS.iter().find(|v| v.name == name)
}
