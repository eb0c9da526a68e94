//! Scenario files: types (`schema`), units, loading with located errors (`load`), and the
//! generated JSON Schema (`json_schema`).

pub mod json_schema;
pub mod load;
pub mod locate;
pub mod schema;
pub mod units;
pub mod variants;

pub use json_schema::json_schema_string;
pub use load::{apply_variant, parse_scenario, validate, ScenarioError};
pub use schema::*;
