//! Wakeup placement of Linux 6.18 (kernel/sched/fair.c): `select_task_rq_fair()` with
//! `record_wakee()`/`wake_wide()`, `wake_affine()` (`wake_affine_idle()`,
//! `wake_affine_weight()`), `select_idle_sibling()` (target, previous CPU,
//! `recent_used_cpu`, `select_idle_cpu()` cut by SIS_UTIL's `nr_idle_scan`) and
//! `update_idle_cpu_scan()`, which the periodic balancer calls to set that number.
//!
//! Every decision is returned with the rule that made it ([`Placement`]), for the log and
//! "why this CPU".
//!
//! Not modelled: EAS (no energy model on x86), SMT and cluster scans (`select_idle_core()`,
//! `select_idle_smt()`, `sched_cluster_active`: our machine has neither SMT nor clusters of
//! more than one CPU; hosts with SMT get the plain CPU scan, a named shortcut), asymmetric
//! capacity, the per-CPU-kthread waker rule (no kthreads are modelled) and TTWU_QUEUE (a
//! remote wakeup takes effect at once). Our machine's build runs a vendor block first
//! (`vcpu_pack_room()`, `sched_vcpu_pack=15`): `select_vendor.rs`, knob `vcpu_pack`.

use super::entity::EntityId;
use super::fair::Fair;
use super::smp::TaskSmp;
use super::topology::{SCHED_CAPACITY_SCALE, SD_BALANCE_EXEC, SD_BALANCE_FORK, SD_BALANCE_WAKE, SD_WAKE_AFFINE};
use super::wakeup::{WF_EXEC, WF_FORK, WF_SYNC, WF_TTWU};

/// Which rule placed a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum PlacePath {
    /// Only one CPU allowed (`select_task_rq()` does not ask the class).
    Pinned = 0,
    /// `select_idle_sibling()`: the target CPU is idle.
    Target = 1,
    /// `select_idle_sibling()`: the previous CPU is idle and shares the LLC.
    Prev = 2,
    /// `select_idle_sibling()`: `recent_used_cpu` is idle.
    Recent = 3,
    /// `select_idle_cpu()` found an idle CPU in the LLC.
    Scan = 4,
    /// No idle CPU found (or the scan was cut by SIS_UTIL): the target stays.
    Fallback = 5,
    /// Fork or exec balancing (`sched_balance_find_dst_cpu()`).
    Slow = 6,
    /// The chosen CPU was not allowed: `select_fallback_rq()`.
    NotAllowed = 7,
    /// This build's vendor block (`select_vendor.rs`, `sched_vcpu_pack`) packed the task.
    VcpuPack = 8,
}

impl PlacePath {
    /// All rules, in code order.
    pub const ALL: [PlacePath; 9] = [
        PlacePath::Pinned,
        PlacePath::Target,
        PlacePath::Prev,
        PlacePath::Recent,
        PlacePath::Scan,
        PlacePath::Fallback,
        PlacePath::Slow,
        PlacePath::NotAllowed,
        PlacePath::VcpuPack,
    ];

    /// Stable name (log, JSON, "why").
    pub fn name(self) -> &'static str {
        match self {
            PlacePath::Pinned => "pinned",
            PlacePath::Target => "target_idle",
            PlacePath::Prev => "prev_idle",
            PlacePath::Recent => "recent_used_cpu",
            PlacePath::Scan => "idle_scan",
            PlacePath::Fallback => "target_busy",
            PlacePath::Slow => "find_dst_cpu",
            PlacePath::NotAllowed => "fallback_rq",
            PlacePath::VcpuPack => "vcpu_pack",
        }
    }
}

/// How `wake_affine()` chose between the waker's CPU and the previous one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum AffinePath {
    /// No affine wakeup was considered (fork, the waker's CPU not allowed, wake_wide, or the
    /// waker on the previous CPU).
    None = 0,
    /// `wake_affine_idle()` chose.
    Idle = 1,
    /// `wake_affine_weight()` chose.
    Weight = 2,
    /// Neither rule chose the waker's CPU: the previous CPU stays.
    Prev = 3,
}

impl AffinePath {
    /// All parts, in code order.
    pub const ALL: [AffinePath; 4] = [AffinePath::None, AffinePath::Idle, AffinePath::Weight, AffinePath::Prev];

    /// Stable name (lessons, UI).
    pub fn name(self) -> &'static str {
        match self {
            AffinePath::None => "none",
            AffinePath::Idle => "idle",
            AffinePath::Weight => "weight",
            AffinePath::Prev => "prev",
        }
    }
}

