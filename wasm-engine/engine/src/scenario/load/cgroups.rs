//! The `[[cgroups]]`' checks (paths, shares or weight, bandwidth in both forms) and the helpers
//! the simulator shares with them (`cpu.max`, the bandwidth period, a path's parent).

use super::Checker;
use crate::scenario::locate::KeyPath;
use crate::scenario::schema::CgroupSpec;
use crate::scenario::units::format_duration;

/// The period a cgroup's bandwidth timer runs with (ns): `cpu.max`'s, else `period`, else
/// the kernel's default 100 ms.
pub fn cgroup_period_ns(g: &CgroupSpec) -> u64 {
    match g.max.as_deref().map(parse_cpu_max) {
        Some(Ok((_, p))) => p,
        _ => g.period.map(|d| d.ns()).unwrap_or(100_000_000),
    }
}

/// Parses cgroup v2 `cpu.max` ("QUOTA_US PERIOD_US", "max PERIOD_US", or a lone quota with
/// the default 100000 us period) into (quota ns or None for "max", period ns).
pub fn parse_cpu_max(text: &str) -> Result<(Option<u64>, u64), String> {
    let mut parts = text.split_whitespace();
    let expected = || format!("expected cpu.max as \"QUOTA_US PERIOD_US\" or \"max PERIOD_US\", got {text:?}");
    let q = parts.next().ok_or_else(expected)?;
    let p = parts.next().unwrap_or("100000");
    if parts.next().is_some() {
        return Err(expected());
    }
    let quota = if q == "max" { None } else { Some(q.parse::<u64>().map_err(|_| expected())?.saturating_mul(1000)) };
    let period = p.parse::<u64>().map_err(|_| expected())?.saturating_mul(1000);
    Ok((quota, period))
}

/// Parent path of a cgroup path ("/" for a top-level group).
pub fn cgroup_parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// Checks `[[cgroups]]`: each path declared once and after its parent, and its knobs.
pub(super) fn check_cgroups(c: &mut Checker, cp: &KeyPath, groups: &[CgroupSpec]) {
    for (i, g) in groups.iter().enumerate() {
        let gp = cp.index(i);
        let segs: Vec<&str> = g.path.split('/').skip(1).collect();
        let valid = g.path.starts_with('/')
            && !segs.is_empty()
            && segs
                .iter()
                .all(|s| !s.is_empty() && s.chars().all(|ch| ch.is_ascii_alphanumeric() || "_-.".contains(ch)));
        if !valid {
            c.push(
                gp.key("path"),
                format!("expected a cgroup path like \"/name\" or \"/a/b\" (letters, digits, _ - .), got {:?}", g.path),
            );
            continue;
        }
        if let Some(j) = groups[..i].iter().position(|o| o.path == g.path) {
            c.push(gp.key("path"), format!("duplicate cgroup {:?} (already declared at cgroups[{j}])", g.path));
        }
        let parent = cgroup_parent(&g.path);
        if parent != "/" && !groups[..i].iter().any(|o| o.path == parent) {
            c.push(gp.key("path"), format!("the parent {parent:?} of {:?} must be declared before it", g.path));
        }
        if g.shares.is_some() && g.weight.is_some() {
            c.push(gp.key("weight"), "give either shares (cgroup v1) or weight (cgroup v2), not both");
        }
        if let Some(v) = g.shares {
            if !(2..=262_144).contains(&v) {
                c.push(gp.key("shares"), format!("expected cpu.shares in 2..=262144, got {v}"));
            }
        }
        if let Some(v) = g.weight {
            if !(1..=10_000).contains(&v) {
                c.push(gp.key("weight"), format!("expected cpu.weight in 1..=10000, got {v}"));
            }
        }
        if let Some(m) = &g.max {
            if g.quota.is_some() || g.period.is_some() {
                c.push(gp.key("max"), "give either cpu.max (max) or quota/period, not both");
            }
            match parse_cpu_max(m) {
                Ok((Some(q), _)) if q < 1_000_000 => {
                    c.push(gp.key("max"), format!("expected a quota of at least 1000 us in cpu.max, got {m:?}"))
                }
                Ok((_, p)) if !(1_000_000..=1_000_000_000).contains(&p) => {
                    c.push(gp.key("max"), format!("expected a period in 1000..=1000000 us in cpu.max, got {m:?}"))
                }
                Ok(_) => {}
                Err(e) => c.push(gp.key("max"), e),
            }
        }
        if let Some(q) = g.quota {
            if q.is_forever() || q.ns() < 1_000_000 {
                c.push(gp.key("quota"), format!("expected a quota of at least 1ms, got {}", format_duration(q.ns())));
            }
        }
        if let Some(p) = g.period {
            if p.is_forever() || !(1_000_000..=1_000_000_000).contains(&p.ns()) {
                c.push(gp.key("period"), format!("expected a period in 1ms..=1s, got {}", format_duration(p.ns())));
            }
            if g.quota.is_none() {
                c.push(gp.key("period"), "a period without a quota has no effect: add quota");
            }
        }
        if let Some(b) = g.burst {
            match g.quota {
                Some(q) if b.ns() <= q.ns() => {}
                Some(q) => c.push(
                    gp.key("burst"),
                    format!("burst {} exceeds the quota {}", format_duration(b.ns()), format_duration(q.ns())),
                ),
                None => c.push(gp.key("burst"), "a burst without a quota has no effect: add quota"),
            }
        }
        if let Some(ph) = g.period_phase {
            let period = cgroup_period_ns(g);
            if g.quota.is_none() && g.max.is_none() {
                c.push(gp.key("period_phase"), "a period phase without a quota has no effect: add quota");
            } else if ph.is_forever() || ph.ns() >= period {
                c.push(
                    gp.key("period_phase"),
                    format!(
                        "expected a period phase below the period ({}), got {}",
                        format_duration(period),
                        format_duration(ph.ns())
                    ),
                );
            }
        }
    }
}
