//! Per-task metrics of a run, computed from the event log, and the normalized golden
//! summary text.

use super::log::{EventKind, EventLog, SwitchReason, NO_TASK};
use crate::sim::Simulation;
use serde_json::{json, Value};

/// Wakeup-latency percentiles (nearest rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Latency {
    /// Median.
    pub p50: u64,
    /// 99th percentile.
    pub p99: u64,
    /// Maximum.
    pub max: u64,
}

/// Metrics of one task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskSummary {
    /// comm.
    pub name: String,
    /// CPU time (ns).
    pub cpu_time_ns: u64,
    /// Share of the scenario's tasks' total CPU time (%).
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
    pub yield_to_picks_mean: f64,
    /// See `yield_to_picks_mean`.
    pub yield_to_delay_ns_mean: u64,
    /// Wakeups from sleep.
    pub wakeups: u64,
    /// Completed sleeps (periods of a run/sleep loop).
    pub sleeps: u64,
    /// Wakeup → run latency.
    pub wakeup_latency_ns: Latency,
}

/// Metrics of a run.
#[derive(Debug, Clone, PartialEq)]
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
    /// Per task, in scenario order.
    pub tasks: Vec<TaskSummary>,
    /// Idle time per CPU (ns).
    pub cpu_idle_ns: Vec<u64>,
    /// Counters of the yield_to proposals (calls, penalties, rate-limited, debounced, credits).
    pub yield_to: [u64; 5],
    /// Profiling-timer contention model: time in cputimer atomic adds (ns) and adds, when on.
    pub cputimer: Option<(u64, u64)>,
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
    /// (switches, wakeups, yields, sleeps), so anything that holds the log can recompute it.
    pub fn of(sim: &Simulation) -> Summary {
        let names: Vec<String> = sim.tasks.iter().map(|t| t.cfg.name.clone()).collect();
        let mut s = Summary::from_log(&sim.fair.log, &names, sim.cpus.len() as u32, sim.now());
        s.scenario = sim.cfg.name.clone();
        s.queue_events = sim.queue.processed;
        let y = &sim.fair.yield_to_stats;
        s.yield_to = [y.calls, y.penalties, y.rate_limited, y.debounced, y.credits];
        if sim.cfg.host.profiling_timer {
            s.cputimer = Some((sim.cputimer.atomic_ns, sim.cputimer.adds));
        }
        s
    }

    /// Computes the summary from a log of `ntasks` tasks on `ncpus` CPUs, closed at `now`.
    pub fn from_log(log: &EventLog, names: &[String], ncpus: u32, now: u64) -> Summary {
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
        let mut handoffs: Vec<(u64, u64, u64)> = vec![(0, 0, 0); n]; // (count, picks, delay)
        let mut wakeups = vec![0u64; n];
        let mut sleeps = vec![0u64; n];
        let mut woken_at: Vec<Option<u64>> = vec![None; n];
        let mut lat: Vec<Vec<u64>> = vec![Vec::new(); n];
        let mut running: Vec<(u32, u64)> = vec![(NO_TASK, 0); ncpus as usize];
        let mut idle = vec![0u64; ncpus as usize];
        let e = &log.events;
        for i in 0..e.t.len() {
            let (t, task) = (e.t[i], e.task[i] as usize);
            match EventKind::from_u8(e.kind[i]) {
                Some(EventKind::Switch) => {
                    let c = e.cpu[i] as usize;
                    let (prev, since) = running[c];
                    if prev == NO_TASK {
                        idle[c] += t - since;
                    } else {
                        let p = prev as usize;
                        cpu_time[p] += t - since;
                        sw_out[p] += 1;
                        if SwitchReason::from_i64(e.val[i]).is_some_and(SwitchReason::prev_runnable) {
                            sw_out_runnable[p] += 1;
                        }
                    }
                    if task < n {
                        if let Some(w) = woken_at[task].take() {
                            lat[task].push(t - w);
                        }
                        for (y, p) in pending.iter_mut().enumerate() {
                            if let Some((target, t0, _, picks)) = *p {
                                if target as usize == task {
                                    let h = &mut handoffs[y];
                                    *h = (h.0 + 1, h.1 + picks, h.2 + (t - t0));
                                    *p = None;
                                }
                            }
                        }
                    }
                    running[c] = (e.task[i], t);
                }
                Some(EventKind::Wakeup) => {
                    wakeups[task] += 1;
                    woken_at[task] = Some(t);
                }
                Some(EventKind::WakeupNew) => woken_at[task] = Some(t),
                Some(EventKind::Yield) => {
                    yields[task] += 1;
                    if e.val[i] != 0 {
                        yields_scheduled[task] += 1;
                    }
                }
                Some(EventKind::YieldTo) if e.val[i] & 1 == 0 => yield_to_calls[task] += 1,
                Some(EventKind::YieldTo) => {
                    yield_to_calls[task] += 1;
                    yields_to[task] += 1;
                    pending[task] = Some((e.arg[i], t, e.cpu[i], 0));
                }
                Some(EventKind::Pick) if e.task[i] < n as u32 => {
                    for p in pending.iter_mut().flatten() {
                        if p.2 == e.cpu[i] {
                            p.3 += 1;
                        }
                    }
                }
                Some(EventKind::Sleep) => sleeps[task] += 1,
                Some(EventKind::GuestLock) => guest_locks[task] += 1,
                Some(EventKind::PleExit) => ple_exits[task] += 1,
                Some(EventKind::IpiSend) => ipi_sent_at[task] = Some(t),
                Some(EventKind::IpiHandled) if (e.arg[i] as usize) < n => {
                    let s = e.arg[i] as usize;
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
        let total: u64 = cpu_time.iter().sum();
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
                }
            })
            .collect();
        Summary {
            scenario: String::new(),
            duration_ns: now,
            digest: format!("{:016x}", log.digest()),
            queue_events: 0,
            log_events: log.len() as u64,
            tasks,
            cpu_idle_ns: idle,
            yield_to: [0; 5],
            cputimer: None,
        }
    }

    /// Share of the tasks' CPU time spent in cputimer atomic adds (%), 0 when the model is off.
    pub fn cputimer_pct(&self) -> f64 {
        let total: u64 = self.tasks.iter().map(|t| t.cpu_time_ns).sum();
        match self.cputimer {
            Some((ns, _)) if total > 0 => 100.0 * ns as f64 / total as f64,
            _ => 0.0,
        }
    }

    /// The JSON object `schedlab simulate --json` prints.
    pub fn to_json(&self) -> Value {
        json!({
            "scenario": self.scenario,
            "duration_ns": self.duration_ns,
            "digest": self.digest,
            "queue_events": self.queue_events,
            "log_events": self.log_events,
            "cpu_idle_ns": self.cpu_idle_ns,
            "cputimer": self.cputimer.map(|(ns, adds)| json!({"atomic_ns": ns, "adds": adds, "atomic_pct": (self.cputimer_pct() * 1000.0).round() / 1000.0})),
            "yield_to": { "calls": self.yield_to[0], "penalties": self.yield_to[1], "rate_limited": self.yield_to[2],
                          "debounced": self.yield_to[3], "credits": self.yield_to[4] },
            "tasks": self.tasks.iter().map(|t| json!({
                "name": t.name,
                "cpu_time_ns": t.cpu_time_ns,
                "share_pct": (t.share_pct * 1000.0).round() / 1000.0,
                "switches_out": t.switches_out,
                "switches_out_runnable": t.switches_out_runnable,
                "mean_run_ns": t.mean_run_ns,
                "yields": t.yields,
                "yields_scheduled": t.yields_scheduled,
                "yields_to": t.yields_to,
                "yield_to_calls": t.yield_to_calls,
                "guest_locks": t.guest_locks,
                "ple_exits": t.ple_exits,
                "ipis_answered": t.ipis_answered,
                "ipi_latency_ns_mean": t.ipi_latency_ns_mean,
                "yield_to_picks_mean": (t.yield_to_picks_mean * 1000.0).round() / 1000.0,
                "yield_to_delay_ns_mean": t.yield_to_delay_ns_mean,
                "wakeups": t.wakeups,
                "sleeps": t.sleeps,
                "wakeup_latency_ns": { "p50": t.wakeup_latency_ns.p50, "p99": t.wakeup_latency_ns.p99, "max": t.wakeup_latency_ns.max },
            })).collect::<Vec<_>>(),
        })
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
        if let Some((ns, adds)) = self.cputimer {
            s.push_str(&format!("cputimer atomic_ns={ns} adds={adds} atomic_pct={:.3}\n", self.cputimer_pct()));
        }
        if self.yield_to[0] > 0 {
            let y = &self.yield_to;
            s.push_str(&format!(
                "yield_to calls={} penalties={} rate_limited={} debounced={} credits={}\n",
                y[0], y[1], y[2], y[3], y[4]
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