/// A placement and its reasons.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// The CPU.
    pub cpu: u32,
    /// The rule of `select_idle_sibling()` (or the slow path) that gave it.
    pub path: PlacePath,
    /// `wake_affine()`'s part.
    pub affine: AffinePath,
    /// The target `select_idle_sibling()` started from (after `wake_affine()`).
    pub target: u32,
    /// `nr_idle_scan` read by the scan (SIS_UTIL), or u32::MAX if none was read.
    pub nr_idle_scan: u32,
}

/// `nr_cpumask_bits` as "no CPU".
const NO_CPU: u32 = u32::MAX;

impl Fair {
    /// `record_wakee()`: the waker (`current` of `waker_cpu`: `waker`, or the CPU's idle
    /// task) notes whom it wakes; its flips halve once a second.
    fn record_wakee(&mut self, waker: Option<u32>, waker_cpu: u32, wakee: u32) {
        let j = self.jiffies();
        let hz = 1_000_000_000 / self.params.tick_nsec;
        let smp = self.smp.as_deref_mut().expect("smp = fair");
        let cur: &mut TaskSmp = match waker {
            Some(t) => &mut smp.tasks[t as usize],
            None => &mut smp.idle[waker_cpu as usize],
        };
        if j > cur.wakee_flip_decay_ts + hz {
            cur.wakee_flips >>= 1;
            cur.wakee_flip_decay_ts = j;
        }
        if cur.last_wakee != Some(wakee) {
            cur.last_wakee = Some(wakee);
            cur.wakee_flips += 1;
        }
    }

    /// `wake_wide()`: a waker that wakes many different tasks, and wakees that do too, are
    /// spread rather than pulled to the waker's LLC.
    fn wake_wide(&self, waker: Option<u32>, waker_cpu: u32, wakee: u32) -> bool {
        let smp = self.smp();
        let mut master = match waker {
            Some(t) => smp.tasks[t as usize].wakee_flips,
            None => smp.idle[waker_cpu as usize].wakee_flips,
        };
        let mut slave = smp.tasks[wakee as usize].wakee_flips;
        let factor = smp.topo.cpus[waker_cpu as usize].sd_llc_size;
        if master < slave {
            std::mem::swap(&mut master, &mut slave);
        }
        !(slave < factor || master < slave * factor)
    }

    /// `wake_affine_idle()`.
    fn wake_affine_idle(&self, this_cpu: u32, prev_cpu: u32, sync: bool) -> u32 {
        if self.available_idle_cpu(this_cpu) && self.smp().cpus_share_cache(this_cpu, prev_cpu) {
            return if self.available_idle_cpu(prev_cpu) { prev_cpu } else { this_cpu };
        }
        if sync && self.rqs[this_cpu as usize].nr_running - self.cfs_h_nr_delayed(this_cpu) == 1 {
            return this_cpu;
        }
        if self.available_idle_cpu(prev_cpu) {
            return prev_cpu;
        }
        NO_CPU
    }

    /// `wake_affine_weight()`: the waker's CPU if its load with the wakee added stays below
    /// the previous CPU's without it (biased towards the previous CPU by WA_BIAS).
    fn wake_affine_weight(
        &mut self,
        imbalance_pct: u64,
        p: EntityId,
        waker: Option<u32>,
        this_cpu: u32,
        prev_cpu: u32,
        sync: bool,
    ) -> u32 {
        let mut this_eff_load = self.cpu_load(this_cpu) as i64;
        if sync {
            if let Some(cur) = waker {
                let current_load = self.task_h_load(cur) as i64;
                if current_load > this_eff_load {
                    return this_cpu;
                }
                this_eff_load -= current_load;
            }
        }
        let task_load = self.task_h_load(p) as i64;
        this_eff_load += task_load;
        if self.feat.wa_bias {
            this_eff_load *= 100;
        }
        this_eff_load *= self.capacity_of(prev_cpu) as i64;
        let mut prev_eff_load = self.cpu_load(prev_cpu) as i64 - task_load;
        if self.feat.wa_bias {
            prev_eff_load *= 100 + (imbalance_pct as i64 - 100) / 2;
        }
        prev_eff_load *= self.capacity_of(this_cpu) as i64;
        // A sync wakeup (the waker will sleep) breaks a tie in favour of the waker's CPU.
        if sync {
            prev_eff_load += 1;
        }
        if this_eff_load < prev_eff_load {
            this_cpu
        } else {
            NO_CPU
        }
    }

