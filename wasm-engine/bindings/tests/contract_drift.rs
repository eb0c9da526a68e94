//! The committed TypeScript contract (`web/src/engine/contract.gen.ts`) must be what
//! `schedlab_wasm::contract::typescript()` generates from the Rust types, formatted by dprint
//! (the formatter ts-rs itself uses). Regenerate with
//! `UPDATE_EXPECT=1 cargo test -p schedlab-wasm --test contract_drift`.

use dprint_plugin_typescript::configuration::{ConfigurationBuilder, QuoteStyle};
use dprint_plugin_typescript::{format_text, FormatTextOptions};
use std::path::{Path, PathBuf};

/// The generated contract, formatted.
fn generated() -> String {
    let raw = schedlab_wasm::contract::typescript();
    let cfg = ConfigurationBuilder::new().line_width(120).quote_style(QuoteStyle::PreferSingle).build();
    let options = FormatTextOptions {
        path: Path::new("contract.gen.ts"),
        extension: None,
        text: raw.clone(),
        config: &cfg,
        external_formatter: None,
    };
    format_text(options).expect("the generated contract parses as TypeScript").unwrap_or(raw)
}

fn contract_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(schedlab_wasm::contract::CONTRACT_PATH)
}

#[test]
fn committed_contract_matches_generated() {
    let generated = generated();
    let path = contract_path();
    if std::env::var("UPDATE_EXPECT").as_deref() == Ok("1") {
        std::fs::write(&path, &generated).expect("write contract.gen.ts");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; run `UPDATE_EXPECT=1 cargo test -p schedlab-wasm --test contract_drift` and commit the result",
            path.display()
        )
    });
    if committed != generated {
        let first_diff = committed.lines().zip(generated.lines()).position(|(a, b)| a != b).map_or_else(
            || "at the end (one file is a prefix of the other)".to_string(),
            |i| format!("at line {}", i + 1),
        );
        panic!(
            "{} is out of date (first difference {first_diff}); run `UPDATE_EXPECT=1 cargo test -p schedlab-wasm --test contract_drift` and commit the result",
            path.display()
        );
    }
}

#[test]
fn the_contract_declares_every_shape_once() {
    let ts = schedlab_wasm::contract::typescript();
    for name in [
        "Request",
        "Response",
        "ScenarioMeta",
        "Summary",
        "CursorState",
        "Pick",
        "ImportReport",
        "ImportSummary",
        "ReplayReport",
        "SliceCols",
        "ReplayWindowCols",
        "LocatedError",
    ] {
        let decl = format!("export type {name} = ");
        assert_eq!(ts.matches(&decl).count(), 1, "{name} declared once");
    }
    // Enums cross as their stable names, never Rust Debug strings.
    assert!(ts.contains(r#"export type PickReason = "only_entity" | "buddy""#), "PickReason as names");
    // Every column set has its type and its layout.
    for l in schedlab_wasm::columns::COLUMN_SETS {
        assert_eq!(ts.matches(&format!("export type {} = ", l.name)).count(), 1, "{}", l.name);
        assert!(ts.contains(&format!("ColumnLayout<{}>", l.name)), "{}", l.name);
    }
    assert!(ts.contains("export const EventKind = {"));
    assert!(!ts.contains("OnlyEntity"));
}
