//! `schedlab`: the native command line of the schedlab engine.
//!
//! ```text
//! schedlab simulate <scenario> [--variant NAME=VALUE ...] [--json]
//! schedlab explain  <scenario> --at <time> [--variant NAME=VALUE ...] [--json]
//! schedlab schema
//! schedlab bench [--seconds N]
//! schedlab import <trace> [--eevdf DUMP] [--json]
//! ```
//! Bad input prints `schedlab: <file>:<line>:<col>: <what was expected>` and exits 2.

mod aaron;
mod bench;
mod compare;
mod import;
mod lessons;
mod replay;
mod wanpeng;
mod wanpeng_table;

use schedlab_engine::obs::explain::explain;
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::scenario::units::parse_duration;
use std::process::ExitCode;

const USAGE: &str = "usage:
  schedlab simulate <scenario> [--variant NAME=VALUE ...] [--json] [--log full|events]
  schedlab explain  <scenario> --at <time> [--variant NAME=VALUE ...] [--json]
  schedlab compare  <scenario> --variants A,B,... [--variant NAME=VALUE ...] [--json]
  schedlab variants                    list the named variants
  schedlab schema                      print the scenario JSON Schema
  schedlab bench [--seconds N]         engine throughput benchmark (events/s)
  schedlab bench <scenario>            time one scenario's run (full log)
  schedlab gen aaron                   print the 384-CPU / 1,101-group / 10,000-task bandwidth scenario
  schedlab bench-distribute [--seconds N]  run it under both throttle variants: histogram, wall, memory
  schedlab gen wanpeng [--preset dbench|dedup|vips|kbuild] [--vms N] [--locks L] [HOST]
                                           print a 16-pCPU KVM scenario (Wanpeng Li's table presets);
                                           HOST default: --placement index --groups vm (the gallery's)
  schedlab wanpeng-table [--duration T] [--layouts N] [HOST] [--variants BASE,SERIES] [--variant K=V ...]
                       [--presets dbench,dedup,vips] [--locks L]
                                           the table's 9 cells (wanpeng-series vs baseline) beside the seed's;
                                           HOST default: --placement unpinned --groups vcpu (libvirt's),
                                           N start orders (5) x T (200ms) per cell
  schedlab bench-kvm [--preset P] [--locks L] [HOST]
                                           4 VMs x 16 vCPUs on 16 pCPUs, 1 s simulated: wall time
  HOST: --placement index|unpinned (vCPU i pinned to pCPU i, or no pinning), --layout-seed S
        (unpinned: the threads' start order), --groups vm|vcpu (one cgroup per VM or per vCPU)
  L: guest spinlocks per VM, vCPU i taking lock i mod L (default: dbench 1, the others 4);
     dbench-like computes 6*16/L-4 us per 4 us critical section (each lock ~2/3 busy)
  schedlab import <trace> [--eevdf DUMP] [--json]
                                           read a trace (tracefs, trace-cmd report and .dat, perf script,
                                           systrace HTML, bpftrace EEVDF state): what it holds and lacks;
                                           with --eevdf, a bpftrace dump taken alongside (tools/capture)
                                           and whether the two share a clock
  schedlab replay <trace> [--cgroups LAYOUT] [--variant K=V] [--json | --emit-scenario]
                                           shadow re-simulation: the trace's workload simulated, per task
                                           observed vs simulated share and switches, agreement
  schedlab bench-import [--mb N]           trace importer throughput on an N MiB synthetic trace (200)
  schedlab gen trace [--mb N]              print that synthetic tracefs trace (for the wasm and browser benches)
  schedlab lessons <lesson.json|dir>       check lessons: each step's facts against the engine, and
                                           the decision at its cursor, level by level

<time> is nanoseconds or a number with a unit (1.5s, 4ms, 300us).
Variants: any scheduler feature (RUN_TO_PARITY=false), yield=forfeit|deadline_bump,
hz, cpus, seed, base_slice, timer_slack, duration, tunable_scaling, cgroup_shares=/path:N.";

struct Args {
    cmd: String,
    file: Option<String>,
    variants: Vec<(String, String)>,
    json: bool,
    at: Option<String>,
    seconds: Option<String>,
    events_only: bool,
    compare: Option<String>,
    preset: Option<String>,
    vms: Option<String>,
    duration: Option<String>,
    mb: Option<String>,
    cgroups: Option<String>,
    eevdf: Option<String>,
    emit_scenario: bool,
    placement: Option<String>,
    groups: Option<String>,
    layout_seed: Option<String>,
    layouts: Option<String>,
    locks: Option<String>,
    presets: Option<String>,
}

fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut it = argv.iter();
    let cmd = it.next().ok_or("missing command")?.clone();
    if cmd == "-h" || cmd == "--help" || cmd == "help" {
        return Err(String::new());
    }
    let mut a = Args {
        cmd,
        file: None,
        variants: Vec::new(),
        json: false,
        at: None,
        seconds: None,
        events_only: false,
        compare: None,
        preset: None,
        vms: None,
        duration: None,
        mb: None,
        cgroups: None,
        eevdf: None,
        emit_scenario: false,
        placement: None,
        groups: None,
        layout_seed: None,
        layouts: None,
        locks: None,
        presets: None,
    };
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--json" => a.json = true,
            "--emit-scenario" => a.emit_scenario = true,
            "--cgroups" => a.cgroups = Some(it.next().ok_or("--cgroups needs a layout file")?.clone()),
            "--eevdf" => a.eevdf = Some(it.next().ok_or("--eevdf needs a bpftrace dump file")?.clone()),
            "--log" => {
                a.events_only = match it.next().map(String::as_str) {
                    Some("full") => false,
                    Some("events") => true,
                    other => return Err(format!("--log {other:?}: expected full or events")),
                }
            }
            "--variant" => {
                let kv = it.next().ok_or("--variant needs NAME=VALUE")?;
                let (k, v) = kv.split_once('=').ok_or_else(|| format!("--variant {kv:?}: expected NAME=VALUE"))?;
                a.variants.push((k.trim().to_string(), v.trim().to_string()));
            }
            "--at" => a.at = Some(it.next().ok_or("--at needs a time")?.clone()),
            "--seconds" => a.seconds = Some(it.next().ok_or("--seconds needs a number")?.clone()),
            "--preset" => a.preset = Some(it.next().ok_or("--preset needs a name")?.clone()),
            "--vms" => a.vms = Some(it.next().ok_or("--vms needs a number")?.clone()),
            "--duration" => a.duration = Some(it.next().ok_or("--duration needs a time")?.clone()),
            "--mb" => a.mb = Some(it.next().ok_or("--mb needs a number")?.clone()),
            "--placement" => a.placement = Some(it.next().ok_or("--placement needs index or unpinned")?.clone()),
            "--groups" => a.groups = Some(it.next().ok_or("--groups needs vm or vcpu")?.clone()),
            "--layout-seed" => a.layout_seed = Some(it.next().ok_or("--layout-seed needs a number")?.clone()),
            "--layouts" => a.layouts = Some(it.next().ok_or("--layouts needs a number")?.clone()),
            "--locks" => a.locks = Some(it.next().ok_or("--locks needs a number")?.clone()),
            "--presets" => a.presets = Some(it.next().ok_or("--presets needs A,B,...")?.clone()),
            "--variants" => a.compare = Some(it.next().ok_or("--variants needs A,B,...")?.clone()),
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with("--") => return Err(format!("unknown option {s}")),
            s => {
                if a.file.is_some() {
                    return Err(format!("unexpected argument {s:?}"));
                }
                a.file = Some(s.to_string());
            }
        }
    }
    Ok(a)
}

fn read(file: &str) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("{file}: cannot read: {e}"))
}

