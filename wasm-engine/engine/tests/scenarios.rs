//! Scenario goldens: every file under `scenarios/` runs with the invariant checker after
//! every event, and its normalized summary must equal the sibling `*.expected.txt`.
//! Refresh with `UPDATE_EXPECT=1 cargo test -p schedlab-engine --test scenarios`.

#![allow(clippy::disallowed_methods)] // tests read and write fixture files

mod common;

use schedlab_engine::obs::codes::{EventKind, NO_TASK};
use schedlab_engine::obs::summary::Summary;

#[test]
fn every_scenario_matches_its_golden_with_invariants_checked() {
    let update = std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1");
    let files = common::scenario_files();
    assert!(files.len() >= 8, "expected the gallery and linux-6.18 scenarios, found {}", files.len());
    let mut failures = Vec::new();
    for path in files {
        let mut sim = common::load(&path, &[]);
        sim.check_invariants = true;
        sim.run();
        let summary = Summary::of(&sim);
        // The log-derived metrics agree with the simulation's own counters. A task's CPU time
        // in the log runs from switch to switch, as a trace shows it; what it is charged differs
        // by the switch gaps (sim/switch_clock.rs) when the host has them, and only the sum over
        // all tasks is then the same.
        let gaps = sim.cfg.host.wakeup_switch_latency_ns + sim.cfg.host.schedule_clock_lead_ns > 0;
        let charged: u64 = (0..sim.tasks.len() as u32).map(|id| sim.cpu_time(id)).sum();
        let ran: u64 = summary.tasks.iter().map(|t| t.cpu_time_ns).sum();
        // A task that blocks into idle is charged up to the clock read `schedule_clock_lead`
        // before its switch (or its last update, if later: an exit, a tick just before); the
        // rest of that switch is idle's.
        let ev = &sim.fair.log.events;
        let into_idle = (0..ev.t.len())
            .filter(|&i| ev.kind[i] == EventKind::Switch as u8 && ev.task[i] == NO_TASK && ev.arg[i] != NO_TASK)
            .count() as u64;
        let lost =
            ran.checked_sub(charged).unwrap_or_else(|| panic!("{}: charged {charged} > ran {ran}", path.display()));
        assert!(
            lost <= into_idle * sim.cfg.host.schedule_clock_lead_ns,
            "{}: {lost} ns charged to no task",
            path.display()
        );
        for (t, ts) in sim.tasks.iter().zip(&summary.tasks) {
            let id = sim.tasks.iter().position(|x| x.cfg.name == t.cfg.name).expect("task") as u32;
            if !gaps {
                assert_eq!(ts.cpu_time_ns, sim.cpu_time(id), "{}: {} cpu time", path.display(), t.cfg.name);
            }
            assert_eq!(ts.switches_out, t.stats.switches_out, "{}: {} switches", path.display(), t.cfg.name);
            assert_eq!(ts.switches_out_runnable, t.stats.switches_out_runnable, "{}: {}", path.display(), t.cfg.name);
            assert_eq!((ts.yields, ts.wakeups, ts.sleeps), (t.stats.yields, t.stats.wakeups, t.stats.sleeps));
            let mut lat = t.stats.wakeup_latencies.clone();
            lat.sort_unstable();
            assert_eq!(ts.wakeup_latency_ns.max, lat.last().copied().unwrap_or(0));
            assert_eq!(ts.cpu_time_ns_by_cpu.len(), sim.cpus.len(), "{}: {}", path.display(), t.cfg.name);
            assert_eq!(ts.cpu_time_ns_by_cpu.iter().sum::<u64>(), ts.cpu_time_ns, "{}: {}", path.display(), t.cfg.name);
        }
        for (c, over) in summary.idle_while_overloaded_ns.iter().enumerate() {
            assert!(*over <= summary.cpu_idle_ns[c], "{}: cpu {c} idle while overloaded", path.display());
        }
        // Idle time, likewise: the time charged to no task is idle's in the simulation's count.
        for (c, idle) in summary.cpu_idle_ns.iter().enumerate() {
            if !gaps {
                assert_eq!(*idle, sim.idle_time(c as u32), "{}: cpu {c} idle", path.display());
            }
        }
        let idle_sim: u64 = (0..sim.cpus.len() as u32).map(|c| sim.idle_time(c)).sum();
        let idle_log: u64 = summary.cpu_idle_ns.iter().sum();
        assert_eq!(idle_sim.checked_sub(idle_log), Some(lost), "{}: idle time", path.display());
        let got = summary.golden_text();
        let golden = path.with_extension("expected.txt");
        if update {
            std::fs::write(&golden, &got).expect("write golden");
            continue;
        }
        match std::fs::read_to_string(&golden) {
            Ok(want) if want == got => {}
            Ok(want) => {
                failures.push(format!("{}: summary differs\n--- expected\n{want}--- got\n{got}", path.display()))
            }
            Err(_) => failures.push(format!("{}: no golden {}", path.display(), golden.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{}\nrefresh with: UPDATE_EXPECT=1 cargo test -p schedlab-engine --test scenarios",
        failures.join("\n")
    );
}
