//! Per-task metrics of a run, computed from the event log, and the normalized golden
//! summary text.

use super::log::{EventKind, EventLog, SwitchReason, NO_TASK};
use super::smp::{smp_metrics, LegacyThrottle};
use crate::sim::Simulation;
use serde::{Serialize, Serializer};
use serde_json::Value;
use ts_rs::TS;

/// Serialises a percentage or mean with three decimals, as `schedlab simulate --json` prints it.
fn round3<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((v * 1000.0).round() / 1000.0)
}

/// Wakeup-latency percentiles (nearest rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, TS)]
pub struct Latency {
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Maximum.
    pub max: u64,
}

/// Metrics of one task.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct TaskSummary {
    /// comm.
    pub name: String,
    /// CPU time (ns).
    pub cpu_time_ns: u64,
    /// Share of the scenario's tasks' total CPU time (%).
    #[serde(serialize_with = "round3")]
    pub share_pct: f64,
    /// Times it left a CPU.
    pub switches_out: u64,
    /// Times it left a CPU while still runnable.
    pub switches_out_runnable: u64,
    /// cpu_time / switches_out (as the real-trace oracle computes it).
    pub mean_run_ns: u64,
    /// sched_yield() calls.
    pub yields: u64,
    /// sched_yield() calls that reached schedule() (all of them unless yield throttling).
    pub yields_scheduled: u64,
    /// yield_to() calls that yielded.
    pub yields_to: u64,
    /// yield_to() calls, yielded or not (directed-yield hypercalls).
    pub yield_to_calls: u64,
    /// Guest spinlock acquisitions (a vCPU's guest progress).
    pub guest_locks: u64,
    /// Pause-loop exits.
    pub ple_exits: u64,
    /// IPIs this vCPU sent that were handled.
    pub ipis_answered: u64,
    /// Mean time from sending an IPI to its being handled (ns).
    pub ipi_latency_ns_mean: u64,
    /// After a yield_to that yielded: mean number of task picks on the yielder's CPU until the
    /// target ran (1 = the very next pick), and the mean delay (ns).
    #[serde(serialize_with = "round3")]
    pub yield_to_picks_mean: f64,
    /// See `yield_to_picks_mean`.
    pub yield_to_delay_ns_mean: u64,
    /// Wakeups from sleep.
    pub wakeups: u64,
    /// Completed sleeps (periods of a run/sleep loop).
    pub sleeps: u64,
    /// Wakeup → run latency.
    pub wakeup_latency_ns: Latency,
    /// Times it was moved to another CPU (Migrate rows; a new task's first placement is not one).
    pub migrations: u64,
    /// CPU time on each CPU (ns), indexed by CPU; sums to `cpu_time_ns`.
    pub cpu_time_ns_by_cpu: Vec<u64>,
}

/// Counters of the yield_to proposals over a run (`Fair::yield_to_stats`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, TS)]
pub struct YieldToCounts {
    /// yield_to_task_fair() calls.
    pub calls: u64,
    /// Debooster penalties applied.
    pub penalties: u64,
    /// Penalties skipped by the rate limiter.
    pub rate_limited: u64,
    /// Penalties skipped by the reverse-pair debounce.
    pub debounced: u64,
    /// Lag credits (the v3 cover letter's proposal).
    pub credits: u64,
}

/// The profiling-timer contention model's totals (`cost::cputimer`), when it is on.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct CputimerTotals {
    /// Time in cputimer atomic adds (ns).
    pub atomic_ns: u64,
    /// Atomic adds.
    pub adds: u64,
    /// Share of the tasks' CPU time spent in them (%).
    #[serde(serialize_with = "round3")]
    pub atomic_pct: f64,
}

/// Metrics of a run: what `schedlab simulate --json` prints and the UI's metrics panel reads.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// Simulated time (ns).
    pub duration_ns: u64,
    /// Digest of the event log (hex).
    pub digest: String,
    /// Events processed by the event queue.
    pub queue_events: u64,
    /// Rows in the events table.
    pub log_events: u64,
    /// Context switches on every CPU, switches from and to idle included: the `sched_switch`
    /// records a kernel trace of the run holds (`obs::perfetto`).
    pub switches: u64,
    /// Per task, in scenario order.
    pub tasks: Vec<TaskSummary>,
    /// Idle time per CPU (ns).
    pub cpu_idle_ns: Vec<u64>,
    /// Per CPU: time it was idle while another CPU had a fair task waiting (queued, runnable,
    /// not running: that CPU's runnable count, its running task included, ≥ 2) (ns).
    pub idle_while_overloaded_ns: Vec<u64>,
    /// Counters of the yield_to proposals.
    pub yield_to: YieldToCounts,
    /// Profiling-timer contention model, when on.
    pub cputimer: Option<CputimerTotals>,
}

