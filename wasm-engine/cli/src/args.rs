//! The command line's grammar (clap derive): one [`Command`] variant per subcommand, each with
//! only its own flags and their help, and the parsers of the values that are not plain strings
//! (times, bounded counts, `NAME=VALUE`, comma lists). A value that does not parse is refused
//! before anything runs, naming the flag and what it expects (`--locks "0": expected 1..=16`).

use crate::wanpeng::ALL_PRESETS;
use clap::builder::PossibleValuesParser;
use clap::{Args, Parser, Subcommand, ValueEnum};
use schedlab_engine::scenario::units::parse_duration;
use schedlab_engine::scenario::variants;

/// Simulate, explain and compare the Linux 6.18.44 fair scheduler (EEVDF); import and
/// replay real traces.
#[derive(Parser, Debug)]
#[command(
    name = "schedlab",
    after_help = "\
Times are nanoseconds or a number with a unit (1.5s, 4ms, 300us). `schedlab <command> --help`
gives a command's flags. Bad input prints `schedlab: <what was expected>` and exits 2.

Examples:
  schedlab simulate scenarios/linux-6.18/yield-vs-hog.toml --variant yield=deadline_bump
  schedlab explain  scenarios/gallery/late-arrival-lag.toml --at 51ms
  schedlab compare  scenarios/yield/prateek-topology-2.toml --variants baseline,hier-yield"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    #[command(verbatim_doc_comment)]
    /// Run a scenario to its end and print its summary
    ///
    /// Per task: CPU share, switches, wakeup latency percentiles; the observation log's digest.
    /// `--json` adds, per task, `migrations` and `cpu_time_ns_by_cpu` (CPU time on each CPU),
    /// and per CPU `idle_while_overloaded_ns` (idle while another CPU had a fair task waiting).
    /// `--perfetto OUT` also writes the run as a Perfetto trace (`obs::perfetto`).
    Simulate(SimulateArgs),
    #[command(verbatim_doc_comment)]
    /// Each CPU's runqueue and last pick at one instant, level by level
    ///
    /// Every queued entity's vruntime, deadline, lag and eligibility, and why the last pick
    /// won: eligibility, earliest deadline, protection, buddies.
    Explain(ExplainArgs),
    #[command(verbatim_doc_comment)]
    /// The web inspector's state at a cursor, as JSON, from the run's log
    ///
    /// The scenario runs to its end; then, read from the observation log as the browser reads
    /// it: each CPU's queued tasks (lags against their queue's newest V), its latest pick at or
    /// before the cursor with every level of that decision and the words, and every task's
    /// latest state. Same JSON as the browser's `CursorState`.
    State(StateArgs),
    #[command(verbatim_doc_comment)]
    /// Run a scenario under several named variants, against the first
    ///
    /// Per task: CPU share and its difference against the first variant; yield, directed
    /// yield and vCPU rows where the scenario has them.
    Compare(CompareArgs),
    /// List the named variants (patches and proposals from the reviews).
    Variants,
    /// Print the scenario file's JSON Schema.
    Schema,
    #[command(verbatim_doc_comment)]
    /// Engine throughput in events/s, or one scenario's run time
    ///
    /// Without SCENARIO: (a) 1 CPU x 8 hogs and (b) 64 CPUs x 512 sleepers, each with the full
    /// observation log and with events only. With SCENARIO: one run of that file (full log),
    /// its wall time and digest.
    Bench(BenchArgs),
    /// Print a generated scenario (aaron, wanpeng, bench-b) or trace.
    #[command(subcommand)]
    Gen(Gen),
    #[command(verbatim_doc_comment)]
    /// The 384-CPU bandwidth scenario under both throttle variants
    ///
    /// `gen aaron`'s scenario run with throttle=task_based and throttle=cfs_rq: the
    /// distribute_cfs_runtime() duration histogram, wall time and peak memory.
    BenchDistribute(BenchDistributeArgs),
    #[command(verbatim_doc_comment)]
    /// Wanpeng Li's table: the series' gain at 2/3/4 VMs, beside his
    ///
    /// 9 cells (dbench, dedup, vips x 2, 3, 4 VMs of 16 vCPUs on 16 pCPUs): the throughput
    /// change of wanpeng-series against baseline, beside the cover letter's figures.
    ///
    /// The host defaults to libvirt's layout (--placement unpinned --groups vcpu); each cell
    /// is run on N start orders (--layouts, 5) for T each (--duration, 200ms) and the guest
    /// operations are pooled over them.
    WanpengTable(WanpengTableArgs),
    #[command(verbatim_doc_comment)]
    /// Native wall time of 4 VMs x 16 vCPUs on 16 pCPUs, 1 s simulated
    ///
    /// One run each of baseline and wanpeng-series: wall time, queue events, guest operations.
    BenchKvm(BenchKvmArgs),
    #[command(verbatim_doc_comment)]
    /// Read a trace: what it holds and lacks, with diagnostics
    ///
    /// Counts, tasks, CPUs, lost events, skipped lines with line:column, what the views miss.
    ///
    /// Formats: tracefs text, trace-cmd report and .dat, perf script, systrace HTML, a bpftrace
    /// EEVDF-state dump, a Perfetto protobuf trace. A file in none of them is refused (exit 2)
    /// with what it looks like. With --eevdf, a bpftrace dump taken alongside (tools/capture) is read
    /// into the same store and the summary says whether the two share a clock.
    Import(ImportArgs),
    #[command(verbatim_doc_comment)]
    /// Shadow re-simulation of a trace: observed vs simulated
    ///
    /// The workload the trace shows, simulated under the baseline or --variant: per task the
    /// observed and simulated share and switches, the agreement, and the model's pick at every
    /// pick the trace shows.
    Replay(ReplayArgs),
    #[command(verbatim_doc_comment)]
    /// Compare two traces of the same workload (A/B): per task and per CPU, flagged above noise
    ///
    /// Tasks are matched by comm (same-comm tasks summed into one row; --match for renamed
    /// tasks), CPUs by number. Per task: CPU time as % of the trace's window, wakeup latency
    /// p50/p90/p99/max, wakeups, switches, involuntary switches and migrations per second; per
    /// CPU: busy time, time at each runqueue depth, mean depth, idle while another CPU was
    /// overloaded, switches per second. A figure is flagged (*) when its relative difference
    /// exceeds --noise and its absolute difference a floor for its unit (printed with the table).
    /// Formats: as for import (text, .dat or Perfetto).
    Diff(DiffArgs),
    /// Trace importer throughput on a synthetic tracefs trace (--perfetto: re-encoded as Perfetto).
    BenchImport(BenchImportArgs),
    #[command(verbatim_doc_comment)]
    /// Write an imported trace in another format
    ///
    /// --perfetto: a Perfetto protobuf trace (process tree, per-CPU ftrace bundles; other
    /// events as GenericFtraceEvent), regular events or, with --compact, compact_sched.
    Export(ExportArgs),
    #[command(verbatim_doc_comment)]
    /// `schedlab diff` throughput: two synthetic traces (two seeds) imported and compared
    ///
    /// Prints the generation, import and diff times of each step.
    BenchDiff(MbArgs),
    #[command(verbatim_doc_comment)]
    /// Check lessons: each step's facts, and its decision level by level
    ///
    /// Runs each lesson's scenario under its steps' variants; prints the decision at each
    /// step's cursor and whether its stated facts hold. Exits 2 if any does not.
    Lessons(LessonsArgs),
}