fn parse_time(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(v) => Ok(v),
        Err(_) => parse_duration(s).map_err(|e| format!("--at: {e}")),
    }
}

/// Writes to stdout; a closed pipe (`schedlab ... | head`) ends the output quietly instead
/// of panicking like `print!` does.
fn out(s: &str) -> Result<(), String> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing output: {e}")),
        _ => Ok(()),
    }
}

/// `--locks N`: guest spinlocks per VM (1..=16) for the generated KVM presets.
fn locks_arg(a: &Args) -> Result<Option<u32>, String> {
    a.locks
        .as_deref()
        .map(|v| {
            v.parse().ok().filter(|n| (1..=16).contains(n)).ok_or_else(|| format!("--locks {v:?}: expected 1..=16"))
        })
        .transpose()
}

/// The host layouts the HOST flags ask for. `table`: the defaults are libvirt's (unpinned,
/// one cgroup per vCPU) and `--layouts N` start orders; otherwise the gallery's and one layout.
fn host_layouts(a: &Args, table: bool) -> Result<Vec<wanpeng::Layout>, String> {
    use wanpeng::{Groups, Layout, Placement};
    let unpinned = match a.placement.as_deref() {
        None => table,
        Some("index") => false,
        Some("unpinned") => true,
        Some(o) => return Err(format!("--placement {o:?}: expected index or unpinned")),
    };
    let groups = match a.groups.as_deref() {
        None if table => Groups::Vcpu,
        None | Some("vm") => Groups::Vm,
        Some("vcpu") => Groups::Vcpu,
        Some(o) => return Err(format!("--groups {o:?}: expected vm or vcpu")),
    };
    let number = |flag: &str, v: &Option<String>, default: u64, max: u64| -> Result<u64, String> {
        match v {
            None => Ok(default),
            Some(s) => s
                .parse()
                .ok()
                .filter(|n| (1..=max).contains(n))
                .ok_or_else(|| format!("{flag} {s:?}: expected 1..={max}")),
        }
    };
    if !unpinned && (a.layout_seed.is_some() || a.layouts.is_some()) {
        return Err("--layout-seed and --layouts are for --placement unpinned".to_string());
    }
    if a.layouts.is_some() && !table {
        return Err("--layouts is only for wanpeng-table".to_string());
    }
    if a.layout_seed.is_some() && a.layouts.is_some() {
        return Err("give --layout-seed (one layout) or --layouts (seeds 1..=N), not both".to_string());
    }
    if !unpinned {
        return Ok(vec![Layout { placement: Placement::Index, groups }]);
    }
    let seeds: Vec<u64> = match &a.layout_seed {
        Some(_) => vec![number("--layout-seed", &a.layout_seed, 1, u64::MAX)?],
        None => (1..=number("--layouts", &a.layouts, if table { 5 } else { 1 }, 100)?).collect(),
    };
    Ok(seeds.into_iter().map(|s| Layout { placement: Placement::Unpinned(s), groups }).collect())
}

