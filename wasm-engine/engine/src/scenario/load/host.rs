//! The `[host]` table's checks: CPUs and topology, CONFIG_HZ, slices and timer slack, the
//! switch gaps, the tick's knobs, and the CPUs' starting PELT averages.

use super::{Checker, HZ_VALUES, MAX_CPUS, MAX_SWITCH_GAP_NS, MAX_TIMER_SLACK_NS};
use crate::scenario::locate::KeyPath;
use crate::scenario::schema::{CfsRqAvgSpec, ScenarioFile};
use crate::scenario::units::format_duration;

/// Checks `[host]`.
pub(super) fn check_host(c: &mut Checker, root: &KeyPath, s: &ScenarioFile) {
    let host = root.key("host");
    let h = &s.host;
    if h.cpus == 0 || h.cpus > MAX_CPUS {
        c.push(host.key("cpus"), format!("expected a CPU count in 1..={MAX_CPUS}, got {}", h.cpus));
    }
    if let Some(t) = h.topology {
        let tp = host.key("topology");
        for (k, v) in
            [("sockets", t.sockets), ("cores_per_socket", t.cores_per_socket), ("threads_per_core", t.threads_per_core)]
        {
            if v == 0 {
                c.push(tp.key(k), format!("expected {k} of at least 1, got 0"));
            }
        }
        let n = h.ncpus();
        if n > MAX_CPUS {
            c.push(tp.clone(), format!("the topology has {n} CPUs, more than {MAX_CPUS}"));
        } else if h.cpus != 1 && h.cpus != n {
            c.push(
                host.key("cpus"),
                format!("cpus = {} but the topology has {n} CPUs (leave cpus out or make them agree)", h.cpus),
            );
        }
    }
    if !HZ_VALUES.contains(&h.hz) {
        c.push(host.key("hz"), format!("expected CONFIG_HZ to be one of 100, 250, 300, 1000, got {}", h.hz));
    }
    if let Some(b) = h.base_slice {
        c.slice_range(host.key("base_slice"), b, "base_slice");
    }
    if let Some(t) = h.timer_slack {
        if t.ns() > MAX_TIMER_SLACK_NS {
            c.push(
                host.key("timer_slack"),
                format!("timer_slack {} is too large: expected a duration of at most 1s", format_duration(t.ns())),
            );
        }
    }

    for (key, d) in [("wakeup_switch_latency", h.wakeup_switch_latency), ("schedule_clock_lead", h.schedule_clock_lead)]
    {
        if d.is_some_and(|d| d.ns() > MAX_SWITCH_GAP_NS) {
            c.push(host.key(key), format!("{key} is too large: expected a duration of at most 1ms"));
        }
    }

    if h.tick_ahead.is_some_and(|p| !(0.0..=100.0).contains(&p)) {
        c.push(host.key("tick_ahead"), "expected tick_ahead to be a percentage from 0 to 100".to_string());
    }
    if let Some(t) = h.timekeeper.filter(|&t| t >= h.ncpus()) {
        c.push(host.key("timekeeper"), format!("timekeeper = {t} but the host has {} CPUs", h.ncpus()));
    }
    if let Some(phase) = h.tick_phase.filter(|d| h.hz > 0 && d.ns() >= 1_000_000_000 / u64::from(h.hz)) {
        let period = 1_000_000_000 / u64::from(h.hz);
        c.push(
            host.key("tick_phase"),
            format!(
                "tick_phase = {} ns: expected less than one tick period ({period} ns at hz = {})",
                phase.ns(),
                h.hz
            ),
        );
    }
    check_cfs_rq_avg(c, &host.key("cfs_rq_avg"), &h.cfs_rq_avg, h.ncpus());
    let gp = host.key("cpu_switch_gaps");
    for (i, g) in h.cpu_switch_gaps.iter().enumerate() {
        let at = gp.index(i);
        if g.cpu >= h.ncpus() {
            c.push(at.key("cpu"), format!("cpu names CPU {} but the host has {} CPUs", g.cpu, h.ncpus()));
        } else if let Some(j) = h.cpu_switch_gaps[..i].iter().position(|o| o.cpu == g.cpu) {
            c.push(at.key("cpu"), format!("CPU {} is already given by cpu_switch_gaps[{j}]", g.cpu));
        }
        for (key, d) in
            [("wakeup_switch_latency", g.wakeup_switch_latency), ("schedule_clock_lead", g.schedule_clock_lead)]
        {
            if d.is_some_and(|d| d.ns() > MAX_SWITCH_GAP_NS) {
                c.push(at.key(key), format!("{key} is too large: expected a duration of at most 1ms"));
            }
        }
    }
}

/// The largest `load_avg` and `runnable_avg` a CPU's starting averages may give (1024 tasks
/// of nice 0 runnable all the time).
pub const MAX_CFS_RQ_AVG: u64 = 1 << 20;

/// Checks `host.cfs_rq_avg`: each CPU of the host at most once, and averages a cfs_rq can hold.
pub(super) fn check_cfs_rq_avg(c: &mut Checker, at: &KeyPath, avgs: &[CfsRqAvgSpec], cpus: u32) {
    for (i, a) in avgs.iter().enumerate() {
        let ap = at.index(i);
        if a.cpu >= cpus {
            c.push(ap.key("cpu"), format!("cpu names CPU {} but the host has {cpus} CPUs", a.cpu));
        } else if let Some(j) = avgs[..i].iter().position(|o| o.cpu == a.cpu) {
            c.push(ap.key("cpu"), format!("CPU {} is already given by cfs_rq_avg[{j}]", a.cpu));
        }
        for (key, v) in [("load_avg", a.load_avg), ("runnable_avg", a.runnable_avg)] {
            if v > MAX_CFS_RQ_AVG {
                c.push(ap.key(key), format!("{key} {v} is above {MAX_CFS_RQ_AVG}"));
            }
        }
        if a.util_avg > 1024 {
            c.push(ap.key("util_avg"), format!("util_avg {} is above SCHED_CAPACITY_SCALE (1024)", a.util_avg));
        }
    }
}
