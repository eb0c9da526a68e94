//! Validating lessons against their scenario: each step's times, text, variants and knobs, and
//! every name its `expect` facts give (tasks, levels, pick reasons, buddy sources, migration
//! classes, placement rules). Checking the facts against runs is `facts.rs`.

use super::{lesson_time, Expect, Step, COUNTABLE};
use crate::obs::codes::MigrateClass;
use crate::obs::log::{BuddySource, PickReason};
use crate::scenario::variants::VARIANTS;
use crate::sched::group::GROUP_NODE;
use crate::sched::select::{AffinePath, PlacePath};
use crate::sim::Simulation;

/// A variant as loaded: its key and its `NAME=VALUE` overrides.
pub type VariantSpec = (String, Vec<(String, String)>);

/// Applies `NAME=VALUE` overrides to a copy of a scenario and validates it.
pub type ApplyOverrides<'a> = &'a dyn Fn(&[(String, String)]) -> Result<(), String>;

/// The variants a step loads, in order: its named variants (baseline if none).
pub fn step_variants(step: &Step) -> Result<Vec<VariantSpec>, String> {
    let keys: Vec<&str> =
        if step.variants.is_empty() { vec!["baseline"] } else { step.variants.iter().map(|s| s.as_str()).collect() };
    keys.iter()
        .map(|k| {
            VARIANTS
                .iter()
                .find(|v| v.name == *k)
                .map(|v| (k.to_string(), v.overrides.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()))
                .ok_or_else(|| format!("unknown variant {k:?} (see `schedlab variants`)"))
        })
        .collect()
}

/// The variant a step's knob adds with `value`: keyed `KNOB=VALUE`, the step's first
/// variant's overrides plus the knob (the web app builds the same).
pub fn try_variant(step: &Step, value: &str) -> Result<Option<VariantSpec>, String> {
    let Some(t) = &step.try_knob else { return Ok(None) };
    let mut overrides = step_variants(step)?.remove(0).1;
    overrides.retain(|(k, _)| k != &t.knob);
    overrides.push((t.knob.clone(), value.to_string()));
    Ok(Some((format!("{}={}", t.knob, value), overrides)))
}

/// Names of a scenario's entities: tasks by name, task groups by cgroup path.
pub struct Names {
    /// Task names by task id.
    pub tasks: Vec<String>,
    /// cgroup paths by task group id ("/" for the root).
    pub groups: Vec<String>,
}

impl Names {
    /// The names of a simulation's tasks and groups.
    pub fn of(sim: &Simulation) -> Names {
        Names {
            tasks: sim.tasks.iter().map(|t| t.cfg.name.clone()).collect(),
            groups: sim.fair.tgs.iter().map(|g| g.path.clone()).collect(),
        }
    }

    /// A log node's lesson name: a task's name or a group entity's cgroup path.
    pub fn node(&self, node: u32) -> String {
        if node & GROUP_NODE != 0 {
            self.groups.get((node & !GROUP_NODE) as usize).cloned().unwrap_or_else(|| "?".into())
        } else {
            self.tasks.get(node as usize).cloned().unwrap_or_else(|| "<idle>".into())
        }
    }

    /// The log node of a lesson name (not the root group, which has no entity).
    pub fn lookup(&self, name: &str) -> Option<u32> {
        if name.starts_with('/') {
            self.groups.iter().position(|g| g == name).filter(|&g| g != 0).map(|g| GROUP_NODE | g as u32)
        } else {
            self.tasks.iter().position(|t| t == name).map(|t| t as u32)
        }
    }
}

