//! The per-CPU figures: busy time from the timeline's runs, `sched_switch` records, and the
//! runqueue depth over the window from [`RunqueueDepth`]'s change points, swept over all CPUs
//! at once in time order. As in `depth.rs`, the idle-while-overloaded time is settled lazily:
//! one running integral of "some known CPU has depth ≥ 2", read when a CPU starts and stops
//! being idle, so the sweep is O(points + CPUs), not O(points × CPUs).

use super::{CpuMetrics, Scope};
use crate::import::depth::RunqueueDepth;
use crate::import::store::TraceStore;
use crate::import::timeline::TraceTimeline;

pub(super) fn cpu_metrics(store: &TraceStore, tl: &TraceTimeline, s: &Scope) -> Vec<CpuMetrics> {
    let n = tl.ncpus as usize;
    let mut out: Vec<CpuMetrics> = (0..n as u32).map(|cpu| CpuMetrics { cpu, ..Default::default() }).collect();
    for (c, m) in out.iter_mut().enumerate() {
        let (a, b) = (tl.cpu_first[c] as usize, tl.cpu_first[c + 1] as usize);
        let from = a + tl.end[a..b].partition_point(|&e| e <= s.t0);
        m.busy_ns = (from..b).take_while(|&i| tl.start[i] < s.t1).map(|i| s.clip(tl.start[i], tl.end[i])).sum();
    }
    let sw = &store.switches;
    for i in 0..sw.ts.len() {
        if s.holds(sw.ts[i]) {
            if let Some(m) = out.get_mut(sw.cpu[i] as usize) {
                m.switches += 1;
            }
        }
    }
    depth_over(&tl.depth, s, &mut out);
    out.retain(|m| s.cpu(m.cpu));
    out
}

/// The sweep's state.
struct Sweep {
    now: u64,
    depth: Vec<u32>,
    known: Vec<bool>,
    /// Known CPUs at depth ≥ 2, and the time integral of "at least one".
    overloaded: u32,
    over_int: u64,
    /// Since when the CPU holds its current depth (known CPUs).
    since: Vec<u64>,
    /// A known idle CPU: `over_int` when it became idle (or the sweep began).
    idle_over: Vec<u64>,
}

impl Sweep {
    fn advance(&mut self, t: u64) {
        if t > self.now {
            if self.overloaded > 0 {
                self.over_int += t - self.now;
            }
            self.now = t;
        }
    }

    /// Closes CPU `c`'s current depth at `now` into its figures.
    fn settle(&mut self, c: usize, m: &mut CpuMetrics) {
        if !self.known[c] {
            return;
        }
        let d = self.depth[c] as usize;
        let dt = self.now - self.since[c];
        if m.depth_ns.len() <= d {
            m.depth_ns.resize(d + 1, 0);
        }
        m.depth_ns[d] += dt;
        if d == 0 {
            m.idle_while_overloaded_ns += self.over_int - self.idle_over[c];
        }
        self.since[c] = self.now;
        self.idle_over[c] = self.over_int;
    }

    /// CPU `c` goes to `depth` (and becomes known when `learn`).
    fn set(&mut self, c: usize, depth: u32, learn: bool, m: &mut CpuMetrics) {
        self.settle(c, m);
        let was = self.known[c] && self.depth[c] >= 2;
        self.depth[c] = depth;
        self.known[c] |= learn;
        let is = self.known[c] && depth >= 2;
        match (was, is) {
            (false, true) => self.overloaded += 1,
            (true, false) => self.overloaded -= 1,
            _ => {}
        }
        self.since[c] = self.now;
        self.idle_over[c] = self.over_int;
    }
}

/// Depth figures of every CPU over the window (all CPUs swept: another CPU's overload counts for
/// a selected one's idleness).
fn depth_over(d: &RunqueueDepth, s: &Scope, out: &mut [CpuMetrics]) {
    let n = out.len().min(d.cpus.len());
    let known_at = |c: usize| d.known_from.get(c).copied().flatten();
    let mut sw = Sweep {
        now: s.t0,
        depth: (0..n).map(|c| d.at(c, s.t0)).collect(),
        known: (0..n).map(|c| known_at(c).is_some_and(|k| k <= s.t0)).collect(),
        overloaded: 0,
        over_int: 0,
        since: vec![s.t0; n],
        idle_over: vec![0; n],
    };
    sw.overloaded = (0..n).filter(|&c| sw.known[c] && sw.depth[c] >= 2).count() as u32;
    // Change points inside the window: (time, CPU, new depth, becomes known).
    let mut ev: Vec<(u64, u32, u32, bool)> = Vec::new();
    for c in 0..n {
        let (a, b) = (d.first[c] as usize, d.first[c + 1] as usize);
        let i = a + d.ts[a..b].partition_point(|&t| t <= s.t0);
        for j in i..b {
            if d.ts[j] >= s.t1 {
                break;
            }
            ev.push((d.ts[j], c as u32, d.depth[j], false));
        }
        if let Some(k) = known_at(c).filter(|&k| k > s.t0 && k < s.t1) {
            ev.push((k, c as u32, u32::MAX, true));
        }
    }
    ev.sort_unstable();
    for (t, c, depth, learn) in ev {
        let c = c as usize;
        sw.advance(t);
        // A CPU becoming known keeps the depth it has at that time.
        let depth = if learn { d.at(c, t) } else { depth };
        sw.set(c, depth, learn, &mut out[c]);
    }
    sw.advance(s.t1);
    for (c, m) in out.iter_mut().enumerate().take(n) {
        sw.settle(c, m);
        m.known_ns = m.depth_ns.iter().sum();
        m.idle_ns = m.depth_ns.first().copied().unwrap_or(0);
        while m.depth_ns.last() == Some(&0) {
            m.depth_ns.pop();
        }
        m.max_depth = m.depth_ns.len().saturating_sub(1) as u32;
        if m.known_ns > 0 {
            let int: u128 = m.depth_ns.iter().enumerate().map(|(k, &ns)| k as u128 * u128::from(ns)).sum();
            m.mean_depth_milli = (int * 1000 / u128::from(m.known_ns)) as u64;
        }
    }
}
