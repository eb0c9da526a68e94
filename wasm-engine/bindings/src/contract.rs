//! The engine ⇄ UI contract as TypeScript, generated: every type that crosses the worker
//! boundary (the JSON the handles return, the typed-array column sets, the worker protocol),
//! the codes stored in columns, the engine's constants and its named variants. The web app
//! imports `web/src/engine/contract.gen.ts`, which is this function's output, committed; the
//! drift test (`tests/contract_drift.rs`) fails when they differ. Regenerate with
//! `UPDATE_EXPECT=1 cargo test -p schedlab-wasm --test contract_drift`.
//!
//! Why ts-rs: the shapes are Rust structs that already derive `serde::Serialize`; `ts_rs::TS`
//! derives next to it read the same serde attributes (renames, tags, skipped fields), so the
//! TypeScript follows the JSON the engine really writes, with the Rust doc comments, and no
//! second schema language (JSON Schema plus a generator) or runtime (specta's) sits between.

use crate::columns::{
    CounterCols, EevdfWindowCols, LatencyCols, MarkerCols, ReplayWindowCols, SampleCols, SliceCols, ThreadStateCols,
    COLUMN_SETS,
};
use crate::diff::DiffOutcome;
use crate::protocol::{BalanceAttach, CpuAvgAttach, LoadOutcome, Request, Response, ShadowOutcome};
use schedlab_engine::import::diff::TraceDiff;
use schedlab_engine::import::metrics::{MetricsWindow, StateSegment, WindowMetrics};
use schedlab_engine::import::record::state_bits;
use schedlab_engine::import::thread_states::ThreadState;
use schedlab_engine::import::timeline::{wake_code, LOST, OPEN};
use schedlab_engine::import::WakeKind;
use schedlab_engine::obs::codes::{code_tables, marker_kinds, CodeTable, NO_TASK};
use schedlab_engine::scenario::variants::VARIANTS;
use schedlab_engine::sched::group::GROUP_NODE;
use std::any::TypeId;
use std::collections::{BTreeMap, BTreeSet};
use ts_rs::{Config, TypeVisitor, TS};

/// Where the generated file lives, relative to the repository root.
pub const CONTRACT_PATH: &str = "web/src/engine/contract.gen.ts";

/// Collects the declaration of every type reachable from the roots, by TypeScript name.
struct Collect<'a> {
    cfg: &'a Config,
    seen: BTreeSet<TypeId>,
    decls: BTreeMap<String, String>,
}

impl TypeVisitor for Collect<'_> {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        if !self.seen.insert(TypeId::of::<T>()) {
            return;
        }
        if T::output_path().is_some() {
            let docs = T::docs().unwrap_or_default();
            let decl = format!("{docs}export {}\n", T::decl(self.cfg));
            if let Some(other) = self.decls.insert(T::ident(self.cfg), decl.clone()) {
                assert_eq!(other, decl, "two Rust types are called {} in TypeScript", T::ident(self.cfg));
            }
        }
        T::visit_dependencies(self);
    }
}