/// Every wakeup latency of a run, in log order: (task, ns from its wakeup, or its first wakeup
/// as a new task, to its next switch-in). The metrics' percentiles and the UI's histogram are
/// both computed from this.
pub fn wakeup_latencies(log: &EventLog, ntasks: usize) -> Vec<(u32, u64)> {
    let e = &log.events;
    let mut woken: Vec<Option<u64>> = vec![None; ntasks];
    let mut out = Vec::new();
    for r in e.rows() {
        let task = r.task as usize;
        if task >= ntasks {
            continue;
        }
        match EventKind::from_u8(r.kind) {
            Some(EventKind::Wakeup | EventKind::WakeupNew) => woken[task] = Some(r.t),
            Some(EventKind::Switch) => {
                if let Some(w) = woken[task].take() {
                    out.push((task as u32, r.t - w));
                }
            }
            _ => {}
        }
    }
    out
}

/// Nearest-rank percentile of sorted values.
pub fn percentile(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

impl Summary {
    /// Computes the summary of a simulation at its current time from its event log alone
    /// (switches, wakeups, yields, sleeps, enqueues, dequeues, migrations), so anything that
    /// holds the log can recompute it. Under the cfs_rq-based throttle the task groups are
    /// read too (`smp::LegacyThrottle`).
    pub fn of(sim: &Simulation) -> Summary {
        let names: Vec<String> = sim.tasks.iter().map(|t| t.cfg.name.clone()).collect();
        let legacy = (sim.cfg.throttle == crate::sched::bandwidth::ThrottleMode::CfsRq).then(|| LegacyThrottle {
            task_tg: sim.tasks.iter().map(|t| t.cfg.tg).collect(),
            tg_parent: sim.fair.tgs.iter().map(|g| g.parent).collect(),
        });
        let mut s = Summary::from_log_with(&sim.fair.log, &names, sim.cpus.len() as u32, sim.now(), legacy.as_ref());
        s.scenario = sim.cfg.name.clone();
        s.queue_events = sim.queue.processed;
        let y = &sim.fair.yield_to_stats;
        s.yield_to = YieldToCounts {
            calls: y.calls,
            penalties: y.penalties,
            rate_limited: y.rate_limited,
            debounced: y.debounced,
            credits: y.credits,
        };
        if sim.cfg.host.profiling_timer {
            let total: u64 = s.tasks.iter().map(|t| t.cpu_time_ns).sum();
            let atomic_ns = sim.cputimer.atomic_ns;
            let atomic_pct = if total == 0 { 0.0 } else { 100.0 * atomic_ns as f64 / total as f64 };
            s.cputimer = Some(CputimerTotals { atomic_ns, adds: sim.cputimer.adds, atomic_pct });
        }
        s
    }

    /// Computes the summary from a log of `ntasks` tasks on `ncpus` CPUs, closed at `now`
    /// (the task-based throttle: no task group is needed).
    pub fn from_log(log: &EventLog, names: &[String], ncpus: u32, now: u64) -> Summary {
        Summary::from_log_with(log, names, ncpus, now, None)
    }

    /// `from_log`, with the task groups the cfs_rq-based throttle needs.
    pub fn from_log_with(
        log: &EventLog,
        names: &[String],
        ncpus: u32,
        now: u64,
        legacy: Option<&LegacyThrottle>,
    ) -> Summary {
        let n = names.len();
        let mut cpu_time = vec![0u64; n];
        let mut sw_out = vec![0u64; n];
        let mut sw_out_runnable = vec![0u64; n];
        let mut yields = vec![0u64; n];
        let mut yields_scheduled = vec![0u64; n];
        let mut yields_to = vec![0u64; n];
        let mut yield_to_calls = vec![0u64; n];
        let mut guest_locks = vec![0u64; n];
        let mut ple_exits = vec![0u64; n];
        let mut ipi_sent_at: Vec<Option<u64>> = vec![None; n];
        let mut ipis: Vec<(u64, u64)> = vec![(0, 0); n]; // (answered, total latency)
                                                         // Per yielder: (target, time, cpu, picks so far) of the last yield_to that yielded.
        let mut pending: Vec<Option<(u32, u64, u16, u64)>> = vec![None; n];
        // Where to find the pending yields without scanning every task: by the CPU they were
        // made on (for Pick rows) and by their target (for Switch rows), each entry tagged
        // with its yielder's generation (entries of a settled or replaced yield are stale).
        let mut gen = vec![0u32; n];
        let mut by_cpu: Vec<Vec<(u32, u32)>> = vec![Vec::new(); ncpus as usize];
        let mut by_target: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        let mut handoffs: Vec<(u64, u64, u64)> = vec![(0, 0, 0); n]; // (count, picks, delay)
        let mut wakeups = vec![0u64; n];
        let mut sleeps = vec![0u64; n];
        let mut running: Vec<(u32, u64)> = vec![(NO_TASK, 0); ncpus as usize];
        let mut idle = vec![0u64; ncpus as usize];
        let e = &log.events;
        for r in e.rows() {
            let (t, task) = (r.t, r.task as usize);
            match EventKind::from_u8(r.kind) {
                Some(EventKind::Switch) => {
                    let c = r.cpu as usize;
                    let (prev, since) = running[c];
                    if prev == NO_TASK {
                        idle[c] += t - since;
                    } else {
                        let p = prev as usize;
                        cpu_time[p] += t - since;
                        sw_out[p] += 1;
                        if SwitchReason::from_i64(r.val).is_some_and(SwitchReason::prev_runnable) {
                            sw_out_runnable[p] += 1;
                        }
                    }
                    if task < n {
                        for (y, g) in std::mem::take(&mut by_target[task]) {
                            let y = y as usize;
                            if gen[y] != g {
                                continue;
                            }
                            if let Some((target, t0, _, picks)) = pending[y] {
                                debug_assert_eq!(target as usize, task);
                                let h = &mut handoffs[y];
                                *h = (h.0 + 1, h.1 + picks, h.2 + (t - t0));
                                pending[y] = None;
                                gen[y] += 1;
                            }
                        }
                    }
                    running[c] = (r.task, t);
                }
                Some(EventKind::Wakeup) => wakeups[task] += 1,
                Some(EventKind::Yield) => {
                    yields[task] += 1;
                    if r.val != 0 {
                        yields_scheduled[task] += 1;
                    }
                }
                Some(EventKind::YieldTo) if r.val & 1 == 0 => yield_to_calls[task] += 1,
                Some(EventKind::YieldTo) => {
                    yield_to_calls[task] += 1;
                    yields_to[task] += 1;
                    pending[task] = Some((r.arg, t, r.cpu, 0));
                    gen[task] += 1;
                    if let Some(l) = by_cpu.get_mut(r.cpu as usize) {
                        l.push((task as u32, gen[task]));
                    }
                    if let Some(l) = by_target.get_mut(r.arg as usize) {
                        l.push((task as u32, gen[task]));
                    }
                }
                Some(EventKind::Pick) if r.task < n as u32 => {
                    if let Some(l) = by_cpu.get_mut(r.cpu as usize) {
                        l.retain(|&(y, g)| gen[y as usize] == g && pending[y as usize].is_some());
                        for &(y, _) in l.iter() {
                            if let Some(p) = pending[y as usize].as_mut() {
                                p.3 += 1;
                            }
                        }
                    }
                }
                Some(EventKind::Sleep) => sleeps[task] += 1,
                Some(EventKind::GuestLock) => guest_locks[task] += 1,
                Some(EventKind::PleExit) => ple_exits[task] += 1,
                Some(EventKind::IpiSend) => ipi_sent_at[task] = Some(t),
                Some(EventKind::IpiHandled) if (r.arg as usize) < n => {
                    let s = r.arg as usize;
                    // Every receiver's handling counts, timed from the sender's last send.
                    if let Some(at) = ipi_sent_at[s] {
                        ipis[s].0 += 1;
                        ipis[s].1 += t - at;
                    }
                }
                _ => {}
            }
        }
        for (c, &(task, since)) in running.iter().enumerate() {
            if task == NO_TASK {
                idle[c] += now - since;
            } else {
                cpu_time[task as usize] += now - since;
            }
        }
        let mut lat: Vec<Vec<u64>> = vec![Vec::new(); n];
        for (task, ns) in wakeup_latencies(log, n) {
            lat[task as usize].push(ns);
        }
        let total: u64 = cpu_time.iter().sum();
        let mut smp = smp_metrics(log, n, ncpus, now, legacy);
        let tasks = (0..n)
            .map(|k| {
                lat[k].sort_unstable();
                TaskSummary {
                    name: names[k].clone(),
                    cpu_time_ns: cpu_time[k],
                    share_pct: if total == 0 { 0.0 } else { 100.0 * cpu_time[k] as f64 / total as f64 },
                    switches_out: sw_out[k],
                    switches_out_runnable: sw_out_runnable[k],
                    mean_run_ns: cpu_time[k] / sw_out[k].max(1),
                    yields: yields[k],
                    yields_scheduled: yields_scheduled[k],
                    yields_to: yields_to[k],
                    yield_to_calls: yield_to_calls[k],
                    guest_locks: guest_locks[k],
                    ple_exits: ple_exits[k],
                    ipis_answered: ipis[k].0,
                    ipi_latency_ns_mean: ipis[k].1 / ipis[k].0.max(1),
                    yield_to_picks_mean: if handoffs[k].0 == 0 {
                        0.0
                    } else {
                        handoffs[k].1 as f64 / handoffs[k].0 as f64
                    },
                    yield_to_delay_ns_mean: handoffs[k].2 / handoffs[k].0.max(1),
                    wakeups: wakeups[k],
                    sleeps: sleeps[k],
                    wakeup_latency_ns: Latency {
                        p50: percentile(&lat[k], 50.0),
                        p99: percentile(&lat[k], 99.0),
                        max: lat[k].last().copied().unwrap_or(0),
                    },
                    migrations: smp.migrations[k],
                    cpu_time_ns_by_cpu: std::mem::take(&mut smp.cpu_time_ns_by_cpu[k]),
                }
            })
            .collect();
        Summary {
            scenario: String::new(),
            duration_ns: now,
            digest: format!("{:016x}", log.digest()),
            queue_events: 0,
            log_events: log.len() as u64,
            switches: log.events.kind.iter().filter(|&k| k == EventKind::Switch as u8).count() as u64,
            tasks,
            cpu_idle_ns: idle,
            idle_while_overloaded_ns: smp.idle_while_overloaded_ns,
            yield_to: YieldToCounts::default(),
            cputimer: None,
        }
    }

    /// Share of the tasks' CPU time spent in cputimer atomic adds (%), 0 when the model is off.
    pub fn cputimer_pct(&self) -> f64 {
        self.cputimer.map_or(0.0, |c| c.atomic_pct)
    }

    /// The JSON object `schedlab simulate --json` prints (keys sorted).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("a summary serialises")
    }

    /// Normalized text for golden files: fixed precision, one line per fact.
    pub fn golden_text(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!("scenario {}\n", self.scenario));
        s.push_str(&format!("duration_ns {}\n", self.duration_ns));
        s.push_str(&format!("digest {}\n", self.digest));
        s.push_str(&format!("queue_events {}\n", self.queue_events));
        s.push_str(&format!("log_events {}\n", self.log_events));
        for t in &self.tasks {
            s.push_str(&format!(
                "task {} cpu_time_ns={} share_pct={:.3} switches_out={} switches_out_runnable={} mean_run_ns={} yields={} yields_scheduled={} yields_to={}/{} yield_to_picks_mean={:.3} yield_to_delay_ns_mean={} guest_locks={} ple_exits={} wakeups={} sleeps={} wakeup_latency_ns=p50:{},p99:{},max:{}\n",
                t.name, t.cpu_time_ns, t.share_pct, t.switches_out, t.switches_out_runnable, t.mean_run_ns, t.yields, t.yields_scheduled, t.yields_to, t.yield_to_calls, t.yield_to_picks_mean, t.yield_to_delay_ns_mean, t.guest_locks, t.ple_exits, t.wakeups, t.sleeps,
                t.wakeup_latency_ns.p50, t.wakeup_latency_ns.p99, t.wakeup_latency_ns.max
            ));
            if t.ipis_answered > 0 {
                s.push_str(&format!(
                    "task {} ipis_answered={} ipi_latency_ns_mean={}\n",
                    t.name, t.ipis_answered, t.ipi_latency_ns_mean
                ));
            }
        }
        if let Some(c) = self.cputimer {
            s.push_str(&format!("cputimer atomic_ns={} adds={} atomic_pct={:.3}\n", c.atomic_ns, c.adds, c.atomic_pct));
        }
        if self.yield_to.calls > 0 {
            let y = &self.yield_to;
            s.push_str(&format!(
                "yield_to calls={} penalties={} rate_limited={} debounced={} credits={}\n",
                y.calls, y.penalties, y.rate_limited, y.debounced, y.credits
            ));
        }
        for (c, idle) in self.cpu_idle_ns.iter().enumerate() {
            s.push_str(&format!("cpu {c} idle_ns={idle}\n"));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), 50);
        assert_eq!(percentile(&v, 99.0), 99);
        assert_eq!(percentile(&[7], 99.0), 7);
        assert_eq!(percentile(&[], 50.0), 0);
    }
}