/// `--variant NAME=VALUE`, repeatable.
#[derive(Args, Debug)]
pub struct VariantArgs {
    /// Override a scheduler feature or knob (repeatable)
    ///
    /// Any feature: RUN_TO_PARITY=false, DELAY_DEQUEUE=false, PLACE_LAG=false, ...
    /// or knob: yield=forfeit|deadline_bump|hierarchical,
    /// yield_to=mainline|debooster_v1|debooster_v2|lag_credit|last_buddy,
    /// lag_clamp=max_slice_tick|two_slice_or_tick, throttle=task_based|cfs_rq, group_shares=instant|pelt, smp=fair|static,
    /// wakeup_preempt=machine|6.18,
    /// autogroup=true|false, yield_interval=10us, profiling_timer=true,
    /// kvm_on_spin=mainline|fixed, kvm_ipi_aware, kvm_relaxed_boost, kvm_apicv,
    /// kvm_pv_sched_yield, kvm_pv_spinlock, kvm_pv_spin_threshold=1ms, kvm_ple,
    /// kvm_ple_window, kvm_exit_cost, debooster_rate_limit, hz, cpus, seed, base_slice,
    /// timer_slack, wakeup_switch_latency, schedule_clock_lead, tick_order=cpu|machine,
    /// tick_ahead=11.4, timekeeper, tick_phase=1.5ms (replay: tick_phase=trace), duration,
    /// tunable_scaling, cgroup_shares=/path:N.
    #[arg(long = "variant", value_name = "NAME=VALUE", value_parser = name_value, verbatim_doc_comment)]
    pub variant: Vec<(String, String)>,
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The scenario file (TOML or JSON).
    pub scenario: String,
    #[command(flatten)]
    pub variants: VariantArgs,
    /// Print the summary as JSON, with the SMP metrics: per task `migrations` and
    /// `cpu_time_ns_by_cpu`, per CPU `idle_while_overloaded_ns`.
    #[arg(long)]
    pub json: bool,
    /// What the observation log keeps.
    #[arg(long, value_enum, default_value_t = Log::Full)]
    pub log: Log,
    /// Also write the run as a Perfetto trace to this file: per-CPU sched ftrace events, per
    /// task counter tracks of vruntime, deadline, vlag and V, and the picks, placements and
    /// balance passes as instant events with their "why" (open it in ui.perfetto.dev).
    #[arg(long, value_name = "OUT")]
    pub perfetto: Option<String>,
}

