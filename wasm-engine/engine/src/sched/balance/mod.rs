//! Load balancing of Linux 6.18 (kernel/sched/fair.c), under `smp = "fair"` only: periodic
//! balancing from the tick (`sched_balance_trigger()` → SCHED softirq →
//! `sched_balance_domains()` → `sched_balance_rq()`), active balancing (the stopper),
//! newidle balancing with NI_RANDOM (`newidle.rs`), nohz idle balancing (`nohz.rs`) and
//! fork/exec balancing (`fork.rs`). Queued tasks move with `detach_task()`/`attach_task()`
//! (`detach.rs`); group statistics are in `stats.rs`, the imbalance in `imbalance.rs`, one
//! balance pass in `rq.rs`.
//!
//! Event order (fidelity review §4.1): each CPU's tick runs `task_tick_fair()`, then
//! `sched_balance_trigger()`; the SCHED softirq it raises runs at the end of that same tick
//! event (irq exit), and a nohz kick's softirq on the idle load balancer runs right after it
//! (IPI latency 0). CPUs whose ticks fall at the same instant are handled in CPU index order,
//! each event whole: real races between CPUs balancing at once are serialised (a model choice).
//!
//! Named shortcuts:
//! * Costs are not measured: a newidle balance of one domain costs
//!   `Balance::newidle_domain_cost_ns` (default 0, settable from Rust; no scenario key yet).
//!   With a cost of 0, `max_newidle_lb_cost` stays 0 and `avg_idle` never gates newidle
//!   balancing. `update_newidle_cost()`'s `if (cost)` (a measured balance, as opposed to the
//!   decay-only call from `sched_balance_domains()`) is read as "a balance ran", so
//!   NI_RANDOM's `newidle_ratio` adapts as in the kernel.
//! * `sched_rng()` is a SplitMix64 stream per CPU, seeded from the scenario seed
//!   (`SeedTree::sub_seed("sched_rng", cpu)`); the real kernel's dice are random: compare
//!   distributions, not single runs.
//! * The stopper of active balancing takes the busiest CPU at the instant the balance
//!   decides it (no `migration/N` run time, no IPI): it preempts the running task (a Switch
//!   row to idle with reason `preempt`), detaches one task (`detach_one_task()`), attaches it
//!   on the pushing CPU and lets the busiest CPU pick again.
//! * `sg->sgc->imbalance` (group_imbalanced) is never set: it is set only at a parent
//!   domain, and the hosts the engine builds for `smp = "fair"` so far have one level (a flat
//!   host) or tasks pinned to one CPU; with several levels and partial affinity the model
//!   misses that rule. Misfit, asym packing, SMT balance and NUMA (`fbq_type`) are left out:
//!   the machine is symmetric, single-threaded cores, one node.
//! * A CPU whose tick finds it idle stops its tick there (the engine's NO_HZ idle) and enters
//!   the nohz idle mask (`nohz_balance_enter_idle()`) at that tick; it does not run
//!   `sched_balance_trigger()` at that last idle tick.
//! * `cfs_tasks` (the MRU list `detach_tasks()` walks from its tail) is kept as a per-task
//!   stamp: enqueue (`account_entity_enqueue()`) and `set_next_entity()` of a task stamp it
//!   as head; the tail is the smallest stamp.
//! * Blocked load: under `smp = "fair"` an idle CPU's blocked load is aged only by the nohz
//!   idle balancer's `update_nohz_stats()` (NOHZ_STATS_KICK, every LOAD_AVG_PERIOD ms while
//!   `nohz.has_blocked`), and a busy CPU's at each of its ticks (`Fair::pelt_periodic`, as
//!   before); `Fair::pelt_periodic`'s own 32 ms sweep of idle CPUs runs only under
//!   `smp = "static"`.
//!
//! When no task may run on more than one CPU (every task pinned), nothing could migrate and
//! the balancer is skipped entirely (`Balance::enabled` false): no trigger, softirq, nohz
//! kick or newidle pass runs, so `nr_balance_failed`, the intervals and the Balance rows
//! are not produced (they would be unobservable in the schedule).

mod detach;
mod fork;
mod imbalance;
mod newidle;
mod nohz;
mod rq;
mod stats;

use super::fair::Fair;
use super::topology::CpuMask;
use crate::obs::codes::{BalanceOutcome, MigrateClass};
use crate::obs::log::{EventKind, NO_TASK};
use crate::rng::{SeedTree, SplitMix64};

pub use stats::GroupType;

