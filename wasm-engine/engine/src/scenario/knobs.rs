//! Scenario knobs set from outside the file: `schedlab --variant NAME=VALUE`, the named
//! variants (`variants.rs`) and the web UI's variant presets all go through
//! [`apply_variant`], which writes into a parsed [`ScenarioFile`]; callers validate after.

use super::schema::{
    GroupSharesSpec, LagClampMode, OnSpinSpec, ScenarioFile, SmpSpec, ThrottleSpec, TickOrderMode, TunableScaling,
    VcpuPackMode, WakeupPreemptMode, YieldMode, YieldToSpec,
};
use super::units::{parse_duration, DurationSpec};
use crate::sched::features::SchedFeatures;

/// Names accepted by [`apply_variant`] besides the scheduler features.
pub const VARIANT_KNOBS: [&str; 41] = [
    "yield",
    "yield_to",
    "yield_interval",
    "debooster_rate_limit",
    "kvm_on_spin",
    "kvm_ipi_aware",
    "kvm_relaxed_boost",
    "kvm_apicv",
    "kvm_pv_sched_yield",
    "kvm_pv_spinlock",
    "kvm_pv_spin_threshold",
    "kvm_exit_cost",
    "kvm_ple",
    "kvm_ple_window",
    "kvm_ple_window_grow",
    "kvm_ple_window_shrink",
    "ipi_latency_smt",
    "ipi_latency_core",
    "ipi_latency_socket",
    "throttle",
    "group_shares",
    "smp",
    "lag_clamp",
    "wakeup_preempt",
    "vcpu_pack",
    "autogroup",
    "profiling_timer",
    "hz",
    "cpus",
    "seed",
    "base_slice",
    "timer_slack",
    "wakeup_switch_latency",
    "schedule_clock_lead",
    "tick_order",
    "tick_ahead",
    "timekeeper",
    "tick_phase",
    "duration",
    "tunable_scaling",
    "cgroup_shares",
];

fn accepted_variants() -> String {
    let mut all: Vec<&str> = VARIANT_KNOBS.to_vec();
    all.extend(SchedFeatures::NAMES);
    all.join(", ")
}

fn parse_bool(name: &str, value: &str) -> Result<bool, String> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "1" | "yes" => Ok(true),
        "false" | "off" | "0" | "no" => Ok(false),
        _ => Err(format!("{name}={value}: expected true/false, on/off or 1/0")),
    }
}

fn parse_int<T: std::str::FromStr>(name: &str, value: &str) -> Result<T, String> {
    value.trim().parse::<T>().map_err(|_| format!("{name}={value}: expected a non-negative integer"))
}

fn parse_dur(name: &str, value: &str) -> Result<DurationSpec, String> {
    parse_duration(value).map(DurationSpec).map_err(|e| format!("{name}={value}: {e}"))
}

