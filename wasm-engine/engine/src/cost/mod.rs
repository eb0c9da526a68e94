//! Cost models: time the scheduler's own work takes, where it matters to a study.

pub mod cputimer;
