//! The replay of an imported trace (`replay/`: `observe.rs`, the shadow generator `shadow.rs`,
//! `decisions/`, `compare.rs`), driven by tracefs text (any text grammar the importer detects):
//! every input that imports with a `sched_switch` record replays (issue 16). The properties are
//! `schedlab_fuzz::check_replay`'s: the shadow scenario is made, loads as the TOML
//! `schedlab replay --emit-scenario` prints, is replayed along the trace's picks and runs its first
//! milliseconds with the scheduler invariant checker on; the only refusal allowed is a true
//! "no fair-class task", named at the trace.
//! Seeds: slices of the repository's captures (`traces/linux-6.18`, `traces/linux-6.18-smp`,
//! `traces/capture-example`) and crafted zero-length, out-of-order and odd-CPU corners
//! (`seeds.py`).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    schedlab_fuzz::check_replay(data);
});