/// What `simulate` keeps in the observation log.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Log {
    /// Events, samples, picks and their candidates.
    Full,
    /// Events only (faster; the summary is the same).
    Events,
}

#[derive(Args, Debug)]
pub struct StateArgs {
    /// The scenario file (TOML or JSON).
    pub scenario: String,
    /// The cursor: nanoseconds or a number with a unit (51ms, 1.5s).
    #[arg(long, value_name = "TIME", value_parser = time)]
    pub at: u64,
    #[command(flatten)]
    pub variants: VariantArgs,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// The scenario file (TOML or JSON).
    pub scenario: String,
    /// The instant to explain: nanoseconds or a number with a unit (51ms, 1.5s).
    #[arg(long, value_name = "TIME", value_parser = time)]
    pub at: u64,
    #[command(flatten)]
    pub variants: VariantArgs,
    /// Print the state and the decisions as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The scenario file (TOML or JSON).
    pub scenario: String,
    /// The named variants to run, the first the reference (see `schedlab variants`).
    #[arg(long = "variants", value_name = "A,B,...", value_parser = list)]
    pub names: List,
    #[command(flatten)]
    pub variants: VariantArgs,
    /// Print every variant's summary and differences as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Time one run of this scenario file instead.
    pub scenario: Option<String>,
    /// Simulated seconds per benchmark (1..=3600).
    #[arg(long, value_name = "N", default_value_t = 20, value_parser = count::<3600>, conflicts_with = "scenario")]
    pub seconds: u64,
}

#[derive(Subcommand, Debug)]
pub enum Gen {
    /// The 384-CPU, 1,101-group, 10,000-task bandwidth scenario (seed 002).
    Aaron,
    /// A 16-pCPU KVM scenario with one of Wanpeng Li's table presets.
    Wanpeng(GenWanpengArgs),
    /// The synthetic tracefs trace of bench-import (for the wasm and browser benches).
    Trace(GenTraceArgs),
    /// Benchmark (b) of `schedlab bench`: 64 CPUs x 512 sleepers (for the browser bench).
    BenchB(GenBenchArgs),
}

#[derive(Args, Debug)]
pub struct GenBenchArgs {
    /// Simulated seconds (1..=3600).
    #[arg(long, value_name = "N", default_value_t = 5, value_parser = count::<3600>)]
    pub seconds: u64,
}

#[derive(Args, Debug)]
pub struct GenWanpengArgs {
    /// The guest workload: dbench (lock-heavy), dedup (IPI pipeline), vips (balanced),
    /// kbuild (kernel-build-like).
    #[arg(long, default_value = "dedup", value_parser = PossibleValuesParser::new(ALL_PRESETS))]
    pub preset: String,
    /// VMs of 16 vCPUs each (1..=16).
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = count::<16>)]
    pub vms: u64,
    #[command(flatten)]
    pub locks: LocksArgs,
    /// The scenario's duration.
    #[arg(long, value_name = "T", default_value = "1s", value_parser = duration)]
    pub duration: String,
    #[command(flatten)]
    pub host: HostArgs,
}