    /// `wake_affine()`: the waker's CPU or the previous one.
    #[allow(clippy::too_many_arguments)]
    fn wake_affine(
        &mut self,
        imbalance_pct: u64,
        p: EntityId,
        waker: Option<u32>,
        this_cpu: u32,
        prev_cpu: u32,
        sync: bool,
    ) -> (u32, AffinePath) {
        let mut target = NO_CPU;
        let mut path = AffinePath::Prev;
        if self.feat.wa_idle {
            target = self.wake_affine_idle(this_cpu, prev_cpu, sync);
            if target != NO_CPU {
                path = AffinePath::Idle;
            }
        }
        if self.feat.wa_weight && target == NO_CPU {
            target = self.wake_affine_weight(imbalance_pct, p, waker, this_cpu, prev_cpu, sync);
            if target != NO_CPU {
                path = AffinePath::Weight;
            }
        }
        if target != this_cpu {
            return (prev_cpu, if target == prev_cpu { path } else { AffinePath::Prev });
        }
        (target, path)
    }

    /// `__select_idle_cpu()`.
    fn idle_or_sched_idle(&self, cpu: u32) -> bool {
        self.available_idle_cpu(cpu) || self.sched_idle_cpu(cpu)
    }

    /// `select_idle_cpu()`: scan the LLC from the CPU after `target`, at most
    /// `nr_idle_scan` CPUs under SIS_UTIL. Returns the idle CPU found and the scan budget read.
    fn select_idle_cpu(&self, task: u32, target: u32) -> (u32, u32) {
        let smp = self.smp();
        let cd = &smp.topo.cpus[target as usize];
        let Some(llc) = cd.sd_llc else { return (NO_CPU, u32::MAX) };
        let cpus = cd.domains[llc].span.and(smp.tasks[task as usize].allowed);
        let mut nr = i64::MAX;
        let mut read = u32::MAX;
        if self.feat.sis_util {
            read = smp.llc_shared[cd.sd_llc_id].nr_idle_scan;
            nr = read as i64 + 1;
            if nr == 1 {
                return (NO_CPU, read);
            }
        }
        for cpu in cpus.iter_wrap(target as usize + 1) {
            nr -= 1;
            if nr <= 0 {
                return (NO_CPU, read);
            }
            if self.idle_or_sched_idle(cpu as u32) {
                return (cpu as u32, read);
            }
        }
        (NO_CPU, read)
    }

    /// `select_idle_sibling()`: an idle CPU sharing the LLC with `target`, else `target`.
    fn select_idle_sibling(&mut self, task: u32, prev: u32, target: u32) -> (u32, PlacePath, u32) {
        if self.idle_or_sched_idle(target) {
            return (target, PlacePath::Target, u32::MAX);
        }
        if prev != target && self.smp().cpus_share_cache(prev, target) && self.idle_or_sched_idle(prev) {
            return (prev, PlacePath::Prev, u32::MAX);
        }
        let smp = self.smp.as_deref_mut().expect("smp = fair");
        let recent = smp.tasks[task as usize].recent_used_cpu;
        smp.tasks[task as usize].recent_used_cpu = prev;
        if recent != prev
            && recent != target
            && self.smp().cpus_share_cache(recent, target)
            && self.idle_or_sched_idle(recent)
            && self.smp().tasks[task as usize].allowed.contains(recent as usize)
        {
            return (recent, PlacePath::Recent, u32::MAX);
        }
        if self.smp().topo.cpus[target as usize].sd_llc.is_none() {
            return (target, PlacePath::Fallback, u32::MAX);
        }
        let (i, nr) = self.select_idle_cpu(task, target);
        if i != NO_CPU {
            return (i, PlacePath::Scan, nr);
        }
        (target, PlacePath::Fallback, nr)
    }