/// Checks one step (number `index`, from 0) of lesson `id` against its scenario: names
/// exist, times lie inside the run, variants and knobs are known (`apply` applies overrides
/// to a copy of the scenario and validates it). Returns every problem, each naming the step.
pub fn validate_step(
    id: &str,
    index: usize,
    st: &Step,
    names: &Names,
    duration: u64,
    ncpus: u32,
    apply: ApplyOverrides,
) -> Vec<String> {
    let mut errs = Vec::new();
    {
        let i = index;
        let lesson_id = id;
        let mut err = |m: String| errs.push(format!("{lesson_id} step {} ({}): {m}", i + 1, st.title));
        if st.text.is_empty() || st.text.iter().any(|p| p.trim().is_empty()) {
            err("text must be one or more non-empty paragraphs".into());
        }
        for h in &st.highlight {
            if names.lookup(h).is_none() {
                err(format!("highlight {h:?} is no task or cgroup of the scenario"));
            }
        }
        let range = match (lesson_time(&st.range[0]), lesson_time(&st.range[1])) {
            (Ok(a), Ok(b)) => Some((a, b)),
            (a, b) => {
                for e in [a.err(), b.err()].into_iter().flatten() {
                    err(format!("range: {e}"));
                }
                None
            }
        };
        if let Some((a, b)) = range {
            if a >= b || b > duration {
                err(format!(
                    "range [{}, {}] must be increasing and end by the scenario's end ({duration} ns)",
                    st.range[0], st.range[1]
                ));
            }
        }
        match lesson_time(&st.at) {
            Ok(at) if range.is_some_and(|(a, b)| at < a || at > b) => {
                err(format!("cursor {} lies outside the range", st.at))
            }
            Ok(_) => {}
            Err(e) => err(format!("at: {e}")),
        }
        if st.cpu >= ncpus {
            err(format!("cpu {} does not exist (the scenario has {ncpus})", st.cpu));
        }
        let variants = match step_variants(st) {
            Ok(v) => v,
            Err(e) => {
                err(e);
                return errs;
            }
        };
        let budget = if st.try_knob.is_some() { 3 } else { 4 };
        if variants.len() > budget {
            err(format!("at most {budget} variants (4 with the knob's)"));
        }
        let mut keys: Vec<String> = variants.iter().map(|v| v.0.clone()).collect();
        if let Some(t) = &st.try_knob {
            if t.values.is_empty() {
                err("try: give at least one value".into());
            }
            for v in &t.values {
                match try_variant(st, v) {
                    Ok(Some((_, o))) => {
                        if let Err(e) = apply(&o) {
                            err(format!("try {}={v}: {e}", t.knob));
                        }
                    }
                    Ok(None) => {}
                    Err(e) => err(e),
                }
            }
            if let Some(v) = t.values.first() {
                keys.push(format!("{}={v}", t.knob));
            }
        }
        let mut check_expect = |e: &Expect, what: &str| {
            for m in expect_names(e) {
                if names.lookup(&m).is_none() {
                    err(format!("{what}: {m:?} is no task or cgroup of the scenario"));
                }
            }
            if let Some(l) = &e.level {
                if !names.groups.contains(l) {
                    err(format!("{what}: level {l:?} is no cgroup of the scenario"));
                }
            }
            if let Some(r) = &e.reason {
                if !(0..6).filter_map(PickReason::from_u8).any(|x| x.name() == r) {
                    err(format!("{what}: unknown pick reason {r:?}"));
                }
            }
            if let Some(b) = &e.buddy {
                if !(0..5).filter_map(BuddySource::from_u8).any(|x| x.name() == b) {
                    err(format!("{what}: unknown buddy source {b:?}"));
                }
            }
            if let Some(at) = &e.at {
                if let Err(x) = lesson_time(at) {
                    err(format!("{what}: at: {x}"));
                }
            }
            let variant_ok = |v: &Option<String>| v.as_deref().is_none_or(|v| keys.iter().any(|k| k == v));
            if !variant_ok(&e.variant)
                || e.metrics.iter().any(|m| !variant_ok(&m.variant))
                || e.counts.iter().any(|c| !variant_ok(&c.variant))
                || e.on_cpu.iter().any(|c| !variant_ok(&c.variant))
                || e.cpu_time.iter().any(|c| !variant_ok(&c.variant))
                || e.migrations.iter().any(|c| !variant_ok(&c.variant))
                || e.placements.iter().any(|c| !variant_ok(&c.variant))
            {
                err(format!("{what}: a variant is not among the step's ({})", keys.join(", ")));
            }
            for n in e.delayed.iter().chain(&e.sleeping) {
                if n.starts_with('/') {
                    err(format!("{what}: delayed/sleeping name tasks, not cgroups ({n:?})"));
                }
            }
            // A count's range lies inside the step's range, which the view (and so the web
            // app's fetched window of markers) covers.
            let check_range = |r: &Option<[String; 2]>, err: &mut dyn FnMut(String)| {
                if let Some([a, b]) = r {
                    match (lesson_time(a), lesson_time(b), range) {
                        (Ok(a), Ok(b), Some((r0, r1))) if a < b && r0 <= a && b <= r1 => {}
                        _ => err(format!(
                            "{what}: count range [{a}, {b}] must be two increasing times within the step's range"
                        )),
                    }
                }
            };
            for r in e.migrations.iter().map(|m| &m.range).chain(e.placements.iter().map(|p| &p.range)) {
                check_range(r, &mut err);
            }
            for x in e.on_cpu.iter().filter_map(|c| c.at.as_deref()) {
                if let Err(m) = lesson_time(x) {
                    err(format!("{what}: on_cpu at: {m}"));
                }
            }
            for n in e.on_cpu.iter().map(|c| &c.task).chain(e.cpu_time.iter().map(|c| &c.task)) {
                if n.starts_with('/') {
                    err(format!("{what}: on_cpu/cpu_time name tasks, not cgroups ({n:?})"));
                }
            }
            let cpus = e.on_cpu.iter().map(|c| Some(c.cpu)).chain(e.cpu_time.iter().map(|c| c.cpu));
            for c in cpus.chain(e.placements.iter().map(|p| p.cpu)).flatten() {
                if c >= ncpus {
                    err(format!("{what}: cpu {c} does not exist (the scenario has {ncpus})"));
                }
            }
            for c in &e.cpu_time {
                if c.min_pct > c.max_pct {
                    err(format!("{what}: cpu_time of {}: min_pct is above max_pct", c.task));
                }
            }
            for m in &e.migrations {
                let all = MigrateClass::ALL.map(|x| x.name());
                if let Some(msg) = unknown_name("migration class", m.class.as_deref(), &all) {
                    err(format!("{what}: {msg}"));
                }
            }
            for p in &e.placements {
                let rules = PlacePath::ALL.map(|x| x.name());
                if let Some(msg) = unknown_name("placement rule", p.rule.as_deref(), &rules) {
                    err(format!("{what}: {msg}"));
                }
                let parts = AffinePath::ALL.map(|x| x.name());
                if let Some(msg) = unknown_name("wake_affine part", p.affine.as_deref(), &parts) {
                    err(format!("{what}: {msg}"));
                }
            }
            for c in &e.counts {
                check_range(&c.range, &mut err);
                if !COUNTABLE.contains(&c.kind.as_str()) {
                    err(format!("{what}: {:?} is not a countable event kind ({})", c.kind, COUNTABLE.join(", ")));
                }
            }
            if is_empty(e) {
                err(format!("{what}: states no fact"));
            }
        };
        check_expect(&st.expect, "expect");
        if let Some(e) = st.try_knob.as_ref().and_then(|t| t.expect.as_ref()) {
            check_expect(e, "try.expect");
        }
    }
    errs
}