/// `--locks L`, for the generated KVM guests.
#[derive(Args, Debug)]
pub struct LocksArgs {
    /// Guest spinlocks per VM (1..=16; default: dbench 1, the others 4)
    ///
    /// vCPU i takes lock i mod L. dbench-like computes 6*16/L-4 us per 4 us critical
    /// section, so each lock is about 2/3 busy whatever L.
    #[arg(long, value_name = "L", value_parser = count::<16>, verbatim_doc_comment)]
    pub locks: Option<u64>,
}

impl LocksArgs {
    /// The spinlocks per VM, if given.
    pub fn get(&self) -> Option<u32> {
        self.locks.map(|l| l as u32)
    }
}

/// Where the host runs the vCPU threads and how it groups them (HOST).
#[derive(Args, Debug)]
#[command(next_help_heading = "Host layout")]
pub struct HostArgs {
    /// vCPU i of every VM pinned to pCPU i, or no pinning (the threads' start order decides).
    #[arg(long, value_enum)]
    pub placement: Option<Placement>,
    /// One cgroup per VM, or one per vCPU (libvirt's).
    #[arg(long, value_enum)]
    pub groups: Option<Groups>,
    /// The start order of unpinned vCPU threads (1..).
    #[arg(long, value_name = "S", value_parser = count::<{ u64::MAX }>)]
    pub layout_seed: Option<u64>,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// vCPU i of every VM pinned to pCPU i.
    Index,
    /// No pinning (libvirt's default).
    Unpinned,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Groups {
    /// One cgroup per VM, /machine/vmN.
    Vm,
    /// One cgroup per vCPU, /machine/vmN/vcpuK (libvirt's).
    Vcpu,
}

#[derive(Args, Debug)]
pub struct BenchDistributeArgs {
    /// Simulated seconds (1..=60).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = count::<60>)]
    pub seconds: u64,
}

#[derive(Args, Debug)]
pub struct WanpengTableArgs {
    /// Simulated time per cell, layout and variant.
    #[arg(long, value_name = "T", default_value = "200ms", value_parser = duration)]
    pub duration: String,
    /// Unpinned start orders per cell, seeds 1..=N (1..=100; default 5).
    #[arg(long, value_name = "N", value_parser = count::<100>, conflicts_with = "layout_seed", help_heading = "Host layout")]
    pub layouts: Option<u64>,
    #[command(flatten)]
    pub host: HostArgs,
    /// The reference variant and the one whose change is printed (default:
    /// baseline,wanpeng-series).
    #[arg(long = "variants", value_name = "BASE,SERIES", value_parser = base_series)]
    pub pair: Option<(String, String)>,
    #[command(flatten)]
    pub variants: VariantArgs,
    /// The table's rows, some of dbench,dedup,vips (default: all three).
    #[arg(long, value_name = "A,B,...", value_parser = list)]
    pub presets: Option<List>,
    #[command(flatten)]
    pub locks: LocksArgs,
}

#[derive(Args, Debug)]
pub struct BenchKvmArgs {
    /// The guest workload.
    #[arg(long, default_value = "vips", value_parser = PossibleValuesParser::new(ALL_PRESETS))]
    pub preset: String,
    #[command(flatten)]
    pub locks: LocksArgs,
    #[command(flatten)]
    pub host: HostArgs,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The trace file.
    pub trace: String,
    /// A bpftrace EEVDF-state dump taken with the trace (tools/capture/schedlab-eevdf.bt).
    #[arg(long, value_name = "DUMP")]
    pub eevdf: Option<String>,
    /// Print the import summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct DiffArgs {
    /// Trace A (the baseline).
    pub a: String,
    /// Trace B.
    pub b: String,
    /// Print the comparison as JSON.
    #[arg(long)]
    pub json: bool,
    /// A comm of A matched to a comm of B (a renamed task; repeatable).
    #[arg(long = "match", value_name = "OLD=NEW", value_parser = name_value)]
    pub matches: Vec<(String, String)>,
    /// The run-to-run noise level: a relative difference at or below it is not flagged.
    #[arg(long, value_name = "PCT", default_value = "5%", value_parser = percent)]
    pub noise: f64,
    /// Only these CPUs (comma list), e.g. the CPU the workload was pinned to.
    #[arg(long, value_name = "LIST", value_parser = cpu_list)]
    pub cpus: Option<CpuList>,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// The trace file (text or .dat).
    pub trace: String,
    /// The cgroup layout of the traced tasks (a .layout.toml file).
    #[arg(long, value_name = "LAYOUT")]
    pub cgroups: Option<String>,
    /// Where the shadow's tasks run: free (placed and balanced by the model, the default;
    /// a layout's [affinity] restricts them) or observed (each pinned where it ran most,
    /// with sleeps as observed)
    #[arg(long, value_name = "free|observed")]
    pub pin: Option<String>,
    /// A bpftrace EEVDF-state dump taken with the trace (tools/capture/schedlab-eevdf.bt):
    /// each queue of the per-decision replay is moved to the kernel's recorded lags once all
    /// its entities are recorded, and the picks after are scored apart.
    #[arg(long, value_name = "DUMP")]
    pub eevdf: Option<String>,
    /// A dump of each CPU's root cfs_rq PELT averages taken with the trace on the `mono` clock
    /// (tools/capture/schedlab-cpu-avg.bt): the per-decision replay sets the model's root
    /// cfs_rqs to them as it reaches each line, so placements and balancing are asked at the
    /// kernel's averages.
    #[arg(long, value_name = "DUMP")]
    pub cpu_avg: Option<String>,
    /// A dump of each CPU's SCHED softirqs taken with the trace on the `mono` clock
    /// (tools/capture/schedlab-balance.bt): the per-decision replay asks the model each
    /// periodic balance pass it recorded, from the kernel's `nr_balance_failed` and
    /// `balance_interval` before it, and scores the outcome (balanced, failed, moved).
    #[arg(long, value_name = "DUMP")]
    pub balance: Option<String>,
    #[command(flatten)]
    pub variants: VariantArgs,
    /// Print the report as JSON (with `--seeds` or `--tick-phases`: the table over the runs).
    #[arg(long, conflicts_with = "emit_scenario")]
    pub json: bool,
    /// Print the shadow scenario as TOML instead of the report.
    #[arg(long)]
    pub emit_scenario: bool,
    /// Run the shadow under seeds 1 to N (at most 64) and print each task's CPU time over
    /// them (least, mean, most) beside the real one: for workloads whose course a seeded
    /// behaviour decides, such as the late balance passes of `--variant tick_ahead=11.4`.
    #[arg(long, value_name = "N", conflicts_with = "emit_scenario")]
    pub seeds: Option<u32>,
    /// Run the shadow with its ticks at N phases spread over the tick period (at most 64;
    /// `host.tick_phase` 0, 1/N, ...) and print each task's CPU time over them (least, mean,
    /// most) beside the real one: how far its figures depend on where the ticks fall.
    #[arg(long, value_name = "N", conflicts_with_all = ["emit_scenario", "seeds"])]
    pub tick_phases: Option<u32>,
}

/// `--mb N`: the synthetic trace's size.
#[derive(Args, Debug)]
pub struct MbArgs {
    /// The trace's size in MiB (1..=4096).
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = count::<4096>)]
    pub mb: u64,
}

