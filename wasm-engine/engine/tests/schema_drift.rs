//! The committed JSON Schema (`scenarios/schema/scenario.schema.json`) must match the one
//! generated from the scenario types. Regenerate with
//! `UPDATE_EXPECT=1 cargo test -p schedlab-engine --test schema_drift`.

#![allow(clippy::disallowed_methods)] // tests read and write fixture files

use std::path::PathBuf;

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/schema/scenario.schema.json")
}

#[test]
fn committed_schema_matches_generated() {
    let generated = schedlab_engine::scenario::json_schema_string();
    let path = schema_path();
    if std::env::var("UPDATE_EXPECT").as_deref() == Ok("1") {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create scenarios/schema");
        }
        std::fs::write(&path, &generated).expect("write scenario.schema.json");
        return;
    }
    let Ok(committed) = std::fs::read_to_string(&path) else {
        panic!(
            "{} is missing; run `UPDATE_EXPECT=1 cargo test -p schedlab-engine --test schema_drift` and commit the result",
            path.display()
        );
    };
    if committed != generated {
        let first_diff = committed.lines().zip(generated.lines()).position(|(a, b)| a != b).map_or_else(
            || "at the end (one file is a prefix of the other)".to_string(),
            |i| format!("at line {}", i + 1),
        );
        panic!(
            "{} is out of date (first difference {first_diff}); run `UPDATE_EXPECT=1 cargo test -p schedlab-engine --test schema_drift` and commit the result",
            path.display()
        );
    }
}

#[test]
fn generated_schema_is_valid_json_and_deterministic() {
    let a = schedlab_engine::scenario::json_schema_string();
    assert_eq!(a, schedlab_engine::scenario::json_schema_string());
    let v: serde_json::Value = serde_json::from_str(&a).expect("schema is JSON");
    assert_eq!(v["title"], "ScenarioFile");
    assert!(v["required"].as_array().is_some_and(|r| r.iter().any(|x| x == "tasks")));
}