/// `enum cpu_idle_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum CpuIdle {
    /// `__CPU_NOT_IDLE`: the balancing CPU is busy.
    NotIdle = 0,
    /// `CPU_IDLE`.
    Idle = 1,
    /// `CPU_NEWLY_IDLE`.
    NewlyIdle = 2,
}

impl CpuIdle {
    /// Whether `env->idle` is true (idle or newly idle).
    pub fn any(self) -> bool {
        self != CpuIdle::NotIdle
    }
}

/// `enum migration_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum MigrationType {
    Load = 0,
    Util = 1,
    Task = 2,
    Misfit = 3,
}

/// Why a candidate task was not detached (the Balance row keeps the last one seen).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Reject {
    None = 0,
    Running = 1,
    Hot = 2,
    TooBig = 3,
    Ineligible = 4,
    Delayed = 5,
    Pinned = 6,
    LbMin = 7,
}

/// The nohz idle balancer's global state (`struct nohz`).
#[derive(Debug, Clone, Default)]
pub struct Nohz {
    pub idle_cpus_mask: CpuMask,
    pub nr_cpus: u32,
    pub has_blocked: bool,
    pub needs_update: bool,
    pub next_balance: u64,
    pub next_blocked: u64,
}

/// Balancer state beyond the sched domains (`Smp::lb`).
#[derive(Debug, Clone)]
pub struct Balance {
    /// Some task may run on more than one CPU (module doc).
    pub enabled: bool,
    /// The modelled cost of one domain's newidle balance, ns (module doc).
    pub newidle_domain_cost_ns: u64,
    /// Per CPU: `rq->next_balance` (jiffies).
    pub next_balance: Vec<u64>,
    /// Per CPU and domain level: `sd->last_balance` (jiffies).
    pub last_balance: Vec<Vec<u64>>,
    /// Per CPU and domain level: `sd->last_decay_max_lb_cost` (jiffies).
    pub last_decay: Vec<Vec<u64>>,
    /// Per CPU: `rq->avg_idle`, `rq->idle_stamp` (0: none), `rq->max_idle_balance_cost`.
    pub avg_idle: Vec<u64>,
    pub idle_stamp: Vec<u64>,
    pub max_idle_balance_cost: Vec<u64>,
    /// Per CPU: `sched_rnd_state`.
    pub rng: Vec<SplitMix64>,
    /// Per CPU: `rq->active_balance` (a stopper push is pending: the target CPU).
    pub active_balance: Vec<Option<u32>>,
    /// `rd->overloaded`.
    pub overloaded: bool,
    /// nohz.
    pub nohz: Nohz,
    /// Per CPU: `rq->nohz_tick_stopped`, `rq->has_blocked_load`,
    /// `rq->last_blocked_load_update_tick`, `sd_llc->nohz_idle`, pending `nohz_flags`.
    pub tick_stopped: Vec<bool>,
    pub has_blocked_load: Vec<bool>,
    pub last_blocked_tick: Vec<u64>,
    pub llc_nohz_idle: Vec<bool>,
    pub nohz_flags: Vec<u32>,
    /// Per task: its `cfs_tasks` position (larger = nearer the head); the next stamp.
    pub cfs_seq: Vec<u64>,
    pub seq: u64,
    /// Per task: SCHED_NORMAL (wakeup preemption reads it).
    pub normal: Vec<bool>,
    /// The entity being migrated (`TASK_ON_RQ_MIGRATING`: DO_DETACH at its dequeue).
    pub migrating: Option<u32>,
    /// Per CPU: `rq->nohz_idle_balance` (the kick flags its softirq handles).
    pub nohz_idle_balance: Vec<u32>,
    /// CPUs kicked to run the idle load balance at the end of this event.
    pub ilb_pending: Vec<u32>,
    /// A nohz idle balance is running (its migrations are of class nohz).
    pub nohz_pass: bool,
    /// Migrations made since the simulation last looked: (task, destination CPU).
    pub moved: Vec<(u32, u32)>,
    /// Stopper work queued by `sched_balance_rq()`: (busiest CPU, push CPU).
    pub stopper: Vec<(u32, u32)>,
    /// `host.tick_ahead`: per mille of the jiffies at which a CPU other than the timekeeper
    /// reads `jiffies` one behind in `sched_balance_trigger()` (0: never), the timekeeping CPU
    /// (`tick_do_timer_cpu`) and the seed of the draws.
    pub tick_ahead_per_mille: u64,
    pub timekeeper: u32,
    pub tick_ahead_seed: u64,
}

