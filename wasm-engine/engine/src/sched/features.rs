//! Scheduler feature bits, as in kernel/sched/features.h, with the Linux 6.18.44 defaults.
//!
//! Only features that change a decision in this model are listed. Each one is a scenario
//! knob (`[kernel.features]`) and a CLI variant (`--variant RUN_TO_PARITY=false`).

use std::collections::BTreeMap;

/// The feature set of one simulated kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchedFeatures {
    /// PLACE_LAG (default: on): place_entity() preserves the saved vlag on enqueue.
    pub place_lag: bool,
    /// PLACE_DEADLINE_INITIAL (default: on): a new task starts with half a slice to its deadline.
    pub place_deadline_initial: bool,
    /// PLACE_REL_DEADLINE (default: on): migration keeps the deadline relative to vruntime.
    /// Wired in dequeue/place, but without effect until queued tasks migrate (load balancing).
    pub place_rel_deadline: bool,
    /// RUN_TO_PARITY (default: on): a picked task is protected until vprot (≥6.17 semantics).
    pub run_to_parity: bool,
    /// PREEMPT_SHORT (default: on): a waking task with a shorter slice may break protection.
    pub preempt_short: bool,
    /// NEXT_BUDDY (default: off in 6.18): wakeup preemption sets the wakee as next buddy.
    pub next_buddy: bool,
    /// PICK_BUDDY (default: on): pick honours an eligible `cfs_rq->next`.
    pub pick_buddy: bool,
    /// DELAY_DEQUEUE (default: on): an ineligible task going to sleep stays queued.
    pub delay_dequeue: bool,
    /// DELAY_ZERO (default: on): a delayed task's lag is clipped to zero when it leaves.
    pub delay_zero: bool,
    /// WAKEUP_PREEMPTION (default: on): wakeups may preempt the running task.
    pub wakeup_preemption: bool,
    /// HRTICK (default: off): slice expiry by high-resolution timer instead of the tick.
    pub hrtick: bool,
    /// CACHE_HOT_BUDDY (default: on): `task_hot()` treats the next buddy and the waker's
    /// last wakee as cache hot (load balancing).
    pub cache_hot_buddy: bool,
    /// SIS_UTIL (default: on): `select_idle_cpu()` scans at most `nr_idle_scan` CPUs of the
    /// LLC, a number the periodic balancer derives from the LLC's utilization.
    pub sis_util: bool,
    /// LB_MIN (default: off): `detach_tasks()` skips tasks of load below 16.
    pub lb_min: bool,
    /// WA_IDLE (default: on): `wake_affine_idle()`.
    pub wa_idle: bool,
    /// WA_WEIGHT (default: on): `wake_affine_weight()`.
    pub wa_weight: bool,
    /// WA_BIAS (default: on): `wake_affine_weight()` biases towards the previous CPU by half
    /// of the domain's imbalance_pct.
    pub wa_bias: bool,
    /// NI_RANDOM (default: on, 6.18.y stable): newidle balancing runs with a probability
    /// that follows its recent success (`newidle_ratio`), rolled on a seeded stream.
    pub ni_random: bool,
}

impl Default for SchedFeatures {
    fn default() -> Self {
        SchedFeatures {
            place_lag: true,
            place_deadline_initial: true,
            place_rel_deadline: true,
            run_to_parity: true,
            preempt_short: true,
            next_buddy: false,
            pick_buddy: true,
            delay_dequeue: true,
            delay_zero: true,
            wakeup_preemption: true,
            hrtick: false,
            cache_hot_buddy: true,
            sis_util: true,
            lb_min: false,
            wa_idle: true,
            wa_weight: true,
            wa_bias: true,
            ni_random: true,
        }
    }
}

impl SchedFeatures {
    /// Kernel names of every modeled feature, in features.h order.
    pub const NAMES: [&'static str; 18] = [
        "PLACE_LAG",
        "PLACE_DEADLINE_INITIAL",
        "PLACE_REL_DEADLINE",
        "RUN_TO_PARITY",
        "PREEMPT_SHORT",
        "NEXT_BUDDY",
        "PICK_BUDDY",
        "DELAY_DEQUEUE",
        "DELAY_ZERO",
        "WAKEUP_PREEMPTION",
        "HRTICK",
        "CACHE_HOT_BUDDY",
        "SIS_UTIL",
        "LB_MIN",
        "WA_IDLE",
        "WA_WEIGHT",
        "WA_BIAS",
        "NI_RANDOM",
    ];

    fn slot(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "PLACE_LAG" => &mut self.place_lag,
            "PLACE_DEADLINE_INITIAL" => &mut self.place_deadline_initial,
            "PLACE_REL_DEADLINE" => &mut self.place_rel_deadline,
            "RUN_TO_PARITY" => &mut self.run_to_parity,
            "PREEMPT_SHORT" => &mut self.preempt_short,
            "NEXT_BUDDY" => &mut self.next_buddy,
            "PICK_BUDDY" => &mut self.pick_buddy,
            "DELAY_DEQUEUE" => &mut self.delay_dequeue,
            "DELAY_ZERO" => &mut self.delay_zero,
            "WAKEUP_PREEMPTION" => &mut self.wakeup_preemption,
            "HRTICK" => &mut self.hrtick,
            "CACHE_HOT_BUDDY" => &mut self.cache_hot_buddy,
            "SIS_UTIL" => &mut self.sis_util,
            "LB_MIN" => &mut self.lb_min,
            "WA_IDLE" => &mut self.wa_idle,
            "WA_WEIGHT" => &mut self.wa_weight,
            "WA_BIAS" => &mut self.wa_bias,
            "NI_RANDOM" => &mut self.ni_random,
            _ => return None,
        })
    }

    /// Whether `name` is a modeled feature.
    pub fn is_known(name: &str) -> bool {
        Self::NAMES.contains(&name)
    }

    /// Sets one feature by its kernel name; `Err` names the known features.
    pub fn set(&mut self, name: &str, on: bool) -> Result<(), String> {
        match self.slot(name) {
            Some(slot) => {
                *slot = on;
                Ok(())
            }
            None => Err(format!("unknown scheduler feature {name:?} (known: {})", Self::NAMES.join(", "))),
        }
    }

    /// Reads one feature by its kernel name.
    pub fn get(&self, name: &str) -> Option<bool> {
        let mut copy = *self;
        copy.slot(name).map(|b| *b)
    }

    /// Applies a `[kernel.features]` table on top of the defaults.
    pub fn from_overrides(overrides: &BTreeMap<String, bool>) -> Result<Self, String> {
        let mut f = SchedFeatures::default();
        for (name, on) in overrides {
            f.set(name, *on)?;
        }
        Ok(f)
    }

    /// All features with their values, in features.h order.
    pub fn list(&self) -> Vec<(&'static str, bool)> {
        Self::NAMES.iter().map(|n| (*n, self.get(n).unwrap_or(false))).collect()
    }
}
