//! The figures of one row of [`TraceDiff`]: each computed for A and B, and flagged by the rule of
//! the module docs of `mod.rs` (noise level, per-unit floor, quantile bands, Poisson counts).

use super::{
    CpuDiff, Figure, Group, TaskDiff, Unit, DEPTH_BUCKETS, FLOOR_DEPTH, FLOOR_LATENCY_NS, FLOOR_PCT_POINTS,
    FLOOR_RATE_PER_S, POISSON_SIGMAS, QUANTILE_SIGMAS, TAIL_SAMPLES,
};
use crate::import::metrics::{percentile, CpuMetrics};

/// The distribution-free confidence band of the `p`-th percentile of `sorted` (non-empty): the
/// order statistics at ranks `n·p/100 ± QUANTILE_SIGMAS·√(n·p/100·(1 − p/100))` (the rank of the
/// true percentile in a sample is binomial), clamped to the sample.
pub fn quantile_band(sorted: &[u64], p: u64) -> (u64, u64) {
    let n = sorted.len() as f64;
    let q = p as f64 / 100.0;
    let half = QUANTILE_SIGMAS * (n * q * (1.0 - q)).sqrt();
    let rank = |r: f64| (r.clamp(1.0, n) as usize).clamp(1, sorted.len()) - 1;
    (sorted[rank((n * q - half).floor())], sorted[rank((n * q + half).ceil())])
}

/// The comparison's parameters: the noise level and both windows (ns).
pub(super) struct Compare {
    pub noise: f64,
    pub wa: u64,
    pub wb: u64,
}

impl Compare {
    fn above_noise(&self, a: f64, b: f64) -> bool {
        if a == 0.0 {
            b != 0.0
        } else {
            ((b - a) / a).abs() * 100.0 > self.noise
        }
    }

    fn figure(&self, name: &str, unit: Unit, a: Option<f64>, b: Option<f64>, floor_ok: bool) -> Figure {
        let zeroable = matches!(unit, Unit::Percent | Unit::PerSecond);
        let (x, y) = if zeroable { (a.or(Some(0.0)), b.or(Some(0.0))) } else { (a, b) };
        let (delta, relative_pct, flagged) = match (x, y) {
            (Some(x), Some(y)) => {
                let rel = (x != 0.0).then(|| (y - x) / x * 100.0);
                (Some(y - x), rel, floor_ok && self.above_noise(x, y))
            }
            _ => (None, None, false),
        };
        Figure { name: name.to_string(), unit, a, b, delta, relative_pct, counts: None, flagged }
    }

    /// A share of time, % (`None` inputs: the side is missing).
    fn share(&self, name: &str, a: Option<f64>, b: Option<f64>) -> Figure {
        let d = (b.unwrap_or(0.0) - a.unwrap_or(0.0)).abs();
        self.figure(name, Unit::Percent, a, b, d > FLOOR_PCT_POINTS)
    }

    /// A rate from counts over each window.
    fn rate(&self, name: &str, a: Option<u64>, b: Option<u64>) -> Figure {
        let per_s = |n: u64, w: u64| n as f64 * 1e9 / w.max(1) as f64;
        let (na, nb) = (a.unwrap_or(0) as f64, b.unwrap_or(0) as f64 * self.wa as f64 / self.wb.max(1) as f64);
        let (ra, rb) = (a.map(|n| per_s(n, self.wa)), b.map(|n| per_s(n, self.wb)));
        let d = (rb.unwrap_or(0.0) - ra.unwrap_or(0.0)).abs();
        let ok = (nb - na).abs() > POISSON_SIGMAS * (na + nb).sqrt() && d > FLOOR_RATE_PER_S;
        let mut f = self.figure(name, Unit::PerSecond, ra, rb, ok);
        f.counts = Some((a.unwrap_or(0), b.unwrap_or(0)));
        f
    }

