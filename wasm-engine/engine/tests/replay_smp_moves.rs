//! Issue 16/18: the SMP cgroup workload captured again with the tasks' moves into their cgroups
//! in the trace (`cgroup_attach_task`, recorded by `tools/capture/schedlab-capture.sh` since the
//! eleventh session) and each CPU's averages beside it: `traces/linux-6.18-smp-moves`. Nothing
//! was fitted to these captures; every pick, placement and balance scored is the model's.
#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::cpu_avg;
use schedlab_engine::import::dat::decode_all;
use schedlab_engine::import::record::{EevdfSample, Skipped, TraceRecord, TraceSink};
use schedlab_engine::replay::compare::{replay, ReplayReport};
use schedlab_engine::replay::observe::Observed;
use schedlab_engine::replay::shadow::Layout;

const CAPTURES: [&str; 2] = ["cgroup-shares-smp-1", "cgroup-shares-smp-2"];

fn dir() -> std::path::PathBuf {
    common::traces().join("linux-6.18-smp-moves")
}

/// The trace read as it is, or with its `cgroup_attach_task` records dropped (`blind`): as the
/// older captures of this workload were taken.
struct Blind<'a>(&'a mut Observed, bool);

impl TraceSink for Blind<'_> {
    fn record(&mut self, rec: TraceRecord) {
        if !(self.1 && rec.event == "cgroup_attach_task") {
            self.0.record(rec);
        }
    }
    fn lost(&mut self, cpu: u32, count: u64, line: u64) {
        self.0.lost(cpu, count, line);
    }
    fn skipped(&mut self, s: Skipped) {
        self.0.skipped(s);
    }
    fn eevdf(&mut self, s: EevdfSample) {
        self.0.eevdf(s);
    }
    fn meta(&mut self, key: &str, value: &str, line: u64) {
        self.0.meta(key, value, line);
    }
}

fn observe(capture: &str, blind: bool) -> Observed {
    let path = dir().join(capture).join("trace.dat");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut obs = Observed::default();
    obs.source = path.display().to_string();
    decode_all(&bytes, &mut Blind(&mut obs, blind)).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    obs.finish();
    let p = dir().join(capture).join("cpu-avg.txt");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    obs.cpu_avg = cpu_avg::parse(&p.display().to_string(), &text).unwrap_or_else(|e| panic!("{e}"));
    obs
}

fn run(capture: &str, obs: &Observed) -> ReplayReport {
    let p = dir().join("cgroup-shares-smp.layout.toml");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let l = Layout::parse(&p.display().to_string(), &text).expect("layout parses");
    replay(obs, &l, capture, &[]).unwrap_or_else(|e| panic!("{capture}: {e}")).1
}

/// With the four moves in the trace, the picks along the real schedule agree at 97.7 and
/// 99.4 % (measured 2026-11-27). Read without their `cgroup_attach_task` records, as the older
/// captures of this workload were taken (each hog in its cgroup from its fork), they agree at
/// 97.4 and 54.6 %: where the moves fall sets the order of the `/sl_B` hogs' lags, which then
/// holds (the `linux-6.18-smp-cpuavg` capture: 70.8 %). Every placement and balance migration
/// agrees, and the free shadow's k_* tasks are within 3 pp of one CPU.
#[test]
fn cgroup_shares_smp_with_its_moves_in_the_trace() {
    let mut without = Vec::new();
    for capture in CAPTURES {
        let obs = observe(capture, false);
        let r = run(capture, &obs);
        let d = &r.decisions;
        let p = &d.placements;
        println!(
            "{capture}: picks {}/{} ({:.1} %), {} moves; placements {}/{}; balance {}/{}",
            d.agreed,
            d.scored,
            d.agreement_pct,
            d.cgroup_moves,
            p.agreed,
            p.scored,
            p.balance_same_source,
            p.balance_migrations
        );
        assert_eq!(d.cgroup_moves, 4, "{capture}: k_a..k_d each moved once");
        assert!(d.cpu_avg.as_ref().is_some_and(|c| c.used), "{capture}: {:?}", d.cpu_avg);
        assert!(d.agreement_pct >= 95.0, "{capture}: picks {:.1} %: {:#?}", d.agreement_pct, d.first_disagreements);
        assert!(p.agreement_pct >= 97.0, "{capture}: placements {}/{}", p.agreed, p.scored);
        assert_eq!(p.balance_same_source, p.balance_migrations, "{capture}: {:?}", p.balance_disagreements);
        for t in r.tasks.iter().filter(|t| t.name.starts_with("k_")) {
            let e = t.simulated_cpu_pct - t.observed_cpu_pct;
            println!(
                "  {}: {:.2} % of one CPU, real {:.2} % ({e:+.2} pp)",
                t.name, t.simulated_cpu_pct, t.observed_cpu_pct
            );
            assert!(e.abs() < 3.0, "{capture}: {}: {e:+.2} pp", t.name);
        }
        // The same trace without its moves: each task in its cgroup from the start.
        assert!(r.unseen_moves.is_empty(), "{capture}: {:?}", r.unseen_moves);
        let blind = run(capture, &observe(capture, true));
        let b = &blind.decisions;
        println!("  without the moves: picks {}/{} ({:.1} %)", b.agreed, b.scored, b.agreement_pct);
        assert_eq!(b.cgroup_moves, 0);
        without.push(b.agreement_pct);
        // The report names the tasks forked in the trace whose moves it does not show (the
        // others' forks are before the trace).
        assert!(
            !blind.unseen_moves.is_empty() && blind.unseen_moves.iter().all(|t| t.starts_with("k_")),
            "{capture}: {:?}",
            blind.unseen_moves
        );
    }
    // Without the moves the start is a knife edge: one capture keeps 97.4 %, the other falls to
    // 54.6 % (measured 2026-11-27; printed, not held: it is the kernel's start, not the model's).
    println!("without the move records: {without:?} %");
}