impl Balance {
    /// Seeds each CPU's `sched_rng()` stream, and the `host.tick_ahead` draws, from the
    /// scenario seed.
    pub fn seed_rng(&mut self, seed: u64) {
        let seeds = SeedTree::new(seed);
        self.tick_ahead_seed = seeds.sub_seed("tick_ahead", 0);
        for (c, r) in self.rng.iter_mut().enumerate() {
            *r = SplitMix64::new(seeds.sub_seed("sched_rng", c as u64));
        }
    }

    /// The state at boot for `ncpus` CPUs with `levels[cpu]` domains each and `ntasks`
    /// tasks; `seed` is the scenario seed.
    pub fn new(ncpus: usize, levels: &[usize], ntasks: usize, seed: u64, migration_cost: u64) -> Balance {
        let seeds = SeedTree::new(seed);
        Balance {
            enabled: false,
            newidle_domain_cost_ns: 0,
            next_balance: vec![0; ncpus],
            last_balance: levels.iter().map(|&n| vec![0; n]).collect(),
            last_decay: levels.iter().map(|&n| vec![0; n]).collect(),
            avg_idle: vec![2 * migration_cost; ncpus],
            idle_stamp: vec![0; ncpus],
            max_idle_balance_cost: vec![migration_cost; ncpus],
            rng: (0..ncpus).map(|c| SplitMix64::new(seeds.sub_seed("sched_rng", c as u64))).collect(),
            active_balance: vec![None; ncpus],
            overloaded: false,
            nohz: Nohz::default(),
            tick_stopped: vec![false; ncpus],
            has_blocked_load: vec![false; ncpus],
            last_blocked_tick: vec![0; ncpus],
            llc_nohz_idle: vec![false; ncpus],
            nohz_flags: vec![0; ncpus],
            cfs_seq: vec![0; ntasks],
            seq: 0,
            normal: vec![true; ntasks],
            migrating: None,
            nohz_idle_balance: vec![0; ncpus],
            ilb_pending: Vec::new(),
            nohz_pass: false,
            moved: Vec::new(),
            stopper: Vec::new(),
            tick_ahead_per_mille: 0,
            timekeeper: 0,
            tick_ahead_seed: seeds.sub_seed("tick_ahead", 0),
        }
    }

    /// Whether `cpu`'s tick at jiffy `j` ran ahead of the timekeeper's `jiffies` update
    /// (`host.tick_ahead`): a draw of its own for each CPU and jiffy, so that it does not
    /// depend on how many other draws were made.
    pub fn tick_ahead(&self, cpu: u32, j: u64) -> bool {
        if self.tick_ahead_per_mille == 0 || cpu == self.timekeeper {
            return false;
        }
        let mut r = SplitMix64::new(self.tick_ahead_seed ^ j.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(cpu));
        r.next_u64() % 1000 < self.tick_ahead_per_mille
    }
}

/// `SCHED_NR_MIGRATE_BREAK` and `sysctl_sched_nr_migrate` (not PREEMPT_RT).
pub const SCHED_NR_MIGRATE_BREAK: u32 = 32;
/// `MAX_PINNED_INTERVAL` (ms).
pub const MAX_PINNED_INTERVAL: u32 = 512;

impl Fair {
    /// The balancer state, when balancing runs.
    #[inline]
    pub(crate) fn lb_enabled(&self) -> bool {
        self.smp.as_deref().is_some_and(|s| s.lb.enabled)
    }

    fn lb(&mut self) -> &mut Balance {
        &mut self.smp.as_deref_mut().expect("smp = fair").lb
    }

    /// `HZ`.
    pub(crate) fn hz(&self) -> u64 {
        1_000_000_000 / self.params.tick_nsec
    }

    /// `msecs_to_jiffies()` (rounding up).
    pub(crate) fn msecs_to_jiffies(&self, ms: u64) -> u64 {
        (ms * 1_000_000).div_ceil(self.params.tick_nsec)
    }

    /// `max_load_balance_interval`: HZ × online CPUs / 10 (`update_max_interval()`).
    fn max_load_balance_interval(&self) -> u64 {
        self.hz() * self.rqs.len() as u64 / 10
    }

    /// Stamps `task` as the head of its CPU's `cfs_tasks` (enqueue, `set_next_task`).
    pub(crate) fn cfs_tasks_head(&mut self, task: u32) {
        if let Some(smp) = self.smp.as_deref_mut() {
            let lb = &mut smp.lb;
            lb.seq += 1;
            if let Some(s) = lb.cfs_seq.get_mut(task as usize) {
                *s = lb.seq;
            }
        }
    }

