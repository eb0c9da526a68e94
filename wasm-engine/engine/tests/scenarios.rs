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
        let got = Summary::of(&sim).golden_text();
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
