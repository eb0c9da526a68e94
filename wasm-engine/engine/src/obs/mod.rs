//! Observation: the columnar log every run writes, and what is computed from it
//! (per-task metrics and golden summaries, the SMP metrics, window queries, explanations).

pub mod codes;
pub mod column;
pub mod cursor;
pub mod explain;
pub mod log;
pub mod meta;
pub mod perfetto;
pub mod query;
pub mod smp;
pub mod summary;
pub mod why;
pub mod why_cpu;