    /// A latency percentile `p` of the sorted samples (100: the maximum, never flagged).
    fn latency(&self, p: u64, a: &[u64], b: &[u64]) -> Figure {
        let name = if p == 100 { "latency_max".to_string() } else { format!("latency_p{p}") };
        let at = |v: &[u64]| (!v.is_empty()).then(|| percentile(v, p) as f64);
        let (x, y) = (at(a), at(b));
        let enough = |v: &[u64]| v.len() as f64 * (100 - p) as f64 / 100.0 >= TAIL_SAMPLES;
        let ok = match (x, y) {
            (Some(x), Some(y)) if p < 100 && enough(a) && enough(b) && (y - x).abs() > FLOOR_LATENCY_NS => {
                let ((alo, ahi), (blo, bhi)) = (quantile_band(a, p), quantile_band(b, p));
                ahi < blo || bhi < alo
            }
            _ => false,
        };
        self.figure(&name, Unit::Ns, x, y, ok)
    }

    pub(super) fn task(
        &self,
        comm: String,
        comm_b: Option<String>,
        a: Option<&Group>,
        b: Option<&Group>,
        empty: &Group,
    ) -> TaskDiff {
        let (ga, gb) = (a.unwrap_or(empty), b.unwrap_or(empty));
        let pct = |g: Option<&Group>, w: u64| g.map(|g| g.cpu_ns as f64 * 100.0 / w.max(1) as f64);
        let mut figures = vec![self.share("cpu", pct(a, self.wa), pct(b, self.wb))];
        if !ga.latencies.is_empty() || !gb.latencies.is_empty() {
            for p in [50, 90, 99, 100] {
                figures.push(self.latency(p, &ga.latencies, &gb.latencies));
            }
        }
        let n = |g: Option<&Group>, f: fn(&Group) -> u64| g.map(f);
        figures.push(self.rate("wakeups", n(a, |g| g.wakeups), n(b, |g| g.wakeups)));
        figures.push(self.rate("switches", n(a, |g| g.switches), n(b, |g| g.switches)));
        figures.push(self.rate("involuntary", n(a, |g| g.involuntary), n(b, |g| g.involuntary)));
        figures.push(self.rate("migrations", n(a, |g| g.migrations), n(b, |g| g.migrations)));
        let flagged = figures.iter().filter(|f| f.flagged).count() as u32;
        TaskDiff {
            comm,
            comm_b,
            tasks_a: ga.tasks,
            tasks_b: gb.tasks,
            cpu_ns_a: ga.cpu_ns,
            cpu_ns_b: gb.cpu_ns,
            figures,
            flagged,
        }
    }

    pub(super) fn cpu(&self, cpu: u32, a: Option<&CpuMetrics>, b: Option<&CpuMetrics>) -> CpuDiff {
        let of_window = |m: Option<&CpuMetrics>, w: u64, f: fn(&CpuMetrics) -> u64| {
            m.map(|m| f(m) as f64 * 100.0 / w.max(1) as f64)
        };
        let mut figures =
            vec![self.share("busy", of_window(a, self.wa, |m| m.busy_ns), of_window(b, self.wb, |m| m.busy_ns))];
        // Time at each depth, as a share of the CPU's known time.
        let at = |m: Option<&CpuMetrics>, d: usize| {
            m.map(|m| {
                let ns: u64 = if d < DEPTH_BUCKETS {
                    m.depth_ns.get(d).copied().unwrap_or(0)
                } else {
                    m.depth_ns.iter().skip(DEPTH_BUCKETS).sum()
                };
                ns as f64 * 100.0 / m.known_ns.max(1) as f64
            })
        };
        for d in 0..=DEPTH_BUCKETS {
            let name = if d < DEPTH_BUCKETS { format!("depth_{d}") } else { format!("depth_{d}+") };
            figures.push(self.share(&name, at(a, d), at(b, d)));
        }
        let mean = |m: Option<&CpuMetrics>| m.map(|m| m.mean_depth_milli as f64 / 1000.0);
        let (x, y) = (mean(a), mean(b));
        let ok = matches!((x, y), (Some(x), Some(y)) if (y - x).abs() > FLOOR_DEPTH);
        figures.push(self.figure("mean_depth", Unit::Depth, x, y, ok));
        figures.push(self.share(
            "idle_while_overloaded",
            of_window(a, self.wa, |m| m.idle_while_overloaded_ns),
            of_window(b, self.wb, |m| m.idle_while_overloaded_ns),
        ));
        figures.push(self.rate("switches", a.map(|m| m.switches), b.map(|m| m.switches)));
        let flagged = figures.iter().filter(|f| f.flagged).count() as u32;
        CpuDiff { cpu, figures, flagged }
    }
}