    /// `add_nr_running()`'s overload mark: a CPU with two or more tasks sets
    /// `rd->overloaded`.
    pub(crate) fn note_nr_running(&mut self, cpu: u32) {
        if self.rqs[cpu as usize].nr_running >= 2 {
            if let Some(smp) = self.smp.as_deref_mut() {
                smp.lb.overloaded = true;
            }
        }
    }

    /// `get_sd_balance_interval()` (jiffies).
    fn get_sd_balance_interval(&self, cpu: u32, level: usize, cpu_busy: bool) -> u64 {
        let sd = &self.smp().topo.cpus[cpu as usize].domains[level];
        let mut ms = sd.balance_interval as u64;
        if cpu_busy {
            ms *= sd.busy_factor as u64;
        }
        let mut interval = self.msecs_to_jiffies(ms);
        if cpu_busy {
            interval = interval.saturating_sub(1);
        }
        interval.clamp(1, self.max_load_balance_interval().max(1))
    }

    /// `update_next_balance()`: `next` moves to this domain's next idle-interval balance if
    /// that is earlier.
    fn update_next_balance(&self, cpu: u32, level: usize, next: &mut u64) {
        let n = self.smp().lb.last_balance[cpu as usize][level] + self.get_sd_balance_interval(cpu, level, false);
        if *next > n {
            *next = n;
        }
    }

    /// `update_newidle_stats()`.
    fn update_newidle_stats(&mut self, cpu: u32, level: usize, success: u32) {
        let sd = &mut self.smp.as_deref_mut().expect("smp").topo.cpus[cpu as usize].domains[level];
        sd.newidle_call += 1;
        sd.newidle_success += success;
        if sd.newidle_call >= 1024 {
            sd.newidle_ratio = sd.newidle_success;
            sd.newidle_call /= 2;
            sd.newidle_success /= 2;
        }
    }

    /// `update_newidle_cost()`: `ran` says a balance ran (module doc); returns whether the
    /// max cost decayed.
    fn update_newidle_cost(&mut self, cpu: u32, level: usize, ran: bool, cost: u64, success: u32) -> bool {
        let now = self.jiffies();
        let hz = self.hz();
        if ran {
            self.update_newidle_stats(cpu, level, success);
        }
        let smp = self.smp.as_deref_mut().expect("smp");
        let last = &mut smp.lb.last_decay[cpu as usize][level];
        let sd = &mut smp.topo.cpus[cpu as usize].domains[level];
        if cost > sd.max_newidle_lb_cost {
            sd.max_newidle_lb_cost = cost;
            *last = now;
        } else if now > *last + hz {
            sd.max_newidle_lb_cost = sd.max_newidle_lb_cost * 253 / 256;
            *last = now;
            return true;
        }
        false
    }

    /// `sched_balance_trigger()` at a tick of the busy `cpu`: whether the SCHED softirq is
    /// raised; then `nohz_balancer_kick()`.
    pub fn sched_balance_trigger(&mut self, cpu: u32) -> bool {
        if !self.lb_enabled() {
            return false;
        }
        // On a CPU whose tick ran ahead of the timekeeper's, `jiffies` is still the previous
        // jiffy's (`host.tick_ahead`, findings: "The three-hog rotation is a neutral orbit").
        let j = self.jiffies();
        let ahead = self.smp().lb.tick_ahead(cpu, j);
        let raise = j - u64::from(ahead && j > 0) >= self.smp().lb.next_balance[cpu as usize];
        self.nohz_balancer_kick(cpu);
        raise
    }

    /// `sched_balance_softirq()` on `cpu`, idle or not as `idle` says.
    pub fn sched_balance_softirq(&mut self, cpu: u32, idle: CpuIdle) {
        if self.nohz_idle_balance(cpu, idle) {
            return;
        }
        self.update_blocked_averages(cpu);
        self.sched_balance_domains(cpu, idle);
    }

    /// One `sched_balance_rq()` pass of `cpu`'s domain at `level`, due or not (the trace
    /// replay asks the passes a dump recorded, `replay::decisions::passes`). Returns the
    /// tasks moved; the domain's `nr_balance_failed` and `balance_interval` change as the pass
    /// leaves them, `last_balance` does not.
    pub fn sched_balance_pass(&mut self, cpu: u32, level: usize, idle: CpuIdle) -> u32 {
        let mut continue_balancing = true;
        self.sched_balance_rq(cpu, level, idle, &mut continue_balancing)
    }

