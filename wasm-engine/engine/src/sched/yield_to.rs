//! `yield_to()` → `yield_to_task_fair()` (kernel/sched/syscalls.c, fair.c) and the proposals
//! of the vCPU-debooster thread, as variants:
//!
//! * `Mainline` (6.18): `set_next_buddy(target)` then `yield_task_fair()`.
//! * `DeboosterV1` / `DeboosterV2`: Wanpeng Li's series (v1 2025-11-10, v2 2025-12-19):
//!   after the buddy, `yield_to_deboost()` pushes the yielder's entity at the lowest common
//!   cfs_rq (LCA, `find_matching_se`) by a queue-size-capped penalty. The code is modeled where
//!   it differs from the description: v1's rate limiter refreshes its timestamp on every call,
//!   `update_curr` is skipped because the yielder is curr at the LCA, the `need` comparison is
//!   a plain unsigned one, and the `need == 0` baseline table is a no-op.
//! * `LagCredit`: the v3 redesign as its cover letter describes it (patch bodies were not
//!   available): at each level of the target's chain where it is not eligible, move it to V
//!   minus a margin (assumed: half its slice in its virtual time, divided by the queue's
//!   entity count, clamped to the lag limit); then cancel the yielder chain's protection and
//!   resched, the forced resched rate-limited to once per 6 ms per rq.
//! * `LagTransfer`: K Prateek Nayak's literal suggestion ("compute the vlag and if it is behind
//!   the avg_vruntime, account it to the target"): at the LCA, the yielder's positive lag moves
//!   to the target, weight-scaled so that Σ w·lag stays 0 (the yielder lands on V).
//! * `LastBuddy`: K Prateek Nayak's suggestion of a LAST_BUDDY-like sustained buddy (no
//!   patch exists): the target is re-nominated as next buddy at the next `SUSTAIN_PICKS` picks
//!   of its CPU while it stays queued (the count is an assumption).

use super::entity::EntityId;
use super::fair::Fair;
use crate::obs::log::{BuddySource, SwitchReason};

/// The debooster's rate limit: 6 ms per rq.
pub const DEBOOST_RATE_LIMIT_NS: u64 = 6_000_000;
/// The debooster's reverse-pair debounce window: 600 µs (the comment says ~300 µs).
pub const DEBOOST_PAIR_WINDOW_NS: u64 = 600_000;
/// Picks for which the LastBuddy variant keeps re-nominating the target (assumed).
pub const SUSTAIN_PICKS: u32 = 3;

/// What `yield_to_task_fair()` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YieldToFlavour {
    /// 6.18: buddy + yield.
    Mainline,
    /// Wanpeng Li's debooster, v1 code.
    DeboosterV1,
    /// Wanpeng Li's debooster, v2 code.
    DeboosterV2,
    /// Lag credit to the target (v3 cover letter).
    LagCredit,
    /// The yielder's positive lag transferred to the target (Prateek's suggestion).
    LagTransfer,
    /// LAST_BUDDY-like sustained buddy (Prateek's suggestion).
    LastBuddy,
}

/// Per-rq state of the proposals.
#[derive(Debug, Clone, Default)]
pub struct YieldToRqState {
    /// `yield_deboost_last_time_ns`.
    pub last_time: u64,
    /// `yield_deboost_last_src_pid` (task id + 1; 0 = none).
    pub last_src: u32,
    /// `yield_deboost_last_dst_pid` (task id + 1; 0 = none).
    pub last_dst: u32,
    /// `yield_deboost_last_pair_time_ns`.
    pub last_pair_time: u64,
    /// LastBuddy: the sustained target and the picks left.
    pub sustain: Option<(EntityId, u32)>,
    /// LagCredit: last forced resched.
    pub last_forced: u64,
}

/// Counters of the proposals.
#[derive(Debug, Clone, Default)]
pub struct YieldToStats {
    /// yield_to calls that reached yield_to_task_fair.
    pub calls: u64,
    /// Debooster penalties applied.
    pub penalties: u64,
    /// Debooster calls stopped by the rate limiter.
    pub rate_limited: u64,
    /// Penalties cut by the reverse-pair debounce.
    pub debounced: u64,
    /// Lag credits applied (levels).
    pub credits: u64,
    /// Forced rescheds (LagCredit).
    pub forced_resched: u64,
}

