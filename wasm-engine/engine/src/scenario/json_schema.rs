//! The JSON Schema of scenario files, generated from the `schema` types with schemars.
//!
//! The committed copy lives at `scenarios/schema/scenario.schema.json`; the `schema_drift`
//! test fails when it differs from [`json_schema_string`] (regenerate with
//! `UPDATE_EXPECT=1 cargo test -p schedlab-engine --test schema_drift`).

use super::schema::ScenarioFile;

/// The JSON Schema of [`ScenarioFile`], pretty-printed with a trailing newline.
/// Deterministic: schemars emits object keys in a fixed order.
pub fn json_schema_string() -> String {
    let schema = schemars::schema_for!(ScenarioFile);
    let mut out =
        serde_json::to_string_pretty(&schema).unwrap_or_else(|e| format!("{{\"error\": {:?}}}", e.to_string()));
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn schema_is_deterministic_and_names_types() {
        let a = super::json_schema_string();
        assert_eq!(a, super::json_schema_string());
        assert!(a.ends_with("}\n"));
        assert!(a.contains("\"Duration\""));
        assert!(a.contains("\"sched_yield\""));
    }
}