fn camel(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn js(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

fn code_table(t: &CodeTable) -> String {
    let entries: Vec<String> = t.entries.iter().map(|(n, v)| format!("  {}: {v},\n", camel(n))).collect();
    let mut out = format!("/** {} */\nexport const {} = {{\n{}}} as const;\n", t.doc, t.name, entries.concat());
    if let Some(names) = t.names {
        assert!(t.entries.iter().enumerate().all(|(i, &(_, v))| v as usize == i), "{}: codes 0..n", t.name);
        let list: Vec<String> = t.entries.iter().map(|(n, _)| js(n)).collect();
        out.push_str(&format!(
            "/** {} names, by code. */\nexport const {names} = [{}] as const;\n",
            t.name,
            list.join(", ")
        ));
    }
    if !t.words.is_empty() {
        let words: Vec<String> = t.words.iter().map(|w| js(w)).collect();
        out.push_str(&format!(
            "/** {} in words, by code. */\nexport const {}Words: readonly string[] = [{}];\n",
            t.name,
            t.name,
            words.join(", ")
        ));
    }
    out
}

/// Names of the SMP placement codes (a `select_rq` marker's `val`: the rule in bits 0-7,
/// wake_affine()'s part in bits 8-15), which lessons name.
fn smp_code_tables() -> Vec<CodeTable> {
    use schedlab_engine::sched::select::{AffinePath, PlacePath};
    vec![
        CodeTable {
            name: "PlacePath",
            names: Some("PLACE_PATH_NAMES"),
            doc: "The rule of `select_task_rq()` that placed a task (bits 0-7 of a select_rq marker's `val`).",
            entries: PlacePath::ALL.iter().map(|p| (p.name(), *p as u32)).collect(),
            words: vec![],
        },
        CodeTable {
            name: "AffinePath",
            names: Some("AFFINE_PATH_NAMES"),
            doc: "wake_affine()'s part in a placement (bits 8-15 of a select_rq marker's `val`).",
            entries: AffinePath::ALL.iter().map(|p| (p.name(), *p as u32)).collect(),
            words: vec![],
        },
    ]
}

/// Codes of the replay view's columns (from the trace importer).
fn import_code_tables() -> Vec<CodeTable> {
    use state_bits as b;
    vec![
        CodeTable {
            name: "PrevStateCode",
            names: None,
            doc: "How a task left its CPU (`ReplayWindowCols.span_state`, `PrevState::code`): R, R+ (TASK_REPORT_MAX), the blocked states' report bits (or-ed), an undecoded letter, and `raw | n` for an undecoded number.",
            entries: vec![
                ("runnable", 0),
                ("preempted", 0x100),
                ("S", b::S as u32),
                ("D", b::D as u32),
                ("T", b::T as u32),
                ("t", b::LOWER_T as u32),
                ("X", b::X as u32),
                ("Z", b::Z as u32),
                ("P", b::P as u32),
                ("I", b::I as u32),
                ("unknown", b::UNKNOWN as u32),
                ("raw", 0x8000_0000),
            ],
            words: vec![],
        },
        CodeTable {
            name: "WakeKind",
            names: None,
            doc: "Which wakeup tracepoint (`ReplayWindowCols.wake_kind`).",
            entries: vec![
                ("sched_waking", wake_code(WakeKind::Waking)),
                ("sched_wakeup", wake_code(WakeKind::Wakeup)),
                ("sched_wakeup_new", wake_code(WakeKind::WakeupNew)),
            ],
            words: vec![],
        },
        CodeTable {
            name: "ThreadStateCode",
            names: Some("THREAD_STATE_NAMES"),
            doc: "A task's state on its thread-state track (`ThreadStateCols.state`, `import::thread_states::ThreadState`).",
            entries: ThreadState::ALL.iter().map(|s| (s.key(), s.code())).collect(),
            words: ThreadState::ALL.iter().map(|s| s.name()).collect(),
        },
        CodeTable {
            name: "EevdfSampleKind",
            names: None,
            doc: "Which line of a bpftrace EEVDF dump (`EevdfWindowCols.kind`).",
            entries: vec![("task", 0), ("group", 1)],
            words: vec![],
        },
    ]
}

/// The whole generated file.
pub fn typescript() -> String {
    let cfg = Config::new().with_large_int("number");
    let mut c = Collect { cfg: &cfg, seen: BTreeSet::new(), decls: BTreeMap::new() };
    c.visit::<Request>();
    c.visit::<Response>();
    c.visit::<LoadOutcome>();
    c.visit::<ShadowOutcome>();
    c.visit::<CpuAvgAttach>();
    c.visit::<BalanceAttach>();
    c.visit::<DiffOutcome>();
    // Every column set, also those only flattened into a message.
    c.visit::<SliceCols>();
    c.visit::<SampleCols>();
    c.visit::<MarkerCols>();
    c.visit::<CounterCols>();
    c.visit::<LatencyCols>();
    c.visit::<ReplayWindowCols>();
    c.visit::<EevdfWindowCols>();
    c.visit::<ThreadStateCols>();
    // The area selection's table, a task's thread states and the A/B diff (engine results the UI
    // will ask for).
    c.visit::<MetricsWindow>();
    c.visit::<WindowMetrics>();
    c.visit::<StateSegment>();
    c.visit::<TraceDiff>();
    let mut out = String::from(
        "// GENERATED by wasm-engine/bindings/src/contract.rs: do not edit. Regenerate with\n\
         // `UPDATE_EXPECT=1 cargo test -p schedlab-wasm --test contract_drift`.\n\
         //\n\
         // The engine ⇄ UI contract: the JSON and typed-array shapes that cross the worker boundary,\n\
         // the worker protocol, the codes stored in columns, the engine's constants and its named\n\
         // variants. Integers cross as JSON numbers (exact below 2^53).\n\n",
    );
    out.push_str(
        "/** The element kind of a typed-array column. */\n\
         export type ColumnKind = 'f64' | 'u32' | 'i32';\n\
         /** A column set's layout: each column's kind (`takeColumns` moves exactly these out of the wasm). */\n\
         export type ColumnLayout<T> = { readonly [K in keyof T]: T[K] extends Float64Array ? 'f64' : T[K] extends Uint32Array ? 'u32' : 'i32' };\n\n",
    );
    for decl in c.decls.values() {
        out.push_str(decl);
        out.push('\n');
    }
    out.push_str("// Column set layouts.\n");
    for l in COLUMN_SETS {
        out.push_str(&l.ts_layout_const());
    }
    out.push_str("\n// Codes stored in columns.\n");
    for t in code_tables().iter().chain(smp_code_tables().iter()).chain(import_code_tables().iter()) {
        out.push_str(&code_table(t));
    }
    let markers: Vec<String> = marker_kinds().iter().map(u32::to_string).collect();
    out.push_str(&format!(
        "/** The event kinds drawn as markers (`MarkerCols.kind`). */\nexport const MARKER_KINDS: readonly number[] = [{}];\n",
        markers.join(", ")
    ));
    out.push_str(&format!(
        "\n/** Group entities are keyed GROUP_NODE | task group in samples, picks and markers. */\n\
         export const GROUP_NODE = 0x{GROUP_NODE:x};\n\
         /** \"No task\" (idle) in task columns. */\n\
         export const NO_TASK = 0x{NO_TASK:x};\n\
         /** `span_state` of a span still on its CPU when the trace ended. */\n\
         export const SPAN_OPEN = 0x{OPEN:x};\n\
         /** `span_state` of a span whose switch-out is missing from the trace. */\n\
         export const SPAN_LOST = 0x{LOST:x};\n"
    ));
    out.push_str(
        "\n/** The fields of each fact shape of a lesson step's `expect` (`lesson::FACT_FIELDS`): the lesson parser accepts exactly these. */\n\
         export const LESSON_FACT_FIELDS = {\n",
    );
    for (k, fields) in schedlab_engine::lesson::FACT_FIELDS {
        let f: Vec<String> = fields.iter().map(|x| js(x)).collect();
        out.push_str(&format!("  {k}: [{}],\n", f.join(", ")));
    }
    out.push_str("} as const;\n");
    out.push_str(
        "\n/** A named kernel variant of the engine (`schedlab variants`): overrides of the Linux 6.18.44 baseline. */\n\
         export type EngineVariant = {\n  key: string;\n  overrides: [string, string][];\n  /** What it does, in one short line. */\n  short: string;\n  /** Where it comes from: a patch, a kernel version, a review-thread suggestion. */\n  source: string;\n  /** The full description. */\n  doc: string;\n};\n\
         /** The engine's named variants, in the engine's order (`scenario::variants::VARIANTS`). */\n\
         export const ENGINE_VARIANTS: readonly EngineVariant[] = [\n",
    );
    for v in VARIANTS {
        let ov: Vec<String> = v.overrides.iter().map(|(k, x)| format!("[{}, {}]", js(k), js(x))).collect();
        out.push_str(&format!(
            "  {{ key: {}, overrides: [{}], short: {}, source: {}, doc: {} }},\n",
            js(v.name),
            ov.join(", "),
            js(v.short),
            js(v.source),
            js(v.doc)
        ));
    }
    out.push_str("];\n");
    out
}