/// Applies one CLI `--variant NAME=VALUE` override. Callers re-run [`validate`] afterwards.
pub fn apply_variant(s: &mut ScenarioFile, name: &str, value: &str) -> Result<(), String> {
    let name = name.trim();
    if SchedFeatures::is_known(name) {
        let on = parse_bool(name, value)?;
        s.kernel.features.insert(name.to_string(), on);
        return Ok(());
    }
    match name {
        "yield" => {
            s.kernel.yield_mode = Some(match value.trim() {
                "forfeit" => YieldMode::Forfeit,
                "deadline_bump" | "deadline-bump" => YieldMode::DeadlineBump,
                "hierarchical" => YieldMode::Hierarchical,
                _ => return Err(format!("yield={value}: expected forfeit, deadline_bump or hierarchical")),
            })
        }
        "yield_to" => {
            s.kernel.yield_to = Some(match value.trim() {
                "mainline" => YieldToSpec::Mainline,
                "debooster_v1" => YieldToSpec::DeboosterV1,
                "debooster_v2" => YieldToSpec::DeboosterV2,
                "lag_credit" => YieldToSpec::LagCredit,
                "lag_transfer" => YieldToSpec::LagTransfer,
                "last_buddy" => YieldToSpec::LastBuddy,
                _ => {
                    return Err(format!(
                        "yield_to={value}: expected mainline, debooster_v1, debooster_v2, lag_credit, lag_transfer or last_buddy"
                    ))
                }
            })
        }
        "yield_interval" => s.kernel.yield_interval = Some(parse_dur(name, value)?),
        "debooster_rate_limit" => s.kernel.debooster_rate_limit = Some(parse_bool(name, value)?),
        "kvm_on_spin" => {
            s.kernel.kvm_on_spin = Some(match value.trim() {
                "mainline" => OnSpinSpec::Mainline,
                "fixed" => OnSpinSpec::Fixed,
                _ => return Err(format!("kvm_on_spin={value}: expected mainline or fixed")),
            })
        }
        "kvm_ipi_aware" => s.kernel.kvm_ipi_aware = Some(parse_bool(name, value)?),
        "kvm_relaxed_boost" => s.kernel.kvm_relaxed_boost = Some(parse_bool(name, value)?),
        "kvm_apicv" => s.kernel.kvm_apicv = Some(parse_bool(name, value)?),
        "kvm_pv_sched_yield" => s.kernel.kvm_pv_sched_yield = Some(parse_bool(name, value)?),
        "kvm_pv_spinlock" => s.kernel.kvm_pv_spinlock = Some(parse_bool(name, value)?),
        "kvm_pv_spin_threshold" => s.kernel.kvm_pv_spin_threshold = Some(parse_dur(name, value)?),
        "kvm_exit_cost" => s.kernel.kvm_exit_cost = Some(parse_dur(name, value)?),
        "kvm_ple" => s.kernel.kvm_ple = Some(parse_bool(name, value)?),
        "kvm_ple_window" => s.kernel.kvm_ple_window = Some(parse_dur(name, value)?),
        "kvm_ple_window_grow" => s.kernel.kvm_ple_window_grow = Some(parse_int(name, value)?),
        "kvm_ple_window_shrink" => s.kernel.kvm_ple_window_shrink = Some(parse_int(name, value)?),
        "ipi_latency_smt" => s.host.ipi_latency.get_or_insert_with(Default::default).smt = Some(parse_dur(name, value)?),
        "ipi_latency_core" => s.host.ipi_latency.get_or_insert_with(Default::default).core = Some(parse_dur(name, value)?),
        "ipi_latency_socket" => {
            s.host.ipi_latency.get_or_insert_with(Default::default).socket = Some(parse_dur(name, value)?)
        }
        "throttle" => {
            s.kernel.throttle = Some(match value.trim() {
                "task_based" => ThrottleSpec::TaskBased,
                "cfs_rq" => ThrottleSpec::CfsRq,
                _ => return Err(format!("throttle={value}: expected task_based or cfs_rq")),
            })
        }
        "group_shares" => {
            s.kernel.group_shares = Some(match value.trim() {
                "instant" => GroupSharesSpec::Instant,
                "pelt" => GroupSharesSpec::Pelt,
                _ => return Err(format!("group_shares={value}: expected instant or pelt")),
            })
        }
        "smp" => {
            s.kernel.smp = Some(match value.trim() {
                "fair" => SmpSpec::Fair,
                "static" => SmpSpec::Static,
                _ => return Err(format!("smp={value}: expected fair or static")),
            })
        }
        "lag_clamp" => {
            s.kernel.lag_clamp = Some(match value.trim() {
                "max_slice_tick" => LagClampMode::MaxSliceTick,
                "two_slice_or_tick" => LagClampMode::TwoSliceOrTick,
                _ => return Err(format!("lag_clamp={value}: expected max_slice_tick or two_slice_or_tick")),
            })
        }
        "wakeup_preempt" => {
            s.kernel.wakeup_preempt = Some(match value.trim() {
                "machine" => WakeupPreemptMode::Machine,
                "6.18" => WakeupPreemptMode::Stable618,
                _ => return Err(format!("wakeup_preempt={value}: expected machine or 6.18")),
            })
        }
        "vcpu_pack" => {
            s.kernel.vcpu_pack = Some(match value.trim() {
                "machine" => VcpuPackMode::Machine,
                "6.18" => VcpuPackMode::Stable618,
                _ => return Err(format!("vcpu_pack={value}: expected machine or 6.18")),
            })
        }
        "autogroup" => s.host.autogroup = parse_bool(name, value)?,
        "profiling_timer" => s.host.profiling_timer = parse_bool(name, value)?,
        "hz" => s.host.hz = parse_int(name, value)?,
        "cpus" => s.host.cpus = parse_int(name, value)?,
        "seed" => s.seed = parse_int(name, value)?,
        "base_slice" => s.host.base_slice = Some(parse_dur(name, value)?),
        "timer_slack" => s.host.timer_slack = Some(parse_dur(name, value)?),
        "wakeup_switch_latency" => s.host.wakeup_switch_latency = Some(parse_dur(name, value)?),
        "schedule_clock_lead" => s.host.schedule_clock_lead = Some(parse_dur(name, value)?),
        "tick_ahead" => {
            let v = value.trim().trim_end_matches('%');
            s.host.tick_ahead = Some(
                v.parse::<f64>()
                    .ok()
                    .filter(|p| (0.0..=100.0).contains(p))
                    .ok_or_else(|| format!("tick_ahead={value}: expected a percentage from 0 to 100"))?,
            )
        }
        "timekeeper" => s.host.timekeeper = Some(parse_int::<u32>(name, value)?),
        "tick_phase" => s.host.tick_phase = Some(parse_dur(name, value)?),
        "tick_order" => {
            s.host.tick_order = Some(match value.trim() {
                "cpu" => TickOrderMode::Cpu,
                "machine" => TickOrderMode::Machine,
                _ => return Err(format!("tick_order={value}: expected cpu or machine")),
            })
        }
        "duration" => s.duration = parse_dur(name, value)?,
        "tunable_scaling" => {
            s.host.tunable_scaling = match value.trim() {
                "none" => TunableScaling::None,
                "linear" => TunableScaling::Linear,
                "log" => TunableScaling::Log,
                _ => return Err(format!("tunable_scaling={value}: expected none, linear or log")),
            }
        }
        "cgroup_shares" => {
            // `/path:N`: that cgroup's v1 cpu.shares (its v2 weight, if any, is dropped).
            let (path, n) = value
                .trim()
                .rsplit_once(':')
                .ok_or_else(|| format!("cgroup_shares={value}: expected /path:SHARES, e.g. /a:2048"))?;
            let shares = parse_int::<u64>(name, n)?;
            let cg = s
                .cgroups
                .iter_mut()
                .find(|c| c.path == path)
                .ok_or_else(|| format!("cgroup_shares={value}: the scenario has no cgroup {path:?}"))?;
            cg.shares = Some(shares);
            cg.weight = None;
        }
        _ => return Err(format!("unknown variant {name:?}, expected one of {}", accepted_variants())),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_shares_sets_one_groups_shares() {
        let text = "version = 1\nname = \"t\"\nduration = \"1ms\"\n[[cgroups]]\npath = \"/a\"\nweight = 200\n[[cgroups]]\npath = \"/b\"\n[[tasks]]\nname = \"x\"\ncgroup = \"/a\"\nprogram = [{ run = \"forever\" }]\n";
        let mut s = crate::scenario::parse_scenario("t.toml", text).expect("parses");
        apply_variant(&mut s, "cgroup_shares", "/a:2048").expect("applies");
        assert_eq!((s.cgroups[0].shares, s.cgroups[0].weight), (Some(2048), None));
        assert_eq!(s.cgroups[1].shares, None);
        let e = apply_variant(&mut s, "cgroup_shares", "/c:10").unwrap_err();
        assert!(e.contains("no cgroup \"/c\""), "{e}");
        let e = apply_variant(&mut s, "cgroup_shares", "2048").unwrap_err();
        assert!(e.contains("expected /path:SHARES"), "{e}");
        let e = apply_variant(&mut s, "cgroup_shares", "/a:lots").unwrap_err();
        assert!(e.contains("non-negative integer"), "{e}");
    }
}
