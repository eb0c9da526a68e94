//! `struct sched_entity`: the per-task (and later per-group) scheduling state.

use super::weight::LoadWeight;

/// Index of a sched_entity in the simulation's entity table.
pub type EntityId = u32;
/// Index of a cfs_rq in the simulation's queue table.
pub type CfsRqId = u32;

/// Wrap-safe "a is before b" for virtual times, like the kernel's `(s64)(a - b) < 0`.
#[inline]
pub fn vbefore(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// Wrap-safe signed difference `a - b` of two virtual times.
#[inline]
pub fn vdiff(a: u64, b: u64) -> i64 {
    a.wrapping_sub(b) as i64
}

/// Models `struct sched_entity` (include/linux/sched.h, Linux 6.18.44).
///
/// On 6.18.44 `vlag` and `vprot` share storage (a union, confirmed with BTF); the model keeps
/// them as two fields because each is only meaningful in its own phase: `vlag` while the
/// entity is off the CPU, `vprot` while it is `cfs_rq->curr`.
#[derive(Debug, Clone)]
pub struct SchedEntity {
    /// `load`: weight and inverse weight.
    pub load: LoadWeight,
    /// `vruntime`: virtual runtime (wrapping u64 ns).
    pub vruntime: u64,
    /// `deadline`: virtual deadline (wrapping u64 ns).
    pub deadline: u64,
    /// `vlag`: virtual lag V − vruntime saved at dequeue (clamped).
    pub vlag: i64,
    /// `vprot`: RUN_TO_PARITY protection limit set at pick (≥6.17).
    pub vprot: u64,
    /// `slice`: the request size r_i in real ns.
    pub slice: u64,
    /// `custom_slice`: slice set by sched_setattr().
    pub custom_slice: bool,
    /// `rel_deadline`: deadline stored relative to vruntime (PLACE_REL_DEADLINE).
    pub rel_deadline: bool,
    /// `sched_delayed`: kept on the queue by DELAY_DEQUEUE after going to sleep.
    pub sched_delayed: bool,
    /// `on_rq`: queued (including while running and while delayed).
    pub on_rq: bool,
    /// `exec_start`: rq task clock at the last accounting point.
    pub exec_start: u64,
    /// `sum_exec_runtime`: total CPU time in ns.
    pub sum_exec_runtime: u64,
    /// `prev_sum_exec_runtime`: sum_exec_runtime when last picked.
    pub prev_sum_exec_runtime: u64,
    /// `cfs_rq`: the queue this entity is (or would be) queued on.
    pub cfs_rq: CfsRqId,
    /// `my_q`: the queue a group entity owns (None for tasks).
    pub my_q: Option<CfsRqId>,
    /// `parent`: the group entity above (None at the root).
    pub parent: Option<EntityId>,
    /// `depth`: 0 for entities on a root cfs_rq.
    pub depth: u32,
    /// The task this entity belongs to (None for group entities).
    pub task: Option<u32>,
    /// Whether the owning task (or group) is SCHED_IDLE (`se_is_idle`).
    pub idle: bool,
    /// `avg`: PELT averages (read only under `group_shares = pelt`, `group_pelt.rs`).
    pub avg: super::pelt::SchedAvg,
}

impl SchedEntity {
    /// A fresh task entity, as left by `__sched_fork()`.
    pub fn new_task(task: u32, load: LoadWeight, slice: u64, custom_slice: bool, cfs_rq: CfsRqId, idle: bool) -> Self {
        SchedEntity {
            load,
            vruntime: 0,
            deadline: 0,
            vlag: 0,
            vprot: 0,
            slice,
            custom_slice,
            rel_deadline: false,
            sched_delayed: false,
            on_rq: false,
            exec_start: 0,
            sum_exec_runtime: 0,
            prev_sum_exec_runtime: 0,
            cfs_rq,
            my_q: None,
            parent: None,
            depth: 0,
            task: Some(task),
            idle,
            avg: super::group_pelt::init_entity_runnable_average(load.weight, true),
        }
    }

    /// The 1024-scale weight used in the avg_vruntime sums.
    #[inline]
    pub fn w(&self) -> u64 {
        self.load.down()
    }
}