    /// `select_task_rq()` (core.c) with `select_task_rq_fair()`: the CPU a waking (WF_TTWU) or
    /// new (WF_FORK) task runs on. `waker_cpu` is the CPU the wakeup runs on
    /// (`smp_processor_id()`: the waker's, the timer's or the forking parent's CPU), `waker`
    /// the task running there (None: its idle task, or an interrupt of an idle CPU).
    pub fn select_task_rq_fair(
        &mut self,
        task: u32,
        prev_cpu: u32,
        wake_flags: u32,
        waker_cpu: u32,
        waker: Option<u32>,
    ) -> Placement {
        let se = task as EntityId;
        let allowed = self.smp().tasks[task as usize].allowed;
        if self.smp().tasks[task as usize].nr_cpus_allowed <= 1 {
            let cpu = allowed.first().unwrap_or(prev_cpu as usize) as u32;
            return Placement {
                cpu,
                path: PlacePath::Pinned,
                affine: AffinePath::None,
                target: cpu,
                nr_idle_scan: u32::MAX,
            };
        }
        let sync = wake_flags & WF_SYNC != 0;
        // This build's vendor block (not 6.18.y stable): it runs before record_wakee().
        let mode = self.params.vcpu_pack;
        if let Some(cpu) = self.select_task_rq_vcpu_pack(mode, task, prev_cpu, wake_flags, waker_cpu, waker) {
            return Placement {
                cpu,
                path: PlacePath::VcpuPack,
                affine: AffinePath::None,
                target: cpu,
                nr_idle_scan: u32::MAX,
            };
        }
        let sd_flag = if wake_flags & WF_TTWU != 0 {
            SD_BALANCE_WAKE
        } else if wake_flags & WF_FORK != 0 {
            SD_BALANCE_FORK
        } else if wake_flags & WF_EXEC != 0 {
            SD_BALANCE_EXEC
        } else {
            0
        };
        let cpu = waker_cpu;
        let mut new_cpu = prev_cpu;
        let mut want_affine = false;
        let mut affine = AffinePath::None;
        if wake_flags & WF_TTWU != 0 {
            self.record_wakee(waker, waker_cpu, task);
            want_affine = !self.wake_wide(waker, waker_cpu, task) && allowed.contains(cpu as usize);
        }
        let mut sd: Option<usize> = None;
        let ndom = self.smp().topo.cpus[cpu as usize].domains.len();
        for level in 0..ndom {
            let d = &self.smp().topo.cpus[cpu as usize].domains[level];
            let (flags, span, pct) = (d.flags, d.span, d.imbalance_pct as u64);
            if want_affine && flags & SD_WAKE_AFFINE != 0 && span.contains(prev_cpu as usize) {
                if cpu != prev_cpu {
                    (new_cpu, affine) = self.wake_affine(pct, se, waker, cpu, prev_cpu, sync);
                }
                sd = None;
                break;
            }
            if flags & sd_flag != 0 {
                sd = Some(level);
            } else if !want_affine {
                break;
            }
        }
        let (mut cpu_out, mut path, mut target, mut nr) = (new_cpu, PlacePath::Fallback, new_cpu, u32::MAX);
        if let Some(level) = sd {
            // Fork and exec balancing: the idlest group and CPU.
            (cpu_out, path) = (self.sched_balance_find_dst_cpu(level, se, cpu, prev_cpu, sd_flag), PlacePath::Slow);
            target = cpu_out;
        } else if wake_flags & WF_TTWU != 0 {
            (cpu_out, path, nr) = self.select_idle_sibling(task, prev_cpu, new_cpu);
        }
        if !allowed.contains(cpu_out as usize) {
            // select_fallback_rq(): the first allowed CPU (the node and cpuset steps of the
            // kernel are moot on one node).
            cpu_out = allowed.first().expect("affinity is non-empty") as u32;
            path = PlacePath::NotAllowed;
        }
        Placement { cpu: cpu_out, path, affine, target, nr_idle_scan: nr }
    }

    /// `update_idle_cpu_scan()` (SIS_UTIL): from the LLC's summed CFS utilization, how many
    /// CPUs `select_idle_cpu()` may scan: `llc_weight · (1 − min(1, (util/llc)² · pct² /
    /// (10000 · 1024)/1024))`. Called by the periodic balancer at the LLC domain (not by
    /// newidle balancing).
    pub fn update_idle_cpu_scan(&mut self, dst_cpu: u32, level: usize, sum_util: u64) {
        if !self.feat.sis_util {
            return;
        }
        let smp = self.smp.as_deref_mut().expect("smp = fair");
        let cd = &smp.topo.cpus[dst_cpu as usize];
        let llc_weight = cd.sd_llc_size as u64;
        let sd = &cd.domains[level];
        if sd.span_weight as u64 != llc_weight {
            return;
        }
        let x = sum_util / llc_weight;
        let pct = sd.imbalance_pct as u64;
        let tmp = (x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE)).min(SCHED_CAPACITY_SCALE);
        let y = (SCHED_CAPACITY_SCALE - tmp) * llc_weight / SCHED_CAPACITY_SCALE;
        let id = cd.sd_llc_id;
        smp.llc_shared[id].nr_idle_scan = y as u32;
    }
}
