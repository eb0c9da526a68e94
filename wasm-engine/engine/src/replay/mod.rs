//! Replay of imported traces (issue 7): the observed schedule and inferred behaviour
//! (`observe`), the shadow scenario (`shadow`), and the comparison of its simulation with the
//! trace (`compare`), and the per-decision replay along the real schedule (`decisions`). Depends on `import` (records), `scenario`, `sim` and `obs`.

pub mod compare;
pub mod decisions;
pub mod layout;
pub mod observe;
pub mod shadow;
pub mod spread;