impl Fair {
    /// Models `yield_to_task_fair(rq, p)` for the task running on `cpu` yielding to `target`.
    /// Returns whether it yielded (the caller then schedules). 6.18 refuses only a target that
    /// is not queued (a task throttled out to limbo is not): one still queued in a throttled
    /// hierarchy, before its own return to user space, is accepted. ≤6.17 (the cfs_rq-based
    /// throttle variant) also refused targets in a throttled hierarchy.
    pub fn yield_to_task_fair(&mut self, cpu: u32, target: EntityId) -> bool {
        let q = self.ents[target as usize].cfs_rq;
        if !self.ents[target as usize].on_rq || self.legacy_throttled_hierarchy(q) {
            return false;
        }
        self.yield_to_stats.calls += 1;
        self.set_next_buddy(target, BuddySource::YieldTo);
        match self.params.yield_to {
            YieldToFlavour::Mainline => {}
            YieldToFlavour::DeboosterV1 => self.yield_to_deboost(cpu, target, false),
            YieldToFlavour::DeboosterV2 => self.yield_to_deboost(cpu, target, true),
            YieldToFlavour::LagCredit => self.yield_to_lag_credit(cpu, target),
            YieldToFlavour::LagTransfer => self.yield_to_lag_transfer(cpu, target),
            YieldToFlavour::LastBuddy => {
                let tcpu = self.qs[self.ents[target as usize].cfs_rq as usize].cpu;
                self.yield_to_state[tcpu as usize].sustain = Some((target, SUSTAIN_PICKS));
            }
        }
        self.yield_task(cpu);
        true
    }

    /// LastBuddy: before a pick on `cpu`, re-nominate the sustained target.
    pub fn sustain_buddy(&mut self, cpu: u32) {
        let st = &mut self.yield_to_state[cpu as usize];
        let Some((t, left)) = st.sustain else { return };
        if left == 0 || !self.ents[t as usize].on_rq {
            st.sustain = None;
            return;
        }
        st.sustain = Some((t, left - 1));
        self.set_next_buddy(t, BuddySource::Sustained);
    }

    /// Models `yield_to_deboost()` (v1, or v2 with `v2`).
    fn yield_to_deboost(&mut self, cpu: u32, target: EntityId, v2: bool) {
        let now = self.now;
        let st = &mut self.yield_to_state[cpu as usize];
        let limited =
            self.params.debooster_rate_limit && st.last_time != 0 && now - st.last_time <= DEBOOST_RATE_LIMIT_NS;
        // v1 refreshes the timestamp on every call; v2 only when not limited.
        if !v2 || !limited {
            st.last_time = now;
        }
        if limited {
            self.yield_to_stats.rate_limited += 1;
            return;
        }
        let Some(y) = self.rqs[cpu as usize].curr else { return };
        let same_rq = self.qs[self.ents[target as usize].cfs_rq as usize].cpu == cpu;
        if y == target || !self.ents[y as usize].on_rq || !same_rq {
            return;
        }
        let (y_lca, t_lca) = self.find_matching_se(y, target);
        let common = self.ents[y_lca as usize].cfs_rq;
        let n = if v2 { self.qs[common as usize].h_nr_queued } else { self.qs[common as usize].nr_queued };
        if n <= 1 || self.ents[y_lca as usize].slice == 0 {
            return;
        }
        // update_curr only if the yielder's entity is not curr at the LCA: in practice never.
        if self.qs[common as usize].curr != Some(y_lca) {
            self.update_curr(common);
        }
        let base = self.params.base_slice;
        let g = self.vs(base, y_lca).max(self.vs(base >> 1, y_lca));
        let (vy, vt) = (self.ents[y_lca as usize].vruntime, self.ents[t_lca as usize].vruntime);
        let need = vt.saturating_sub(vy); // a plain unsigned compare, as in the patch (not wrap-safe)
        let mut pen = if need > 0 { g.saturating_add(need).saturating_add(need / 10) } else { g };
        // Reverse-pair debounce (per rq, always records the pair).
        let (src, dst) = (self.task_of(y) + 1, self.task_of(target) + 1);
        let st = &mut self.yield_to_state[cpu as usize];
        if st.last_src == dst && st.last_dst == src && now - st.last_pair_time <= DEBOOST_PAIR_WINDOW_NS {
            pen = pen.min(need.max(g));
            self.yield_to_stats.debounced += 1;
        }
        st.last_src = src;
        st.last_dst = dst;
        st.last_pair_time = now;
        let maxp = match n {
            2 => 6 * g,
            3 => 4 * g,
            4..=6 => 5 * g / 2,
            7..=8 => 2 * g,
            9..=12 => 3 * g / 2,
            _ => g,
        };
        pen = pen.max(g).min(maxp);
        // Apply.
        if vy > u64::MAX - pen {
            return;
        }
        let v = vy + pen;
        if v <= vy {
            return;
        }
        let vslice = self.vs(self.ents[y_lca as usize].slice, y_lca);
        let e = &mut self.ents[y_lca as usize];
        e.vruntime = v;
        e.deadline = v.wrapping_add(vslice);
        if !v2 {
            let vv = self.avg_vruntime(common);
            self.ents[y_lca as usize].vlag = vv.wrapping_sub(v) as i64;
        }
        self.yield_to_stats.penalties += 1;
        self.sample_chain(y);
    }