/// `gen trace`: the synthetic trace's size and seed.
#[derive(Args, Debug)]
pub struct GenTraceArgs {
    #[command(flatten)]
    pub size: MbArgs,
    /// The generator's seed (another seed: another trace of the same shape).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
}

#[derive(Args, Debug)]
pub struct BenchImportArgs {
    /// The synthetic trace's size in MiB (1..=4096).
    #[arg(long, value_name = "N", default_value_t = 200, value_parser = count::<4096>)]
    pub mb: u64,
    /// Time the Perfetto importer instead, on the synthetic trace re-encoded as Perfetto
    /// (regular events and compact_sched).
    #[arg(long)]
    pub perfetto: bool,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The trace file (any format `schedlab import` reads).
    pub trace: String,
    /// Write a Perfetto protobuf trace (the one export format so far).
    #[arg(long, required = true)]
    pub perfetto: bool,
    /// With --perfetto: sched_switch and sched_waking as compact_sched arrays.
    #[arg(long)]
    pub compact: bool,
    /// Output file.
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: String,
}

#[derive(Args, Debug)]
pub struct LessonsArgs {
    /// A lesson file, or a directory whose *.json files are lessons.
    #[arg(value_name = "LESSON.json|DIR", default_value = "lessons")]
    pub path: String,
}

