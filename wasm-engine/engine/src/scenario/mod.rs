//! Scenario files: types (`schema`), units, loading with located errors (`load`), knobs set
//! from outside the file (`knobs`), named variants (`variants`), and the generated JSON
//! Schema (`json_schema`).

pub mod json_schema;
pub mod knobs;
pub mod load;
pub mod locate;
pub mod schema;
pub mod units;
pub mod variants;

pub use json_schema::json_schema_string;
pub use knobs::apply_variant;
pub use load::{parse_scenario, validate, ScenarioError};
pub use schema::*;
