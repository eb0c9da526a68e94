//! `schedlab wanpeng-table` and `schedlab bench-kvm`: Wanpeng Li's table (seed 001) run on
//! the presets of `wanpeng.rs`, and the performance goal of issue 6.
//!
//! The table's default host is libvirt's: unpinned vCPU threads, one cgroup each. Which
//! vCPUs end up sharing a pCPU is not in the seed and changes from boot to boot, so each cell
//! is run on several start orders (layouts) and the guest operations are pooled over them.

use crate::args::{BenchKvmArgs, WanpengTableArgs};
use crate::wanpeng::{host_layouts, scenario, Guest, Layout, SEED};
use schedlab_engine::obs::summary::Summary;
use std::fmt::Write;
use std::time::Instant;

/// The workload presets of the table.
pub const PRESETS: [&str; 3] = ["dbench", "dedup", "vips"];

/// Guest operations completed and the wall time of one run of `variant` (plus `extra`
/// overrides).
pub fn run_one(text: &str, variant: &str, extra: &[(String, String)]) -> Result<(u64, f64, Summary), String> {
    let mut overrides: Vec<(String, String)> = schedlab_engine::scenario::variants::find(variant)
        .ok_or_else(|| format!("unknown variant {variant:?}"))?
        .overrides
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    overrides.extend_from_slice(extra);
    let t0 = Instant::now();
    let (_, mut sim) = schedlab_engine::load("wanpeng.toml", text, &overrides)?;
    sim.run();
    let wall = t0.elapsed().as_secs_f64();
    let s = Summary::of(&sim);
    let ops = s.tasks.iter().map(|t| t.guest_locks + t.ipis_answered).sum();
    Ok((ops, wall, s))
}

/// The two variants a table compares (default: baseline, wanpeng-series).
#[derive(Debug, Clone)]
pub struct Pair {
    /// The reference variant.
    pub base: String,
    /// The variant whose change is printed.
    pub series: String,
    /// Overrides applied to both.
    pub extra: Vec<(String, String)>,
}

impl Default for Pair {
    fn default() -> Self {
        Pair { base: "baseline".into(), series: "wanpeng-series".into(), extra: Vec::new() }
    }
}

/// One cell: guest operations of baseline and series per layout.
#[derive(Debug, Clone, Default)]
pub struct Cell {
    /// (baseline ops, series ops) per layout.
    pub runs: Vec<(u64, u64)>,
}

impl Cell {
    /// Runs `preset` with `vms` VMs on every layout.
    pub fn run(guest: Guest, vms: u32, duration: &str, layouts: &[Layout], pair: &Pair) -> Result<Cell, String> {
        let mut runs = Vec::with_capacity(layouts.len());
        for &layout in layouts {
            let text = scenario(guest, vms, 16, 16, duration, layout)?;
            let (base, _, _) = run_one(&text, &pair.base, &pair.extra)?;
            let (series, _, _) = run_one(&text, &pair.series, &pair.extra)?;
            runs.push((base, series));
        }
        Ok(Cell { runs })
    }

    /// The series' throughput change in percent, operations pooled over the layouts.
    pub fn gain(&self) -> f64 {
        let b: u64 = self.runs.iter().map(|r| r.0).sum();
        let s: u64 = self.runs.iter().map(|r| r.1).sum();
        100.0 * (s as f64 - b as f64) / b.max(1) as f64
    }

    /// The smallest and largest per-layout change.
    pub fn range(&self) -> (f64, f64) {
        let g = |&(b, s): &(u64, u64)| 100.0 * (s as f64 - b as f64) / b.max(1) as f64;
        let lo = self.runs.iter().map(g).fold(f64::INFINITY, f64::min);
        let hi = self.runs.iter().map(g).fold(f64::NEG_INFINITY, f64::max);
        (lo, hi)
    }
}

/// The seed's goal for one row: the largest gain at 2 VMs, the smallest at 4, none negative
/// (at the printed precision).
pub fn meets_goal(gains: [f64; 3]) -> bool {
    let r = |x: f64| (x * 10.0).round() / 10.0;
    let [a, b, c] = gains.map(r);
    a > b && b > c && c >= 0.0
}