/// A comma-separated list, each item trimmed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct List(pub Vec<String>);

fn list(s: &str) -> Result<List, String> {
    Ok(List(s.split(',').map(|x| x.trim().to_string()).collect()))
}

fn name_value(s: &str) -> Result<(String, String), String> {
    let (k, v) = s.split_once('=').ok_or("expected NAME=VALUE")?;
    Ok((k.trim().to_string(), v.trim().to_string()))
}

/// A percentage, `2%` or `2` (0 to 1000).
fn percent(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().trim_end_matches('%').trim().parse().map_err(|_| "expected a percentage such as 2%")?;
    if (0.0..=1000.0).contains(&v) {
        Ok(v)
    } else {
        Err("expected a percentage from 0% to 1000%".into())
    }
}

/// CPU numbers (`--cpus 0,1`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuList(pub Vec<u32>);

/// CPU numbers, comma-separated.
fn cpu_list(s: &str) -> Result<CpuList, String> {
    s.split(',')
        .map(|c| c.trim().parse::<u32>().map_err(|_| format!("expected CPU numbers such as 0,1; {c:?} is not one")))
        .collect::<Result<Vec<u32>, String>>()
        .map(CpuList)
}

/// Two named variants, `BASE,SERIES`.
fn base_series(s: &str) -> Result<(String, String), String> {
    let (b, s) = s.split_once(',').ok_or("expected BASE,SERIES")?;
    for name in [b, s] {
        variants::find(name).ok_or_else(|| format!("unknown variant {name:?} (see schedlab variants)"))?;
    }
    Ok((b.to_string(), s.to_string()))
}

/// A whole number in `1..=MAX`.
fn count<const MAX: u64>(s: &str) -> Result<u64, String> {
    s.parse().ok().filter(|n| (1..=MAX).contains(n)).ok_or_else(|| format!("expected 1..={MAX}"))
}

/// Nanoseconds, or a number with a unit.
fn time(s: &str) -> Result<u64, String> {
    s.parse::<u64>().or_else(|_| parse_duration(s))
}

/// A duration with its unit, kept as written (it goes into generated scenario text).
fn duration(s: &str) -> Result<String, String> {
    parse_duration(s).map(|_| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_grammar_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn value_parsers() {
        assert_eq!(name_value(" yield = forfeit"), Ok(("yield".into(), "forfeit".into())));
        assert!(name_value("RUN_TO_PARITY").is_err());
        assert_eq!(count::<16>("16"), Ok(16));
        assert_eq!(count::<16>("0"), Err("expected 1..=16".into()));
        assert!(count::<16>("17").is_err() && count::<16>("x").is_err());
        assert_eq!(time("1500000000"), Ok(1_500_000_000));
        assert_eq!(time("51ms"), Ok(51_000_000));
        assert!(time("10xs").is_err() && time("").is_err());
        assert_eq!(duration("200ms"), Ok("200ms".into()));
        assert_eq!(percent("2%"), Ok(2.0));
        assert_eq!(percent(" 0.5 "), Ok(0.5));
        assert!(percent("-1%").is_err() && percent("x").is_err() && percent("2000").is_err());
        assert_eq!(cpu_list("1, 3"), Ok(CpuList(vec![1, 3])));
        assert!(cpu_list("1,x").unwrap_err().contains("\"x\""));
        assert!(duration("200").is_err());
        assert_eq!(list("a, b,c"), Ok(List(vec!["a".into(), "b".into(), "c".into()])));
        assert_eq!(base_series("baseline,wanpeng-series"), Ok(("baseline".into(), "wanpeng-series".into())));
        assert!(base_series("baseline").is_err());
        assert!(base_series("baseline,nope").unwrap_err().contains("\"nope\""));
    }
}