    /// Prateek's lag transfer at the LCA: the yielder gives its positive lag to the target.
    fn yield_to_lag_transfer(&mut self, cpu: u32, target: EntityId) {
        let Some(y) = self.rqs[cpu as usize].curr else { return };
        if self.qs[self.ents[target as usize].cfs_rq as usize].cpu != cpu || y == target {
            return;
        }
        let (y_lca, t_lca) = self.find_matching_se(y, target);
        let q = self.ents[y_lca as usize].cfs_rq;
        self.update_curr(q);
        let v = self.avg_vruntime(q);
        let lag = v.wrapping_sub(self.ents[y_lca as usize].vruntime) as i64;
        if lag <= 0 || !self.ents[t_lca as usize].on_rq {
            return;
        }
        let (wy, wt) = (self.ents[y_lca as usize].w() as i128, self.ents[t_lca as usize].w().max(1) as i128);
        let give = (lag as i128 * wy / wt) as u64;
        let is_curr = self.qs[q as usize].curr == Some(t_lca);
        if !is_curr {
            self.qs[q as usize].dequeue_timeline(&self.ents, t_lca);
        }
        let e = &mut self.ents[t_lca as usize];
        e.vruntime = e.vruntime.wrapping_sub(give);
        e.deadline = e.deadline.wrapping_sub(give);
        if !is_curr {
            self.qs[q as usize].enqueue_timeline(&self.ents, t_lca);
        }
        let e = &mut self.ents[y_lca as usize];
        e.vruntime = e.vruntime.wrapping_add(lag as u64);
        e.deadline = e.deadline.wrapping_add(lag as u64);
        self.yield_to_stats.credits += 1;
        self.sample_chain(target);
    }

    /// The lag-credit variant (v3 cover letter, details assumed; see the module docs).
    fn yield_to_lag_credit(&mut self, cpu: u32, target: EntityId) {
        let mut cur = Some(target);
        while let Some(s) = cur {
            let q = self.ents[s as usize].cfs_rq;
            if !self.ents[s as usize].on_rq {
                break;
            }
            if !self.qs[q as usize].entity_eligible(&self.ents, s) {
                let v = self.avg_vruntime(q);
                let n = self.qs[q as usize].nr_queued.max(1) as u64;
                let half = self.vs(self.ents[s as usize].slice / 2, s) / n;
                let limit = self.vs(self.qs[q as usize].max_slice(&self.ents) + self.params.tick_nsec, s);
                let margin = half.min(limit);
                let newv = v.wrapping_sub(margin);
                let is_curr = self.qs[q as usize].curr == Some(s);
                if !is_curr {
                    self.qs[q as usize].dequeue_timeline(&self.ents, s);
                }
                let e = &mut self.ents[s as usize];
                let shift = e.vruntime.wrapping_sub(newv);
                e.vruntime = newv;
                e.deadline = e.deadline.wrapping_sub(shift);
                if is_curr {
                    e.vprot = e.vprot.wrapping_sub(shift);
                } else {
                    self.qs[q as usize].enqueue_timeline(&self.ents, s);
                }
                self.yield_to_stats.credits += 1;
            }
            cur = self.ents[s as usize].parent;
        }
        self.sample_chain(target);
        let st = &mut self.yield_to_state[cpu as usize];
        if st.last_forced == 0 || self.now - st.last_forced > DEBOOST_RATE_LIMIT_NS {
            st.last_forced = self.now;
            if let Some(y) = self.rqs[cpu as usize].curr {
                let mut c = Some(y);
                while let Some(s) = c {
                    self.cancel_protect_slice(s);
                    c = self.ents[s as usize].parent;
                }
            }
            self.yield_to_stats.forced_resched += 1;
            self.resched(cpu, SwitchReason::Yield);
        }
    }
}