/// Every entity name an expectation mentions.
fn expect_names(e: &Expect) -> Vec<String> {
    let mut v: Vec<String> = e.picked.iter().cloned().collect();
    v.extend(e.eligible.iter().chain(&e.not_eligible).chain(&e.delayed).chain(&e.sleeping).cloned());
    v.extend(e.metrics.iter().filter_map(|m| m.task.clone()));
    v.extend(e.counts.iter().filter_map(|c| c.task.clone()));
    v.extend(e.on_cpu.iter().map(|c| c.task.clone()));
    v.extend(e.cpu_time.iter().map(|c| c.task.clone()));
    v.extend(e.migrations.iter().filter_map(|c| c.task.clone()));
    v.extend(e.placements.iter().filter_map(|c| c.task.clone()));
    v
}

fn is_empty(e: &Expect) -> bool {
    e.picked.is_none()
        && e.reason.is_none()
        && e.buddy.is_none()
        && e.eligible.is_empty()
        && e.not_eligible.is_empty()
        && e.delayed.is_empty()
        && e.sleeping.is_empty()
        && e.metrics.is_empty()
        && e.counts.is_empty()
        && e.on_cpu.is_empty()
        && e.cpu_time.is_empty()
        && e.migrations.is_empty()
        && e.placements.is_empty()
}

/// "unknown KIND \"value\" (a, b, c)" when `value` is given and not one of `names`.
fn unknown_name(kind: &str, value: Option<&str>, names: &[&str]) -> Option<String> {
    let v = value.filter(|v| !names.contains(v))?;
    Some(format!("unknown {kind} {v:?} ({})", names.join(", ")))
}

#[cfg(test)]
mod tests;
