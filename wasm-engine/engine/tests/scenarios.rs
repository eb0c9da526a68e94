//! Scenario goldens: every file under `scenarios/` runs with the invariant checker after
//! every event, and its normalized summary must equal the sibling `*.expected.txt`.
//! Refresh with `UPDATE_EXPECT=1 cargo test -p schedlab-engine --test scenarios`.

#![allow(clippy::disallowed_methods)] // tests read and write fixture files

mod common;

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
        // The log-derived metrics agree with the simulation's own counters.
        for (t, ts) in sim.tasks.iter().zip(&summary.tasks) {
            let id = sim.tasks.iter().position(|x| x.cfg.name == t.cfg.name).expect("task") as u32;
            assert_eq!(ts.cpu_time_ns, sim.cpu_time(id), "{}: {} cpu time", path.display(), t.cfg.name);
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
        for (c, idle) in summary.cpu_idle_ns.iter().enumerate() {
            assert_eq!(*idle, sim.idle_time(c as u32), "{}: cpu {c} idle", path.display());
        }
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
