//! Invariant checkers, run after every event in tests (`Simulation::check_invariants`).
//!
//! * each cfs_rq's sums equal what its timeline holds (sum_weight, sum_w_vruntime), its
//!   load equals Σ weights of its queued entities, nr_queued counts them;
//! * weighted lag sums to ≈ 0: |Σ w_i·(V − v_i)| ≤ Σ w_i (V is a floored average);
//! * the timeline is sorted by deadline and never holds curr;
//! * each task entity is on at most one queue, and on_rq matches where it sits;
//! * rq.nr_running counts the queued tasks; h_nr_runnable ≤ h_nr_queued;
//! * CFS bandwidth: a cfs_rq's throttle_count is the number of throttled queues at or above it,
//!   and only a queue in a throttled hierarchy holds tasks in limbo;
//! * Σ task runtime + Σ idle = CPUs × elapsed;
//! * under `smp = "fair"`: a queued or running task's entity sits on a cfs_rq of the CPU the
//!   simulation says it is on, and that CPU is in its allowed mask (the balancer moved it
//!   consistently and only where it may run).
//!
//! Not checked: that a cfs_rq's PELT sums equal its entities'. They do not, exactly: blocked
//! (sleeping) entities' contributions stay in the sums and decay separately, removed loads
//! are folded in only at the next update, and every `*_avg` is a floored division of its
//! `*_sum`, so no exact equality holds to state.

use crate::sched::entity::{vbefore, vdiff};
use crate::sim::{Simulation, TaskState};