fn run(argv: &[String]) -> Result<(), String> {
    let a = parse_args(argv)?;
    let takes_file = matches!(
        a.cmd.as_str(),
        "simulate" | "explain" | "bench" | "gen" | "compare" | "import" | "replay" | "lessons"
    );
    if !takes_file && a.file.is_some() {
        return Err(format!("{} takes no scenario argument", a.cmd));
    }
    if a.eevdf.is_some() && a.cmd != "import" {
        return Err("--eevdf is only for import".to_string());
    }
    if a.at.is_some() && a.cmd != "explain" {
        return Err("--at is only for explain".to_string());
    }
    if a.seconds.is_some() && a.cmd != "bench" && a.cmd != "bench-distribute" {
        return Err("--seconds is only for bench".to_string());
    }
    match a.cmd.as_str() {
        "simulate" => {
            let file = a.file.ok_or("simulate needs a scenario file")?;
            let text = read(&file)?;
            let (_, mut sim) = schedlab_engine::load(&file, &text, &a.variants)?;
            sim.fair.log.detailed = !a.events_only;
            sim.run();
            let s = Summary::of(&sim);
            if a.json {
                out(&format!("{}\n", serde_json::to_string_pretty(&s.to_json()).expect("json")))
            } else {
                out(&s.golden_text())
            }
        }
        "explain" => {
            let file = a.file.ok_or("explain needs a scenario file")?;
            let at = parse_time(&a.at.ok_or("explain needs --at <time>")?)?;
            let text = read(&file)?;
            let (_, mut sim) = schedlab_engine::load(&file, &text, &a.variants)?;
            if at > sim.cfg.duration_ns {
                return Err(format!("--at {at} ns is after the scenario's end ({} ns)", sim.cfg.duration_ns));
            }
            sim.run_until(at);
            let (json, text) = explain(&sim);
            if a.json {
                out(&format!("{}\n", serde_json::to_string_pretty(&json).expect("json")))
            } else {
                out(&text)
            }
        }
        "schema" => out(&schedlab_engine::scenario::json_schema_string()),
        "compare" => {
            let file = a.file.ok_or("compare needs a scenario file")?;
            let names = a.compare.ok_or("compare needs --variants A,B,... (see schedlab variants)")?;
            let text = read(&file)?;
            compare::run(&file, &text, &names, &a.variants, a.json).and_then(|s| out(&s))
        }
        "variants" => {
            let mut s = String::new();
            for v in schedlab_engine::scenario::variants::VARIANTS {
                let o: Vec<String> = v.overrides.iter().map(|(k, x)| format!("{k}={x}")).collect();
                s.push_str(&format!("{:<20} {:<32} {}\n", v.name, o.join(","), v.doc));
            }
            out(&s)
        }
        "gen" => match a.file.as_deref() {
            Some("aaron") => out(&aaron::scenario(384, 1100, 10_000, "1s")),
            Some("wanpeng") => {
                let vms = match a.vms.as_deref() {
                    None => 2,
                    Some(v) => v
                        .parse()
                        .ok()
                        .filter(|n| (1..=16).contains(n))
                        .ok_or_else(|| format!("--vms {v:?}: expected 1..=16"))?,
                };
                let guest = wanpeng::Guest { preset: a.preset.as_deref().unwrap_or("dedup"), locks: locks_arg(&a)? };
                let layout = host_layouts(&a, false)?[0];
                out(&wanpeng::scenario(guest, vms, 16, 16, a.duration.as_deref().unwrap_or("1s"), layout)?)
            }
            Some("trace") => {
                // The synthetic tracefs trace of `bench-import`, for the wasm and browser benches.
                let text = import::synthetic_trace((mb_arg(a.mb.as_deref())? as usize) << 20);
                std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes())
                    .map_err(|e| format!("writing the trace: {e}"))
            }
            other => Err(format!("gen {other:?}: expected gen aaron, gen wanpeng or gen trace")),
        },
        "wanpeng-table" => {
            let d = a.duration.as_deref().unwrap_or("200ms");
            parse_duration(d).map_err(|e| format!("--duration: {e}"))?;
            let mut pair = wanpeng_table::Pair { extra: a.variants.clone(), ..Default::default() };
            if let Some(v) = &a.compare {
                let (b, s) = v.split_once(',').ok_or_else(|| format!("--variants {v:?}: expected BASE,SERIES"))?;
                for name in [b, s] {
                    schedlab_engine::scenario::variants::find(name)
                        .ok_or_else(|| format!("--variants: unknown variant {name:?} (see schedlab variants)"))?;
                }
                (pair.base, pair.series) = (b.to_string(), s.to_string());
            }
            let presets: Vec<String> = match &a.presets {
                None => wanpeng_table::PRESETS.iter().map(|p| p.to_string()).collect(),
                Some(p) => p.split(',').map(|x| x.trim().to_string()).collect(),
            };
            wanpeng_table::table(d, &host_layouts(&a, true)?, &pair, &presets, locks_arg(&a)?)
        }
        "bench-kvm" => {
            let guest = wanpeng::Guest { preset: a.preset.as_deref().unwrap_or("vips"), locks: locks_arg(&a)? };
            wanpeng_table::bench(guest, host_layouts(&a, false)?[0])
        }
        "bench-distribute" => {
            let secs = a.seconds.as_deref().unwrap_or("1");
            let s: u64 = secs
                .parse()
                .ok()
                .filter(|n| (1..=60).contains(n))
                .ok_or_else(|| format!("--seconds {secs:?}: expected 1..=60"))?;
            aaron::bench(384, 1100, 10_000, &format!("{s}s"))
        }
        "replay" => {
            let file = a.file.ok_or("replay needs a trace file")?;
            replay::run(&file, a.cgroups.as_deref(), &a.variants, a.json, a.emit_scenario).and_then(|s| out(&s))
        }
        "lessons" => lessons::run(a.file.as_deref().unwrap_or("lessons")).and_then(|s| out(&s)),
        "import" => {
            let file = a.file.ok_or("import needs a trace file")?;
            import::run(&file, a.eevdf.as_deref(), a.json).and_then(|s| out(&s))
        }
        "bench-import" => import::bench(mb_arg(a.mb.as_deref())?),
        "bench" if a.file.is_some() => {
            let file = a.file.expect("checked");
            let text = read(&file)?;
            bench::run_file(&file, &text)
        }
        "bench" => {
            let secs: u64 = match a.seconds {
                Some(s) => s
                    .parse()
                    .ok()
                    .filter(|n| (1..=3600).contains(n))
                    .ok_or_else(|| format!("--seconds {s:?}: expected a whole number in 1..=3600"))?,
                None => 20,
            };
            bench::run(secs);
            Ok(())
        }
        other => Err(format!("unknown command {other:?}")),
    }
}

fn main() -> ExitCode {
    let argv: Result<Vec<String>, _> = std::env::args_os().skip(1).map(|a| a.into_string()).collect();
    let Ok(argv) = argv else {
        eprintln!("schedlab: an argument is not valid UTF-8");
        return ExitCode::from(2);
    };
    match run(&argv) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is_empty() => {
            println!("{USAGE}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("schedlab: {e}");
            if argv.is_empty() || e.starts_with("unknown") || e.starts_with("missing") {
                eprintln!("{USAGE}");
            }
            ExitCode::from(2)
        }
    }
}

/// `--mb N` (default 200, 1..=4096).
fn mb_arg(v: Option<&str>) -> Result<u64, String> {
    match v {
        None => Ok(200),
        Some(v) => {
            v.parse().ok().filter(|n| (1..=4096).contains(n)).ok_or_else(|| format!("--mb {v:?}: expected 1..=4096"))
        }
    }
}