/// Prints the 9 cells beside the seed's (the rows of `presets`, each a name from
/// [`PRESETS`]), with `locks` spinlocks per VM (`None`: each preset's default).
pub fn table(
    duration: &str,
    layouts: &[Layout],
    pair: &Pair,
    presets: &[String],
    locks: Option<u32>,
) -> Result<(), String> {
    // Every row's index into SEED, checked before anything is printed.
    let rows = presets
        .iter()
        .map(|p| {
            PRESETS.iter().position(|x| x == p).ok_or_else(|| {
                format!("--presets: {p:?} is not a row of the table (expected some of {})", PRESETS.join(","))
            })
        })
        .collect::<Result<Vec<usize>, String>>()?;
    let t0 = Instant::now();
    let first = layouts.first().ok_or("no layout")?;
    println!("Wanpeng Li's table: throughput change of {} vs {}, 16 pCPUs, 16 vCPUs per VM", pair.series, pair.base);
    println!("host: {}", first.describe());
    println!("{} layout(s) x {duration} simulated per cell and variant", layouts.len());
    for (k, v) in &pair.extra {
        println!("both variants with {k}={v}");
    }
    if let Some(l) = locks {
        println!("guests with {l} spinlock(s) per VM");
    }
    println!("{:<8} {:>34} {:>34} {:>34}", "preset", "2 VMs model [range] (seed)", "3 VMs", "4 VMs");
    let mut verdicts = Vec::new();
    for (preset, &p) in presets.iter().zip(&rows) {
        let guest = Guest { preset, locks };
        let mut line = format!("{preset:<8}");
        let mut gains = [0.0; 3];
        for (c, vms) in [2u32, 3, 4].into_iter().enumerate() {
            let cell = Cell::run(guest, vms, duration, layouts, pair)?;
            gains[c] = cell.gain();
            let text = if layouts.len() > 1 {
                let (lo, hi) = cell.range();
                format!("{:+.1} % [{lo:+.1}..{hi:+.1}] ({:+.1} %)", gains[c], SEED[p][c])
            } else {
                format!("{:+.1} % ({:+.1} %)", gains[c], SEED[p][c])
            };
            let _ = write!(line, " {text:>34}");
        }
        println!("{line}");
        verdicts.push(format!("{preset} {}", if meets_goal(gains) { "yes" } else { "no" }));
    }
    println!("goal (largest gain at 2 VMs, smallest at 4, none negative): {}", verdicts.join(", "));
    println!(
        "(model: guest operations completed, pooled over the layouts; seed: the cover letter's benchmark throughput)"
    );
    println!("wall time {:.1} s (native)", t0.elapsed().as_secs_f64());
    Ok(())
}

/// `schedlab wanpeng-table`.
pub fn command(a: &WanpengTableArgs) -> Result<(), String> {
    let mut pair = Pair { extra: a.variants.variant.clone(), ..Default::default() };
    if let Some((base, series)) = &a.pair {
        (pair.base, pair.series) = (base.clone(), series.clone());
    }
    let presets = match &a.presets {
        Some(p) => p.0.clone(),
        None => PRESETS.iter().map(|p| p.to_string()).collect(),
    };
    table(&a.duration, &host_layouts(&a.host, true, a.layouts)?, &pair, &presets, a.locks.get())
}

/// `schedlab bench-kvm`.
pub fn bench_command(a: &BenchKvmArgs) -> Result<(), String> {
    bench(Guest { preset: &a.preset, locks: a.locks.get() }, host_layouts(&a.host, false, None)?[0])
}