/// Checks every invariant; the error names the first one violated.
pub fn check(sim: &Simulation) -> Result<(), String> {
    let f = &sim.fair;
    let ents = &f.ents;
    let mut seen = vec![0u32; ents.len()];
    for q in &f.qs {
        let mut sum_w = 0u64;
        let mut sum_wv: i64 = 0;
        let mut load = 0u64;
        let mut nr = 0u32;
        for (i, &id) in q.timeline.iter().enumerate() {
            let e = &ents[id as usize];
            seen[id as usize] += 1;
            if Some(id) == q.curr {
                return Err(format!("cfs_rq {}: curr {} is in the timeline", q.id, id));
            }
            if !e.on_rq || e.cfs_rq != q.id {
                return Err(format!(
                    "cfs_rq {}: entity {} in timeline but on_rq={} cfs_rq={}",
                    q.id, id, e.on_rq, e.cfs_rq
                ));
            }
            if i > 0 && vbefore(e.deadline, ents[q.timeline[i - 1] as usize].deadline) {
                return Err(format!("cfs_rq {}: timeline not sorted by deadline at {}", q.id, i));
            }
            sum_w += e.w();
            sum_wv = sum_wv.wrapping_add(q.key(e).wrapping_mul(e.w() as i64));
            load += e.load.weight;
            nr += 1;
        }
        if sum_w != q.sum_weight {
            return Err(format!("cfs_rq {}: sum_weight {} != Σw {}", q.id, q.sum_weight, sum_w));
        }
        if sum_wv != q.sum_w_vruntime {
            return Err(format!("cfs_rq {}: sum_w_vruntime {} != Σ key·w {}", q.id, q.sum_w_vruntime, sum_wv));
        }
        if let Some(c) = q.curr {
            let e = &ents[c as usize];
            if e.cfs_rq != q.id {
                return Err(format!("cfs_rq {}: curr {} belongs to cfs_rq {}", q.id, c, e.cfs_rq));
            }
            if e.on_rq {
                seen[c as usize] += 1;
                load += e.load.weight;
                nr += 1;
            }
        }
        if load != q.load_weight {
            return Err(format!("cfs_rq {}: load.weight {} != Σ weights {}", q.id, q.load_weight, load));
        }
        if nr != q.nr_queued {
            return Err(format!("cfs_rq {}: nr_queued {} != {}", q.id, q.nr_queued, nr));
        }
        if q.h_nr_runnable > q.h_nr_queued {
            return Err(format!("cfs_rq {}: h_nr_runnable {} > h_nr_queued {}", q.id, q.h_nr_runnable, q.h_nr_queued));
        }
        // Weighted lag: Σ w_i (V − v_i) over the tree and curr is 0 up to V's rounding.
        if nr > 0 {
            let v = q.peek_avg_vruntime(ents);
            let mut lag_sum: i128 = 0;
            let mut w_sum: i128 = 0;
            for id in q.timeline.iter().copied().chain(q.curr_on_rq(ents)) {
                let e = &ents[id as usize];
                lag_sum += e.w() as i128 * vdiff(v, e.vruntime) as i128;
                w_sum += e.w() as i128;
            }
            if lag_sum.abs() > w_sum {
                return Err(format!("cfs_rq {}: Σ w·lag = {} exceeds rounding bound {}", q.id, lag_sum, w_sum));
            }
        }
    }
    for (id, e) in ents.iter().enumerate() {
        if seen[id] > 1 {
            return Err(format!("entity {id} is on {} queues", seen[id]));
        }
        if e.on_rq != (seen[id] == 1) {
            return Err(format!("entity {id}: on_rq={} but found on {} queues", e.on_rq, seen[id]));
        }
    }
    let legacy = f.throttle_mode == crate::sched::bandwidth::ThrottleMode::CfsRq;
    // Queued tasks per CPU, in one pass. Under the cfs_rq-based throttle, tasks below a
    // throttled queue are not counted.
    let mut queued_on = vec![0u32; f.rqs.len()];
    for t in &sim.tasks {
        let e = &ents[t.se as usize];
        let q = &f.qs[e.cfs_rq as usize];
        if e.on_rq && !(legacy && q.throttle_count > 0) {
            queued_on[q.cpu as usize] += 1;
        }
    }
    for rq in &f.rqs {
        let queued = queued_on[rq.cpu as usize];
        if queued != rq.nr_running {
            return Err(format!("cpu {}: nr_running {} != queued tasks {}", rq.cpu, rq.nr_running, queued));
        }
        if let Some(c) = rq.curr {
            let t = &sim.tasks[f.task_of(c) as usize];
            if t.state != TaskState::Running || t.cpu != rq.cpu {
                return Err(format!("cpu {}: curr task {} is {:?} on cpu {}", rq.cpu, t.cfg.name, t.state, t.cpu));
            }
        }
    }
    for q in &f.qs {
        for &se in &q.limbo {
            let t = &sim.tasks[f.task_of(se) as usize];
            if ents[se as usize].on_rq || t.state != TaskState::Throttled {
                return Err(format!(
                    "limbo of cfs_rq {} holds {} which is {:?} (on_rq={})",
                    q.id, t.cfg.name, t.state, ents[se as usize].on_rq
                ));
            }
        }
        if q.throttled && q.throttle_count == 0 {
            return Err(format!("cfs_rq {} is throttled with throttle_count 0", q.id));
        }
        // tg_throttle_down/tg_unthrottle_up keep each count equal to the throttled queues on
        // the path from this one up to its CPU's root; a task waits in limbo only below one.
        let mut throttled_above = 0u32;
        let mut tg = Some(q.tg);
        while let Some(g) = tg {
            let g = &f.tgs[g as usize];
            throttled_above += u32::from(f.qs[g.cfs_rq[q.cpu as usize] as usize].throttled);
            tg = g.parent;
        }
        if q.throttle_count != throttled_above {
            return Err(format!(
                "cfs_rq {}: throttle_count {} but {} throttled queues at or above it",
                q.id, q.throttle_count, throttled_above
            ));
        }
        if !q.limbo.is_empty() && q.throttle_count == 0 {
            return Err(format!("cfs_rq {} holds tasks in limbo outside a throttled hierarchy", q.id));
        }
    }
    for t in &sim.tasks {
        if t.state == TaskState::Running && f.rqs[t.cpu as usize].curr != Some(t.se) {
            return Err(format!("task {} is Running but not curr of cpu {}", t.cfg.name, t.cpu));
        }
    }
    if let Some(smp) = f.smp.as_deref() {
        for (i, t) in sim.tasks.iter().enumerate() {
            let e = &ents[t.se as usize];
            if !e.on_rq && t.state != TaskState::Running {
                continue;
            }
            let cpu = f.qs[e.cfs_rq as usize].cpu;
            if cpu != t.cpu {
                return Err(format!(
                    "task {} is on a cfs_rq of cpu {cpu} but the simulation says cpu {}",
                    t.cfg.name, t.cpu
                ));
            }
            if !smp.tasks[i].allowed.contains(cpu as usize) {
                return Err(format!("task {} is queued on cpu {cpu}, outside its allowed CPUs", t.cfg.name));
            }
        }
    }
    let busy: u128 = (0..sim.tasks.len() as u32).map(|i| sim.cpu_time(i) as u128).sum();
    let idle: u128 = (0..sim.cpus.len() as u32).map(|c| sim.idle_time(c) as u128).sum();
    let total = sim.cpus.len() as u128 * f.now as u128;
    if busy + idle != total {
        return Err(format!("runtime {busy} + idle {idle} != cpus × elapsed {total}"));
    }
    Ok(())
}
