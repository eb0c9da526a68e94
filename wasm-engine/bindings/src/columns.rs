//! Typed-array column sets: the shapes of every windowed query result. Each set is declared
//! once with [`column_set!`], which gives
//! * the Rust struct the bindings fill (`Vec<f64>`, `Vec<u32>`, `Vec<i32>` per column),
//! * `into_columns()`: a [`Columns`] bag whose columns JavaScript moves out one at a time
//!   (no copy on the Rust side, one copy into a typed array by wasm-bindgen),
//! * its TypeScript type (`ts_rs::TS`: `Float64Array`, `Uint32Array`, `Int32Array` fields)
//!   and its layout constant (`COLUMN_SETS`), both written into the generated contract
//!   (`contract.rs`), from which the worker's `takeColumns` takes exactly these columns.

use std::collections::BTreeMap;
use wasm_bindgen::prelude::*;

/// One column moved out of a [`Columns`] bag.
pub enum Col {
    F64(Vec<f64>),
    U32(Vec<u32>),
    I32(Vec<i32>),
}

impl From<Vec<f64>> for Col {
    fn from(v: Vec<f64>) -> Self {
        Col::F64(v)
    }
}
impl From<Vec<u32>> for Col {
    fn from(v: Vec<u32>) -> Self {
        Col::U32(v)
    }
}
impl From<Vec<i32>> for Col {
    fn from(v: Vec<i32>) -> Self {
        Col::I32(v)
    }
}

/// A bag of named typed-array columns handed to JavaScript one column at a time.
#[wasm_bindgen]
#[derive(Default)]
pub struct Columns {
    cols: BTreeMap<&'static str, Col>,
}

impl Columns {
    /// Adds (or replaces) a column.
    pub fn put(&mut self, name: &'static str, col: Col) {
        self.cols.insert(name, col);
    }
}

#[wasm_bindgen]
impl Columns {
    /// Moves a f64 column out (empty if there is none of that name and type).
    pub fn take_f64(&mut self, name: &str) -> Vec<f64> {
        match self.cols.remove(name) {
            Some(Col::F64(v)) => v,
            _ => Vec::new(),
        }
    }

    /// Moves a u32 column out (empty if there is none of that name and type).
    pub fn take_u32(&mut self, name: &str) -> Vec<u32> {
        match self.cols.remove(name) {
            Some(Col::U32(v)) => v,
            _ => Vec::new(),
        }
    }

    /// Moves an i32 column out (empty if there is none of that name and type).
    pub fn take_i32(&mut self, name: &str) -> Vec<i32> {
        match self.cols.remove(name) {
            Some(Col::I32(v)) => v,
            _ => Vec::new(),
        }
    }
}

/// The element type of a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColKind {
    F64,
    U32,
    I32,
}

impl ColKind {
    /// The layout constant's name for it.
    pub fn key(self) -> &'static str {
        match self {
            ColKind::F64 => "f64",
            ColKind::U32 => "u32",
            ColKind::I32 => "i32",
        }
    }

    /// The JavaScript typed array it becomes.
    pub fn typed_array(self) -> &'static str {
        match self {
            ColKind::F64 => "Float64Array",
            ColKind::U32 => "Uint32Array",
            ColKind::I32 => "Int32Array",
        }
    }
}

/// A column set's name, docs and columns (name, kind, doc), for the generated TypeScript.
#[derive(Debug, Clone, Copy)]
pub struct ColumnLayout {
    pub name: &'static str,
    pub doc: &'static str,
    pub columns: &'static [(&'static str, ColKind, &'static str)],
}

impl ColumnLayout {
    /// The TypeScript object type: `{ name: Float64Array, ... }`.
    pub fn ts_inline(&self) -> String {
        let fields: Vec<String> = self
            .columns
            .iter()
            .map(|(n, k, doc)| {
                let doc = doc.trim();
                let doc = if doc.is_empty() { String::new() } else { format!("/** {doc} */ ") };
                format!("{doc}{n}: {}, ", k.typed_array())
            })
            .collect();
        format!("{{ {}}}", fields.concat())
    }