/// The performance goal of issue 6: 4 VMs x 16 vCPUs on 16 pCPUs, 1 s simulated, native wall time.
pub fn bench(guest: Guest, layout: Layout) -> Result<(), String> {
    let preset = guest.preset;
    let text = scenario(guest, 4, 16, 16, "1s", layout)?;
    println!("host: {}", layout.describe());
    for variant in ["baseline", "wanpeng-series"] {
        let (ops, wall, s) = run_one(&text, variant, &[])?;
        println!(
            "kvm bench {preset} {variant}: 4 VMs x 16 vCPUs on 16 pCPUs, 1 s simulated in {wall:.2} s wall (native), \
             {} queue events ({:.2} M/s), {} log events, {ops} guest operations, digest={}",
            s.queue_events,
            s.queue_events as f64 / wall / 1e6,
            s.log_events,
            s.digest
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_goal_check_reads_the_printed_figures() {
        assert!(meets_goal([46.3, 3.5, 0.2]));
        assert!(meets_goal([10.0, 5.0, -0.04]), "prints as -0.0 %, not below zero");
        assert!(!meets_goal([1.4, 37.3, 18.8]));
        assert!(!meets_goal([20.0, 2.0, 2.0]), "3 VMs must beat 4 VMs");
        assert!(!meets_goal([20.0, 2.0, -0.5]));
    }

    /// Pins the model's prediction for the IPI-heavy preset at 3 VMs on the gallery's layout:
    /// the series answers more IPIs than the baseline (baseline receivers preempted in user
    /// mode are skipped).
    #[test]
    fn series_beats_baseline_on_the_ipi_pipeline_at_3_vms() {
        let text = scenario(Guest::new("dedup"), 3, 16, 16, "100ms", Layout::GALLERY).unwrap();
        let (base, _, _) = run_one(&text, "baseline", &[]).unwrap();
        let (series, _, _) = run_one(&text, "wanpeng-series", &[]).unwrap();
        println!("dedup 3 VMs, 100 ms: baseline {base} ops, series {series} ops");
        assert!(series as f64 > 1.1 * base as f64, "{series} vs {base}");
    }

    /// Pins the layout finding at 2 VMs (dedup-like): pinned vCPU i of each VM to pCPU i, the
    /// two VMs gang-schedule and the series gains nothing; on libvirt's layout two vCPUs of
    /// a VM share pCPUs and the series gains a lot.
    #[test]
    fn at_2_vms_the_gain_depends_on_the_layout() {
        let gallery = Cell::run(Guest::new("dedup"), 2, "100ms", &[Layout::GALLERY], &Pair::default()).unwrap();
        let libvirt = Cell::run(Guest::new("dedup"), 2, "100ms", &[Layout::libvirt(1)], &Pair::default()).unwrap();
        println!(
            "dedup 2 VMs, 100 ms: gallery {:?} {:+.1} %, libvirt {:?} {:+.1} %",
            gallery.runs,
            gallery.gain(),
            libvirt.runs,
            libvirt.gain()
        );
        assert!(gallery.gain().abs() < 5.0, "{}", gallery.gain());
        assert!(libvirt.gain() > 20.0, "{}", libvirt.gain());
    }

    /// Pins the dbench-like finding at 2 VMs on libvirt's layout with the vCPU threads left
    /// where they start (`smp = "static"`, how it was found): with one hot lock per VM (the
    /// preset's default) the series gains (measured +10.0/+5.6/+6.1 % on layouts 1..3,
    /// 100 ms); with the vCPUs spread over 4 locks it gains little (+1.5/−0.3/+2.5 %). With
    /// the host's load balancer (the default) the 100 ms, 3-layout gain with one lock is
    /// +0.4 %: `docs/kvm-model.md` has the table both ways.
    #[test]
    fn the_dbench_like_gain_needs_one_hot_lock() {
        let layouts = [Layout::libvirt(1), Layout::libvirt(2), Layout::libvirt(3)];
        let pair = Pair { extra: vec![("smp".into(), "static".into())], ..Pair::default() };
        let one = Cell::run(Guest::new("dbench"), 2, "100ms", &layouts, &pair).unwrap();
        let four = Cell::run(Guest { preset: "dbench", locks: Some(4) }, 2, "100ms", &layouts, &pair).unwrap();
        println!(
            "dbench 2 VMs, 100 ms: one lock {:?} {:+.1} %, four {:?} {:+.1} %",
            one.runs,
            one.gain(),
            four.runs,
            four.gain()
        );
        assert!(one.gain() > 4.0, "{}", one.gain());
        assert!(four.gain() < one.gain() / 2.0, "{} vs {}", four.gain(), one.gain());
    }
}
