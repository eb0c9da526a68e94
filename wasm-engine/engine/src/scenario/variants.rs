//! Named kernel variants: documented sets of `NAME=VALUE` overrides applied to the Linux
//! 6.18.44 baseline, shared by `schedlab compare` and the web UI.

/// One named variant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Name used on the command line and in share links.
    pub name: &'static str,
    /// Overrides applied to the scenario.
    pub overrides: &'static [(&'static str, &'static str)],
    /// What it is and where it comes from.
    pub doc: &'static str,
}

/// Every named variant.
pub const VARIANTS: &[Variant] = &[
    Variant { name: "baseline", overrides: &[], doc: "Linux 6.18.44 as measured on our machines." },
    Variant {
        name: "forfeit-6.19",
        overrides: &[("yield", "forfeit")],
        doc: "6.19's forfeit yield (79104becf42b); identical to the baseline: 6.18.y stable has had it since 6.18.2.",
    },
    Variant {
        name: "yield-6.18.0",
        overrides: &[("yield", "deadline_bump")],
        doc: "sched_yield of 6.18.0 and 6.18.1, before the forfeit reached 6.18.y stable: only the deadline moves.",
    },
    Variant {
        name: "hier-yield",
        overrides: &[("yield", "hierarchical")],
        doc: "K Prateek Nayak's hierarchical yield (Nov 2025): forfeit at each level while eligible.",
    },
    Variant {
        name: "debooster-v1",
        overrides: &[("yield_to", "debooster_v1")],
        doc: "Wanpeng Li's vCPU debooster v1 (2025-11-10): LCA penalty, 6 ms rate limit refreshed on every call.",
    },
    Variant {
        name: "debooster-v1-nolimit",
        overrides: &[("yield_to", "debooster_v1"), ("debooster_rate_limit", "false")],
        doc: "Debooster v1 with its rate limiter commented out, as in Christian Borntraeger's s390 test.",
    },
    Variant {
        name: "debooster-v2",
        overrides: &[("yield_to", "debooster_v2")],
        doc: "Wanpeng Li's vCPU debooster v2 (2025-12-19): h_nr_queued table, no vlag write, rate limit refreshed when allowed.",
    },
    Variant {
        name: "lag-credit",
        overrides: &[("yield_to", "lag_credit")],
        doc: "Wanpeng Li's v3 (cover letter only, details assumed): the target's lag credited up to eligibility at every level.",
    },
    Variant {
        name: "lag-transfer",
        overrides: &[("yield_to", "lag_transfer")],
        doc: "The yielder's positive lag handed to the target at the LCA (Prateek's suggestion, Σ lag kept 0).",
    },
    Variant {
        name: "last-buddy",
        overrides: &[("yield_to", "last_buddy")],
        doc: "A LAST_BUDDY-like sustained buddy for the yield_to target (Prateek's suggestion; 3 picks assumed).",
    },
    Variant {
        name: "yield-throttle-10us",
        overrides: &[("yield_interval", "10us")],
        doc: "Kuba Piecuch's yield throttling RFC with yield_interval_ns = 10000.",
    },
    Variant {
        name: "on-spin-fixed",
        overrides: &[("kvm_on_spin", "fixed")],
        doc: "kvm_vcpu_on_spin() with the last_boosted_vcpu fix of 6.19-rc1 (Wanpeng Li's patch 6/10).",
    },
    Variant {
        name: "ipi-aware",
        overrides: &[("kvm_ipi_aware", "true")],
        doc: "Wanpeng Li's IPI-aware directed yield (v1 patches 7-10): receiver tracking, IPI-first candidates, relaxed round.",
    },
    Variant {
        name: "wanpeng-series",
        overrides: &[("yield_to", "debooster_v1"), ("kvm_on_spin", "fixed"), ("kvm_ipi_aware", "true")],
        doc: "The whole v1 series (2025-11-10): debooster v1, the last_boosted_vcpu fix and IPI-aware directed yield.",
    },
    Variant {
        name: "pv-sched-yield",
        overrides: &[("kvm_pv_sched_yield", "true")],
        doc: "The guest's PV sched_yield: after an IPI to a preempted vCPU, KVM_HC_SCHED_YIELD yields to it.",
    },
    Variant {
        name: "pv-spinlock",
        overrides: &[("kvm_pv_spinlock", "true")],
        doc: "The guest's PV qspinlock (KVM_FEATURE_PV_UNHALT): FIFO waiters halt after the spin threshold; the unlock's KVM_HC_KICK_CPU wakes the head and yields to it.",
    },
    Variant {
        name: "wakeup-6.18",
        overrides: &[("wakeup_preempt", "6.18")],
        doc: "check_preempt_wakeup_fair() of 6.18.y stable (6.18.26 fair.c l.8802): a fork wakeup runs the pick and may preempt at once, protection is tightened only for a shorter-slice wakee, NEXT_BUDDY marks every wakee, no buddy in the wakeup pick, a delayed winner blocks the preemption. Not what our machine runs: of 291 children forked onto their spinning parent's CPU none preempted it (all waited for a tick, 2.03 ms on average); with this function the mirror has 247 of 290 preempt at once.",
    },
    Variant {
        name: "vcpu-pack-6.18",
        overrides: &[("vcpu_pack", "6.18")],
        doc: "select_task_rq_fair() of 6.18.y stable, without this build's vendor block (vcpu_pack_room(), sched_vcpu_pack=15), which first packs a waking or forked task onto a busy CPU under 70 % utilization with at most one other runnable task, and a wakeup run by an idle CPU onto that CPU. Only SMP runs (smp = \"fair\") see a difference.",
    },
    Variant {
        name: "cfs-rq-throttle",
        overrides: &[("throttle", "cfs_rq")],
        doc: "The cfs_rq-based CFS bandwidth throttle of kernels up to 6.17.",
    },
    Variant {
        name: "smp-static",
        overrides: &[("smp", "static")],
        doc: "The engine's placement before the SMP model: an idle CPU first at each wakeup, and no load balancing (nothing ever migrates a queued task).",
    },
    Variant {
        name: "pelt-shares",
        overrides: &[("group_shares", "pelt")],
        doc: "Group entity weights from PELT load averages, as calc_group_shares() computes them, instead of the engine's instantaneous runnable weights.",
    },
];

/// Looks a variant up by name.
pub fn find(name: &str) -> Option<&'static Variant> {
    VARIANTS.iter().find(|v| v.name == name)
}