    /// The layout constant, typed so `takeColumns` returns the declared set.
    pub fn ts_layout_const(&self) -> String {
        let cols: Vec<String> = self.columns.iter().map(|(n, k, _)| format!("{n}: '{}'", k.key())).collect();
        format!(
            "export const {}_LAYOUT: ColumnLayout<{}> = {{ {} }};\n",
            screaming(self.name),
            self.name,
            cols.join(", ")
        )
    }
}

/// `SliceCols` → `SLICE_COLS`.
fn screaming(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_uppercase());
    }
    out
}

macro_rules! column_type {
    (F64) => { Vec<f64> };
    (U32) => { Vec<u32> };
    (I32) => { Vec<i32> };
}

/// Declares a column set (see the module docs).
macro_rules! column_set {
    ($(#[doc = $doc:expr])* $name:ident { $($(#[doc = $fdoc:expr])* $field:ident : $kind:ident),* $(,)? }) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Default, PartialEq)]
        pub struct $name {
            $($(#[doc = $fdoc])* pub $field: column_type!($kind),)*
        }

        impl $name {
            /// Name, docs and columns, for the generated TypeScript.
            pub const LAYOUT: ColumnLayout = ColumnLayout {
                name: stringify!($name),
                doc: concat!($($doc),*),
                columns: &[$((stringify!($field), ColKind::$kind, concat!($($fdoc),*))),*],
            };

            /// Into a bag JavaScript takes the columns from.
            pub fn into_columns(self) -> Columns {
                let mut c = Columns::default();
                $(c.put(stringify!($field), Col::from(self.$field));)*
                c
            }
        }

        impl ts_rs::TS for $name {
            type WithoutGenerics = Self;
            type OptionInnerType = Self;
            fn docs() -> Option<String> {
                let d = $name::LAYOUT.doc.trim();
                (!d.is_empty()).then(|| format!("/** {d} */\n"))
            }
            fn name(_: &ts_rs::Config) -> String {
                stringify!($name).to_string()
            }
            fn inline(_: &ts_rs::Config) -> String {
                $name::LAYOUT.ts_inline()
            }
            fn inline_flattened(_: &ts_rs::Config) -> String {
                $name::LAYOUT.ts_inline()
            }
            fn decl(_: &ts_rs::Config) -> String {
                format!("type {} = {};", stringify!($name), $name::LAYOUT.ts_inline())
            }
            fn decl_concrete(cfg: &ts_rs::Config) -> String {
                <Self as ts_rs::TS>::decl(cfg)
            }
            fn output_path() -> Option<std::path::PathBuf> {
                Some(std::path::PathBuf::from(concat!(stringify!($name), ".ts")))
            }
        }
    };
}

column_set! {
    /// CPU run slices of a window; a slice with `count` > 1 merges several runs shorter than the
    /// query's bucket (named after the task that ran longest in it).
    SliceCols {
        /// CPU.
        cpu: U32,
        /// Task id.
        task: U32,
        /// Start (ns).
        start: F64,
        /// End (ns).
        end: F64,
        /// Runs merged into the slice.
        count: U32,
    }
}

column_set! {
    /// Entity samples of a window (virtual times are signed ns), each node's last sample before
    /// the window first.
    SampleCols {
        /// Time (ns).
        t: F64,
        /// Task id, or GROUP_NODE | task group.
        task: U32,
        /// CPU of the entity's queue.
        cpu: U32,
        vruntime: F64,
        deadline: F64,
        /// vlag as last saved.
        vlag: F64,
        vprot: F64,
        /// V (avg_vruntime) of the entity's queue.
        avg: F64,
        /// `Flag` bits.
        flags: U32,
    }
}

column_set! {
    /// Marker events of a window (`EventKind::is_marker`); none when the window is too dense.
    MarkerCols {
        /// Time (ns).
        t: F64,
        /// `EventKind` code.
        kind: U32,
        cpu: U32,
        /// Task (the next task of a switch; NO_TASK for idle).
        task: U32,
        /// Second task (the prev task of a switch), lock or IPI key.
        arg: U32,
        /// Kind-specific value (`SwitchReason` of a switch, sleep length, placement lag, yield_to reason).
        val: F64,
    }
}

column_set! {
    /// Counters of a window (`CounterKind`: CFS bandwidth, per-CPU PELT load/util and
    /// nr_running), each series' last value before the window first (timed at the window's start).
    CounterCols {
        /// Time (ns).
        t: F64,
        /// `CounterKind` code.
        kind: U32,
        /// cfs_rq id (runtime_remaining), task group id (pool) or CPU (cpu_load, cpu_util, cpu_nr_running).
        key: U32,
        /// Value (ns for the bandwidth counters).
        value: F64,
    }
}

column_set! {
    /// Migrations of a window (`obs::query::migrations`: Migrate rows; none when the window
    /// holds more than the limit).
    MigrationCols {
        /// Time (ns).
        t: F64,
        /// Task id.
        task: U32,
        /// The CPU it left.
        from: U32,
        /// The CPU it moved to.
        to: U32,
        /// `MigrateClass` code.
        class: U32,
    }
}

column_set! {
    /// Every wakeup latency of a run, in log order.
    LatencyCols {
        /// Task id.
        task: U32,
        /// From the wakeup to the task's next switch-in (ns).
        ns: F64,
    }
}

column_set! {
    /// The replay view of a window of an imported trace (times in ns after the origin). Spans
    /// merged below the bucket (`span_count` > 1); wakeups with the wakee's next switch-in
    /// (`wake_run_t` −1 when none) and migrations, unless the window holds more than the limit:
    /// `omitted` = [wakeups, migrations] left out. Each CPU's runqueue depth as segments
    /// `[depth_start, depth_end)` (`import::depth`), merged below the bucket keeping the largest
    /// depth (`depth_count` > 1).
    ReplayWindowCols {
        span_cpu: U32,
        span_task: U32,
        span_start: F64,
        span_end: F64,
        /// prev_state code the span ended with (`PrevStateCode`), or SPAN_OPEN / SPAN_LOST.
        span_state: U32,
        span_count: U32,
        span_index: U32,
        wake_t: F64,
        wake_cpu: U32,
        wake_waker: U32,
        wake_wakee: U32,
        wake_target: I32,
        /// `WakeKind` code.
        wake_kind: U32,
        wake_run_t: F64,
        wake_run_cpu: U32,
        mig_t: F64,
        mig_cpu: U32,
        mig_task: U32,
        mig_orig: I32,
        mig_dest: I32,
        depth_cpu: U32,
        depth_start: F64,
        depth_end: F64,
        depth_n: U32,
        depth_count: U32,
        omitted: U32,
    }
}

column_set! {
    /// EEVDF samples of a window of a bpftrace dump: v and d are vruntime and deadline minus the
    /// cfs_rq's zero_vruntime (signed ns); `omitted` = [samples left out] when the window holds
    /// more than the limit.
    EevdfWindowCols {
        t: F64,
        pid: I32,
        cpu: U32,
        /// `EevdfSampleKind` code: 0 a task's `S` line, 1 its parent group's `G` line.
        kind: U32,
        v: F64,
        d: F64,
        /// The vlag/vprot union of a task line (0 for a group line).
        lag: F64,
        slice: F64,
        weight: F64,
        /// The task's prev_state code (−1 for a group line).
        state: I32,
        /// The cfs_rq's nr_queued.
        nr: U32,
        omitted: U32,
    }
}

column_set! {
    /// Thread-state segments of the requested tasks in a window (times in ns after the origin),
    /// merged below the bucket (`count` > 1; the longest state names the merged segment):
    /// `import::thread_states`.
    ThreadStateCols {
        /// Index of the task in the request.
        row: U32,
        start: F64,
        end: F64,
        /// `ThreadStateCode`.
        state: U32,
        /// The CPU of a Running segment, else u32::MAX.
        cpu: U32,
        count: U32,
    }
}

/// Every column set, for the generated contract.
pub const COLUMN_SETS: [ColumnLayout; 9] = [
    SliceCols::LAYOUT,
    SampleCols::LAYOUT,
    MarkerCols::LAYOUT,
    CounterCols::LAYOUT,
    MigrationCols::LAYOUT,
    LatencyCols::LAYOUT,
    ReplayWindowCols::LAYOUT,
    EevdfWindowCols::LAYOUT,
    ThreadStateCols::LAYOUT,
];