    /// `sched_balance_domains()`: balance each domain of `cpu` whose interval is due.
    pub fn sched_balance_domains(&mut self, cpu: u32, mut idle: CpuIdle) {
        let mut continue_balancing = true;
        let mut busy = idle != CpuIdle::Idle && !self.sched_idle_cpu(cpu);
        let now = self.jiffies();
        let mut next_balance = now + 60 * self.hz();
        let mut update = false;
        let mut need_decay = false;
        let mut max_cost = 0u64;
        let ndom = self.smp().topo.cpus[cpu as usize].domains.len();
        for level in 0..ndom {
            need_decay = self.update_newidle_cost(cpu, level, false, 0, 0);
            max_cost += self.smp().topo.cpus[cpu as usize].domains[level].max_newidle_lb_cost;
            if !continue_balancing {
                if need_decay {
                    continue;
                }
                break;
            }
            let mut interval = self.get_sd_balance_interval(cpu, level, busy);
            let last = self.smp().lb.last_balance[cpu as usize][level];
            if now >= last + interval {
                if self.sched_balance_rq(cpu, level, idle, &mut continue_balancing) > 0 {
                    idle = if self.idle_cpu(cpu) { CpuIdle::Idle } else { CpuIdle::NotIdle };
                    busy = idle == CpuIdle::NotIdle && !self.sched_idle_cpu(cpu);
                }
                self.lb().last_balance[cpu as usize][level] = now;
                interval = self.get_sd_balance_interval(cpu, level, busy);
            }
            let last = self.smp().lb.last_balance[cpu as usize][level];
            if next_balance > last + interval {
                next_balance = last + interval;
                update = true;
            }
        }
        if need_decay {
            let mc = crate::sched::wakeup::SYSCTL_SCHED_MIGRATION_COST_NS.max(max_cost);
            self.lb().max_idle_balance_cost[cpu as usize] = mc;
        }
        if update {
            self.lb().next_balance[cpu as usize] = next_balance;
        }
    }

    /// Logs one balance attempt that found an imbalance (`EventKind::Balance`, packing in
    /// `obs::codes`).
    #[allow(clippy::too_many_arguments)]
    fn log_balance(
        &mut self,
        dst: u32,
        level: usize,
        idle: CpuIdle,
        group: GroupType,
        mt: MigrationType,
        imbalance: i64,
        moved: u32,
        outcome: BalanceOutcome,
        reject: Reject,
        src: Option<u32>,
    ) {
        let val = level as i64 & 0xff
            | (idle as i64) << 8
            | (group as i64) << 16
            | (mt as i64) << 24
            | (outcome as i64) << 32
            | (moved.min(255) as i64) << 40
            | (reject as i64) << 48
            | (src.map_or(0xff, |s| s.min(0xfe)) as i64) << 56;
        let imb = imbalance.clamp(0, u32::MAX as i64 - 1) as u32;
        self.log.event(self.now, EventKind::Balance, dst, NO_TASK, imb, val);
    }

    /// The migration class of a balance by the idle type and who runs it.
    fn class_of(idle: CpuIdle, nohz: bool) -> MigrateClass {
        match (idle, nohz) {
            (CpuIdle::NewlyIdle, _) => MigrateClass::Newidle,
            (_, true) => MigrateClass::Nohz,
            _ => MigrateClass::Periodic,
        }
    }
}

/// `LBF_ALL_PINNED`.
pub const LBF_ALL_PINNED: u32 = 0x01;
/// `LBF_NEED_BREAK`.
pub const LBF_NEED_BREAK: u32 = 0x02;
/// `LBF_DST_PINNED`.
pub const LBF_DST_PINNED: u32 = 0x04;
/// `LBF_SOME_PINNED`.
pub const LBF_SOME_PINNED: u32 = 0x08;
/// `LBF_ACTIVE_LB`.
pub const LBF_ACTIVE_LB: u32 = 0x10;

/// `struct lb_env`. The domain is `sd_cpu`'s at `level` (`env->sd`; `dst_cpu` may change
/// under LBF_DST_PINNED, the domain does not).
#[derive(Debug, Clone)]
pub(crate) struct LbEnv {
    pub sd_cpu: u32,
    pub level: usize,
    pub src_cpu: u32,
    pub dst_cpu: u32,
    pub dst_grpmask: CpuMask,
    pub new_dst_cpu: u32,
    pub idle: CpuIdle,
    pub imbalance: i64,
    pub cpus: CpuMask,
    pub flags: u32,
    pub loop_: u32,
    pub loop_break: u32,
    pub loop_max: u32,
    pub migration_type: MigrationType,
    pub tasks: Vec<u32>,
    pub class: MigrateClass,
    pub reject: Reject,
}
