//! End-to-end tests of the `schedlab` binary: output shapes, determinism, variants, and the
//! bad-input contract (exit code 2, `schedlab: ...` on stderr, never a panic).

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

const NICE: &str = "scenarios/linux-6.18/nice-0-vs-2.toml";
const YIELD: &str = "scenarios/linux-6.18/yield-vs-hog.toml";
const SHORT: &str = "scenarios/gallery/short-slice.toml";

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

/// Runs `schedlab` from the repository root (so scenario paths are relative to it).
fn schedlab(args: &[&str]) -> Out {
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab")).args(args).current_dir(root()).output().expect("run schedlab");
    let out = Out {
        code: o.status.code().expect("schedlab was killed by a signal"),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    };
    assert!(!out.stderr.contains("panicked"), "schedlab {args:?} panicked:\n{}", out.stderr);
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn ok_json(args: &[&str]) -> Value {
    let o = schedlab(args);
    assert_eq!(o.code, 0, "schedlab {args:?} failed:\n{}", o.stderr);
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("schedlab {args:?}: bad JSON ({e}):\n{}", o.stdout))
}

/// A uniquely named scenario file in the temp dir, removed on drop.
struct TempFile(String);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Writes `bytes` to a fresh temp file.
fn temp_file(tag: &str, bytes: &[u8]) -> TempFile {
    static N: AtomicUsize = AtomicUsize::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("schedlab-cli-test-{}-{n}-{tag}.toml", std::process::id()));
    std::fs::write(&p, bytes).expect("write temp scenario");
    TempFile(p.to_str().expect("utf-8 temp path").to_string())
}

/// The nice-0-vs-2 scenario with one textual substitution (must apply).
fn nice_with(tag: &str, from: &str, to: &str) -> TempFile {
    let text = std::fs::read_to_string(root().join(NICE)).unwrap();
    assert!(text.contains(from), "{from:?} not in {NICE}");
    temp_file(tag, text.replacen(from, to, 1).as_bytes())
}

/// Asserts the bad-input contract and returns stderr.
fn fails(args: &[&str]) -> String {
    let o = schedlab(args);
    assert_eq!(o.code, 2, "schedlab {args:?}: expected exit 2, got {}\nstderr: {}", o.code, o.stderr);
    assert!(o.stderr.starts_with("schedlab: "), "schedlab {args:?}: stderr = {:?}", o.stderr);
    o.stderr
}

fn task<'a>(summary: &'a Value, name: &str) -> &'a Value {
    summary["tasks"].as_array().unwrap().iter().find(|t| t["name"] == name).unwrap_or_else(|| panic!("no task {name}"))
}

#[test]
fn simulate_json_shape_and_shares() {
    let s = ok_json(&["simulate", NICE, "--json"]);
    assert_eq!(s["scenario"], "linux-6.18/nice-0-vs-2");
    assert_eq!(s["duration_ns"], 1_503_938_000u64);
    let digest = s["digest"].as_str().expect("digest is a string");
    assert!(digest.len() == 16 && digest.chars().all(|c| c.is_ascii_hexdigit()), "digest {digest:?}");
    let tasks = s["tasks"].as_array().expect("tasks array");
    assert_eq!(tasks.len(), 2);
    for t in tasks {
        for k in [
            "name",
            "cpu_time_ns",
            "share_pct",
            "switches_out",
            "switches_out_runnable",
            "mean_run_ns",
            "yields",
            "wakeups",
        ] {
            assert!(!t[k].is_null(), "task lacks {k}: {t}");
        }
        for k in ["p50", "p99", "max"] {
            assert!(t["wakeup_latency_ns"][k].is_u64(), "task lacks wakeup_latency_ns.{k}: {t}");
        }
        // The SMP metrics: migrations, and the CPU time per CPU (one entry per CPU, summing
        // to the CPU time).
        assert!(t["migrations"].is_u64(), "task lacks migrations: {t}");
        let by_cpu = t["cpu_time_ns_by_cpu"].as_array().expect("cpu_time_ns_by_cpu array");
        assert_eq!(by_cpu.len(), s["cpu_idle_ns"].as_array().expect("cpu_idle_ns").len());
        assert_eq!(by_cpu.iter().map(|v| v.as_u64().unwrap()).sum::<u64>(), t["cpu_time_ns"].as_u64().unwrap());
    }
    let over = s["idle_while_overloaded_ns"].as_array().expect("idle_while_overloaded_ns array");
    assert_eq!(over.len(), s["cpu_idle_ns"].as_array().unwrap().len());
    let sum: f64 = tasks.iter().map(|t| t["share_pct"].as_f64().unwrap()).sum();
    assert!((sum - 100.0).abs() < 0.1, "shares sum to {sum}");
    let a = task(&s, "k_a")["share_pct"].as_f64().unwrap();
    assert!((59.0..=63.0).contains(&a), "k_a share {a} (expected ~60.9, weights 1024:655)");
}

#[test]
fn simulate_text_output() {
    let o = schedlab(&["simulate", NICE]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let digest = ok_json(&["simulate", NICE, "--json"])["digest"].as_str().unwrap().to_string();
    assert!(o.stdout.contains(&format!("digest {digest}")), "text output:\n{}", o.stdout);
    assert!(o.stdout.contains("k_a") && o.stdout.contains("k_b"));
}

#[test]
fn digest_is_deterministic_and_variants_matter() {
    let digest = |args: &[&str]| ok_json(args)["digest"].as_str().unwrap().to_string();
    let base = digest(&["simulate", SHORT, "--json"]);
    assert_eq!(base, digest(&["simulate", SHORT, "--json"]), "two runs differ");
    let no_rtp = digest(&["simulate", SHORT, "--json", "--variant", "RUN_TO_PARITY=false"]);
    assert_ne!(base, no_rtp, "RUN_TO_PARITY=false changed nothing on {SHORT}");

    let yields = |extra: &[&str]| {
        let args: Vec<&str> = ["simulate", YIELD, "--json"].iter().chain(extra).copied().collect();
        task(&ok_json(&args), "k_y")["yields"].as_u64().unwrap()
    };
    let (forfeit, bump) = (yields(&[]), yields(&["--variant", "yield=deadline_bump"]));
    assert!(forfeit > 100, "default yields {forfeit}");
    assert!(bump > 10 * forfeit, "deadline_bump yields {bump} vs default {forfeit}");
}

#[test]
fn explain_text() {
    let o = schedlab(&["explain", NICE, "--at", "10ms"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for needle in [
        "cpu 1",
        "V(avg_vruntime)",
        "pick at",
        "on the root cfs_rq",
        "had the earliest virtual deadline",
        "Eligible (lag ≥ 0",
    ] {
        assert!(o.stdout.contains(needle), "explain lacks {needle:?}:\n{}", o.stdout);
    }
}

#[test]
fn explain_json() {
    let e = ok_json(&["explain", NICE, "--at", "10ms", "--json"]);
    let cpus = e["cpus"].as_array().expect("cpus array");
    assert_eq!(cpus.len(), 2);
    for c in cpus {
        assert!(c["entities"].is_array(), "cpu lacks entities: {c}");
        assert!(c.get("last_pick").is_some(), "cpu lacks last_pick: {c}");
    }
    // CPU 1 runs both hogs, so by 10 ms a pick has been made there.
    let busy = &cpus[1];
    assert_eq!(busy["entities"].as_array().unwrap().len(), 2);
    // One pick per level of the last decision; these tasks sit on the root cfs_rq.
    let levels = busy["last_pick"].as_array().expect("last_pick levels");
    assert_eq!(levels.len(), 1);
    assert_eq!(levels[0]["level"], "the root cfs_rq");
    let cands = levels[0]["candidates"].as_array().expect("last_pick.candidates");
    assert!(!cands.is_empty());
}

/// `schedlab state` prints the browser inspector's JSON: the same pick as `explain` at that
/// instant, named by its stable reason, with its words.
#[test]
fn state_json_is_the_inspector_state() {
    let e = ok_json(&["explain", NICE, "--at", "10ms", "--json"]);
    let s = ok_json(&["state", NICE, "--at", "10ms"]);
    assert_eq!(s["t"], 10_000_000);
    let (cpus, busy) = (s["cpus"].as_array().expect("cpus"), &s["cpus"][1]);
    assert_eq!(cpus.len(), 2);
    assert_eq!(busy["entities"].as_array().unwrap().len(), 2);
    let (pick, last) = (&busy["pick"], &e["cpus"][1]["last_pick"][0]);
    assert_eq!(pick["t"], last["t"], "the latest pick at or before the cursor: {pick}");
    assert_eq!(pick["reason"], last["reason"]);
    assert_eq!(pick["why"], last["why"]);
    assert_eq!(pick["level"], "the root cfs_rq");
    assert_eq!(pick["levels"].as_array().unwrap().len(), 1);
    assert_eq!(s["tasks"].as_array().unwrap().len(), 2);
    let msg = fails(&["state", NICE, "--at", "2s"]);
    assert!(msg.contains("after the scenario's end"), "{msg}");
}

#[test]
fn schema_matches_committed_file() {
    let printed = ok_json(&["schema"]);
    let committed: Value =
        serde_json::from_str(&std::fs::read_to_string(root().join("scenarios/schema/scenario.schema.json")).unwrap())
            .unwrap();
    assert_eq!(printed, committed, "regenerate scenarios/schema/scenario.schema.json");
}

#[test]
fn bad_files() {
    let msg = fails(&["simulate", "/nonexistent/schedlab/nothing.toml"]);
    assert!(msg.contains("nothing.toml"), "{msg}");
    fails(&["simulate", std::env::temp_dir().to_str().unwrap()]);
    fails(&["simulate", &temp_file("empty", b"").0]);
    fails(&["simulate", &temp_file("garbage", b"\xff\xfe\x00\x80 name = \xc3\x28\n\x00\x01").0]);

    let syntax = temp_file("syntax", b"version = 1\nname = \"x\"\nduration = \"1s\" oops\n");
    let msg = fails(&["simulate", &syntax.0]);
    assert!(msg.contains(&format!("{}:3:", syntax.0)), "expected {}:3:<col>: in {msg}", syntax.0);

    let msg = fails(&["simulate", &nice_with("unknown-field", "seed = 1", "seed = 1\nbogus = 3").0]);
    assert!(msg.contains("bogus"), "{msg}");
    let msg = fails(&["simulate", &nice_with("bad-duration", "\"1.5s\"", "\"3oous\"").0]);
    assert!(msg.contains("3oous"), "{msg}");
    let msg = fails(&["simulate", &nice_with("affinity", "affinity = [1]", "affinity = [7]").0]);
    assert!(msg.contains('7'), "{msg}");
}

#[test]
fn bad_arguments() {
    let msg = fails(&["frobnicate"]);
    assert!(msg.contains("unrecognized subcommand 'frobnicate'") && msg.contains("Usage: schedlab"), "{msg}");
    let msg = fails(&[]);
    assert!(msg.contains("missing command") && msg.contains("simulate"), "{msg}");
    fails(&["simulate"]);
    fails(&["explain", NICE]);
    fails(&["simulate", NICE, "--frob"]);
    fails(&["simulate", NICE, NICE]);
    fails(&["simulate", NICE, "--variant"]);
    let msg = fails(&["simulate", NICE, "--variant", "RUN_TO_PARITY"]);
    assert!(msg.contains("--variant \"RUN_TO_PARITY\": expected NAME=VALUE"), "{msg}");
    let msg = fails(&["simulate", NICE, "--variant", "NO_SUCH_FEATURE=1"]);
    assert!(msg.contains("NO_SUCH_FEATURE"), "{msg}");
    fails(&["simulate", NICE, "--variant", "RUN_TO_PARITY=maybe"]);
    fails(&["simulate", NICE, "--variant", "cpus=0"]);
    let msg = fails(&["explain", NICE, "--at", "10xs"]);
    assert!(msg.contains("--at \"10xs\": unknown duration unit"), "{msg}");
    fails(&["explain", NICE, "--at", ""]);
    fails(&["explain", NICE, "--at", "99999999999999999999ms"]);
    let msg = fails(&["explain", NICE, "--at", "2s"]);
    assert!(msg.contains("end"), "{msg}");
    fails(&["bench", "--seconds", "abc"]);
    let msg = fails(&["bench", "--seconds", "0"]);
    assert!(msg.contains("--seconds \"0\": expected 1..=3600"), "{msg}");
    let msg = fails(&["bench-import", "--mb", "5000"]);
    assert!(msg.contains("--mb \"5000\": expected 1..=4096"), "{msg}");
    let msg = fails(&["simulate", NICE, "--log", "some"]);
    assert!(msg.contains("'--log <LOG>'") && msg.contains("full, events"), "{msg}");
    let msg = fails(&["wanpeng-table", "--variants", "baseline"]);
    assert!(msg.contains("--variants \"baseline\": expected BASE,SERIES"), "{msg}");
    let msg = fails(&["wanpeng-table", "--duration", "200"]);
    assert!(msg.contains("--duration \"200\": duration \"200\" has no unit"), "{msg}");
    let msg = fails(&["gen", "wanpeng", "--placement", "index", "--layout-seed", "3"]);
    assert!(msg.contains("--layout-seed and --layouts are for --placement unpinned"), "{msg}");
    let msg = fails(&["wanpeng-table", "--presets", "dbench,kbuild"]);
    assert!(msg.contains("\"kbuild\" is not a row"), "{msg}");
    let msg = fails(&["gen", "wanpeng", "--preset", "dbench", "--locks", "0"]);
    assert!(msg.contains("--locks \"0\": expected 1..=16"), "{msg}");
    fails(&["bench-kvm", "--locks", "x"]);
}

#[cfg(unix)]
#[test]
fn non_utf8_argument() {
    use std::os::unix::ffi::OsStrExt;
    let o = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args([std::ffi::OsStr::new("simulate"), std::ffi::OsStr::from_bytes(b"\xff.toml")])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("schedlab: ") && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn closed_stdout_is_not_a_panic() {
    // `schedlab explain ... | head -0`: the reader goes away before the output is written.
    let mut child = Command::new(env!("CARGO_BIN_EXE_schedlab"))
        .args(["explain", NICE, "--at", "1s", "--json"])
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(o.status.code(), Some(0), "{stderr}");
}

#[test]
fn explain_at_edges_is_accepted() {
    assert_eq!(schedlab(&["explain", NICE, "--at", "0"]).code, 0);
    assert_eq!(schedlab(&["explain", NICE, "--at", "1.5s"]).code, 0);
    assert_eq!(schedlab(&["explain", NICE, "--at", "1500000000"]).code, 0);
}

#[test]
fn bench_one_second() {
    let o = schedlab(&["bench", "--seconds", "1"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for which in ["(a)", "(b)"] {
        assert!(
            o.stdout.lines().any(|l| l.contains(which) && l.contains("events/s")),
            "no {which} events/s line:\n{}",
            o.stdout
        );
    }
}

#[test]
fn help() {
    for args in [&["--help"][..], &["-h"], &["help"], &["simulate", "--help"], &["help", "simulate"]] {
        let o = schedlab(args);
        assert_eq!(o.code, 0, "schedlab {args:?}: {}", o.stderr);
        assert!(o.stdout.contains("Usage: schedlab") && o.stdout.contains("schedlab simulate"), "{}", o.stdout);
    }
}

/// Every command (`gen`'s by their two words) and the flags it accepts: its own and no other's.
const COMMANDS: &[(&str, &[&str])] = &[
    ("simulate", &["--variant", "--json", "--log", "--perfetto"]),
    ("explain", &["--at", "--variant", "--json"]),
    ("state", &["--at", "--variant"]),
    ("compare", &["--variants", "--variant", "--json"]),
    ("variants", &[]),
    ("schema", &[]),
    ("bench", &["--seconds"]),
    ("gen aaron", &[]),
    ("gen wanpeng", &["--preset", "--vms", "--locks", "--duration", "--placement", "--groups", "--layout-seed"]),
    ("gen trace", &["--mb", "--seed"]),
    ("gen bench-b", &["--seconds"]),
    ("bench-distribute", &["--seconds"]),
    (
        "wanpeng-table",
        &[
            "--duration",
            "--layouts",
            "--placement",
            "--groups",
            "--layout-seed",
            "--variants",
            "--variant",
            "--presets",
            "--locks",
        ],
    ),
    ("bench-kvm", &["--preset", "--locks", "--placement", "--groups", "--layout-seed"]),
    ("import", &["--eevdf", "--json"]),
    (
        "replay",
        &[
            "--cgroups",
            "--pin",
            "--eevdf",
            "--cpu-avg",
            "--balance",
            "--variant",
            "--json",
            "--emit-scenario",
            "--seeds",
            "--tick-phases",
        ],
    ),
    ("diff", &["--json", "--match", "--noise", "--cpus"]),
    ("bench-import", &["--mb", "--perfetto"]),
    ("export", &["--compact", "--output", "--perfetto"]),
    ("bench-diff", &["--mb"]),
    ("lessons", &[]),
];

/// The long flags on the option lines of a short (`-h`) help.
fn help_flags(help: &str) -> Vec<String> {
    let mut v: Vec<String> = help
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with('-') && !l.starts_with("- "))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("--")))
        .map(|w| w.trim_end_matches(',').to_string())
        .collect();
    v.sort();
    v
}

/// The names listed under `Commands:` in a help text.
fn help_commands(help: &str) -> Vec<String> {
    let section = help.split("Commands:\n").nth(1).unwrap_or_else(|| panic!("no Commands: section in\n{help}"));
    section
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

#[test]
fn each_command_has_help_with_exactly_its_flags() {
    for (cmd, flags) in COMMANDS {
        let words: Vec<&str> = cmd.split(' ').collect();
        for h in ["-h", "--help"] {
            let args: Vec<&str> = words.iter().copied().chain([h]).collect();
            let o = schedlab(&args);
            assert_eq!(o.code, 0, "schedlab {args:?}: {}", o.stderr);
            assert!(o.stdout.contains(&format!("Usage: schedlab {cmd}")), "schedlab {args:?}:\n{}", o.stdout);
            // A one-line about first, then the usage.
            assert!(!o.stdout.starts_with("Usage") && !o.stdout.lines().next().unwrap().is_empty(), "{}", o.stdout);
            if h == "-h" {
                let mut want: Vec<String> = flags.iter().map(|f| f.to_string()).chain(["--help".into()]).collect();
                want.sort();
                assert_eq!(help_flags(&o.stdout), want, "schedlab {args:?}:\n{}", o.stdout);
            }
        }
    }
}

#[test]
fn top_level_help_lists_every_command() {
    let o = schedlab(&["--help"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut want: Vec<String> =
        COMMANDS.iter().map(|(c, _)| c.split(' ').next().unwrap().to_string()).chain(["help".into()]).collect();
    want.dedup();
    assert_eq!(help_commands(&o.stdout), want, "{}", o.stdout);
    let o = schedlab(&["gen", "--help"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(help_commands(&o.stdout), ["aaron", "wanpeng", "trace", "bench-b", "help"], "{}", o.stdout);
}

#[test]
fn an_unknown_flag_is_refused_naming_the_command() {
    for (cmd, _) in COMMANDS {
        let args: Vec<&str> = cmd.split(' ').chain(["--frob"]).collect();
        let msg = fails(&args);
        assert!(
            msg.contains("unexpected argument '--frob' found") && msg.contains(&format!("Usage: schedlab {cmd}")),
            "schedlab {args:?}: {msg}"
        );
    }
}

#[test]
fn a_flag_of_another_command_is_refused() {
    let msg = fails(&["simulate", NICE, "--locks", "2"]);
    assert!(msg.contains("unexpected argument '--locks'") && msg.contains("Usage: schedlab simulate"), "{msg}");
    let all: std::collections::BTreeSet<&str> = COMMANDS.iter().flat_map(|(_, f)| f.iter().copied()).collect();
    for (cmd, own) in COMMANDS {
        for flag in all.iter().filter(|f| !own.contains(f)) {
            let args: Vec<&str> = cmd.split(' ').chain([*flag, "1"]).collect();
            let msg = fails(&args);
            assert!(
                msg.contains(&format!("unexpected argument '{flag}' found"))
                    && msg.contains(&format!("Usage: schedlab {cmd}")),
                "schedlab {args:?}: {msg}"
            );
        }
    }
}

#[test]
fn exclusive_flags_are_refused_together() {
    for (args, a, b) in [
        (&["replay", NICE, "--json", "--emit-scenario"][..], "--json", "--emit-scenario"),
        (&["bench", NICE, "--seconds", "3"], "SCENARIO", "--seconds"),
        (&["wanpeng-table", "--layouts", "3", "--layout-seed", "2"], "--layouts", "--layout-seed"),
    ] {
        let msg = fails(args);
        assert!(msg.contains("cannot be used with") && msg.contains(a) && msg.contains(b), "schedlab {args:?}: {msg}");
    }
}

#[test]
fn compare_variants_json_and_text() {
    let topo = "scenarios/yield/prateek-topology-2.toml";
    let j = ok_json(&["compare", topo, "--variants", "baseline,debooster-v2,hier-yield", "--json"]);
    let vs = j["variants"].as_array().expect("variants");
    assert_eq!(vs.len(), 3);
    let c_share = |v: &serde_json::Value| {
        v["summary"]["tasks"].as_array().unwrap().iter().find(|t| t["name"] == "C").unwrap()["share_pct"]
            .as_f64()
            .unwrap()
    };
    assert!(c_share(&vs[1]) < c_share(&vs[0]) - 5.0, "the debooster charges C");
    assert!((c_share(&vs[2]) - c_share(&vs[0])).abs() < 1.0, "the hierarchical yield does not");
    let d = vs[1]["diff"].as_array().unwrap().iter().find(|t| t["name"] == "C").unwrap()["share_pct"].as_f64().unwrap();
    assert!(d < -5.0);
    let o = schedlab(&["compare", topo, "--variants", "baseline,hier-yield"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("C share %") && o.stdout.contains("hier-yield"), "{}", o.stdout);
    let bad = schedlab(&["compare", topo, "--variants", "baseline,nope"]);
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("unknown variant \"nope\""), "{}", bad.stderr);
    let list = schedlab(&["variants"]);
    assert!(list.stdout.contains("debooster-v1") && list.stdout.contains("yield_to=debooster_v1"), "{}", list.stdout);
}

/// The web app's import e2e test (`e2e/specs/import.spec.ts`) holds its diagnostics panel
/// against these files: they must stay what `schedlab import --json` prints for the real capture
/// (`traces/linux-6.18/nice-0-vs-2`) and the damaged trace of `e2e/fixtures/traces`.
/// Refresh with `UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli import_fixtures`.
const AB: &str = "traces/linux-6.18-ab";

#[test]
fn diff_json_shape_exit_code_and_flags() {
    let (a, b, c) =
        (format!("{AB}/base-1/trace.dat"), format!("{AB}/base-2/trace.dat"), format!("{AB}/shares-2048/trace.dat"));
    let same = ok_json(&["diff", &a, &b, "--json", "--noise", "5%"]);
    assert_eq!(same["flagged"], 0, "{same:#}");
    assert_eq!(same["rule"]["noise_pct"], 5.0);
    let row =
        |d: &Value, comm: &str| d["tasks"].as_array().unwrap().iter().find(|t| t["comm"] == comm).cloned().unwrap();
    let k_a = row(&same, "k_a");
    let names: Vec<&str> = k_a["figures"].as_array().unwrap().iter().map(|f| f["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "cpu",
            "latency_p50",
            "latency_p90",
            "latency_p99",
            "latency_max",
            "wakeups",
            "switches",
            "involuntary",
            "migrations"
        ]
    );
    for key in ["unit", "a", "b", "delta", "relative_pct", "counts", "flagged"] {
        assert!(k_a["figures"][0].get(key).is_some(), "figure has no {key}: {k_a:#}");
    }
    assert_eq!(same["cpus"].as_array().unwrap().len(), 1);
    assert!(same["a"]["window_ns"].as_u64().unwrap() > 1_000_000_000);
    // Doubled shares: k_a's CPU time flagged up, k_b's down; the exit code stays 0.
    let two = ok_json(&["diff", &a, &c, "--json"]);
    let cpu = |d: &Value, comm: &str| row(d, comm)["figures"][0].clone();
    assert_eq!(
        (cpu(&two, "k_a")["flagged"].clone(), cpu(&two, "k_b")["flagged"].clone()),
        (Value::Bool(true), Value::Bool(true))
    );
    assert!(cpu(&two, "k_a")["delta"].as_f64().unwrap() > 10.0 && cpu(&two, "k_b")["delta"].as_f64().unwrap() < -10.0);
    // The text table marks the same figures.
    let o = schedlab(&["diff", &a, &c]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let k_a_line = o.stdout.lines().find(|l| l.starts_with("k_a (1/1)")).unwrap();
    assert!(k_a_line.contains("cpu %") && k_a_line.trim_end().ends_with('*'), "{k_a_line}");
    // --cpus: only CPU 0, which the captures did not record: no CPU row, no CPU time.
    let none = ok_json(&["diff", &a, &c, "--json", "--cpus", "0"]);
    assert_eq!(none["cpus"].as_array().unwrap().len(), 0);
    assert_eq!(row(&none, "k_a")["cpu_ns_a"], 0);
    let msg = fails(&["diff", &a, &c, "--cpus", "1,x"]);
    assert!(msg.contains("--cpus \"1,x\": expected CPU numbers"), "{msg}");
    // --match renames; bad input is located.
    let m = ok_json(&["diff", &a, &b, "--json", "--match", "k_a=k_b"]);
    assert_eq!(row(&m, "k_a")["comm_b"], "k_b");
    let msg = fails(&["diff", &a, &b, "--match", "k_z=k_b"]);
    assert!(msg.contains("--match k_z=k_b: A has no task named \"k_z\""), "{msg}");
    let msg = fails(&["diff", &a, &b, "--noise", "five"]);
    assert!(msg.contains("--noise \"five\": expected a percentage"), "{msg}");
    let msg = fails(&["diff", &a, "nope.dat"]);
    assert!(msg.contains("nope.dat: cannot read"), "{msg}");
    let msg = fails(&["diff", &a, "scenarios/linux-6.18/nice-0-vs-2.toml"]);
    // A file in no trace format is refused by the reader (as by `import`).
    assert!(
        msg.contains("nice-0-vs-2.toml: not a trace schedlab reads: it looks like text of an unknown tool"),
        "{msg}"
    );
}

#[test]
fn import_fixtures_match_the_e2e_expectations() {
    let dir = root().join("e2e/fixtures/traces");
    for (path, name) in [
        ("traces/linux-6.18/nice-0-vs-2/trace.txt", "nice-0-vs-2.trace.txt"),
        ("traces/linux-6.18/nice-0-vs-2/trace.dat", "nice-0-vs-2.trace.dat"),
        ("traces/linux-6.18/nice-0-vs-2/eevdf-state.txt", "nice-0-vs-2.eevdf-state.txt"),
        ("e2e/fixtures/traces/malformed.trace.txt", "malformed.trace.txt"),
    ] {
        let got = ok_json(&["import", path, "--json"]);
        let expect = dir.join(format!("{name}.import.json"));
        if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
            std::fs::write(&expect, format!("{}\n", serde_json::to_string_pretty(&got).unwrap())).unwrap();
        }
        let want: Value = serde_json::from_str(&std::fs::read_to_string(&expect).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{}: {e}; refresh with UPDATE_EXPECT=1", expect.display()));
        assert_eq!(
            got, want,
            "{name}: refresh with UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli import_fixtures"
        );
    }
}

/// The import e2e test's SMP shadow (issue 18) reads the placement agreement and per-task CPU
/// time and migrations the browser shows against what `schedlab replay --json` prints for
/// `traces/linux-6.18-smp/nice-imbalance-smp/trace.txt` (tasks free, the default).
/// Refresh with `UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli replay_fixture`.
#[test]
fn replay_fixture_matches_the_e2e_expectations() {
    for capture in ["nice-imbalance-smp", "three-hogs-two-cpus"] {
        let trace = format!("traces/linux-6.18-smp/{capture}/trace.txt");
        let got = ok_json(&["replay", &trace, "--json"]);
        let expect = root().join(format!("e2e/fixtures/traces/{capture}.trace.txt.replay.json"));
        if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
            std::fs::write(&expect, format!("{}\n", serde_json::to_string_pretty(&got).unwrap())).unwrap();
        }
        let want: Value = serde_json::from_str(&std::fs::read_to_string(&expect).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{}: {e}; refresh with UPDATE_EXPECT=1", expect.display()));
        assert_eq!(got, want, "refresh with UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli replay_fixture");
        assert_eq!(got["pin"], "free");
    }
}

/// Issue 16: `schedlab replay` takes a trace with a zero-length sleep and a zero-length run, and
/// what it still refuses is located at the trace or the layout file, never at the generated
/// scenario (`replay/...:0:0`).
#[test]
fn replay_takes_zero_length_steps_and_locates_refusals() {
    let sw = |ts: &str, p: (&str, u32), state: &str, n: (&str, u32)| {
        format!(
            "{:>16}-{:<5} [001] d..2. {ts}: sched_switch: prev_comm={} prev_pid={} prev_prio=120 prev_state={state} \
             ==> next_comm={} next_pid={} next_prio=120\n",
            p.0, p.1, p.0, p.1, n.0, n.1
        )
    };
    let (idle, a, b) = (("swapper/1", 0), ("k_a", 100), ("k_b", 101));
    let wake = "             k_b-101   [001] d..2. 1.000100: sched_wakeup: comm=k_a pid=100 prio=120 target_cpu=001\n";
    let trace = [
        sw("1.000000", idle, "R", a),
        sw("1.000100", a, "S", b),
        wake.to_string(), // at the nanosecond k_a slept
        sw("1.000200", b, "R+", a),
        sw("1.000200", a, "S", b), // k_a ran 0 ns
        sw("1.000300", b, "R+", idle),
    ]
    .concat();
    let t = temp_file("zero-length-trace", trace.as_bytes());
    let r = ok_json(&["replay", &t.0, "--json"]);
    assert!(r["decisions"]["agreement_pct"].is_number(), "{r}");
    assert_eq!(r["tasks"].as_array().unwrap().len(), 2, "{r}");

    let wakeups = temp_file("wakeups-only", wake.as_bytes());
    let e = fails(&["replay", &wakeups.0]);
    assert!(e.starts_with(&format!("schedlab: {}: the trace has no sched_switch records", wakeups.0)), "{e}");

    // Issue 18: the report's SMP fields, free by default, pinned with --pin observed.
    for (pin, want) in [(None, "free"), (Some("observed"), "observed")] {
        let mut args = vec!["replay", &t.0, "--json"];
        if let Some(p) = pin {
            args.extend(["--pin", p]);
        }
        let r = ok_json(&args);
        assert_eq!(r["pin"], want, "{r}");
        assert!(r["placement_agreement_pct"].is_number(), "{r}");
        for k in ["observed_ns", "simulated_ns", "observed_migrations", "simulated_migrations"] {
            assert!(r["tasks"][0][k].is_number(), "{k}: {r}");
        }
    }
    let e = fails(&["replay", &t.0, "--pin", "everywhere"]);
    assert!(e.contains("--pin: expected \"free\" or \"observed\", got \"everywhere\""), "{e}");

    let layout = temp_file("layout", b"hz = 250\n[tasks]\nk_z = \"/\"\n");
    let e = fails(&["replay", &t.0, "--cgroups", &layout.0]);
    assert_eq!(e.trim_end(), format!("schedlab: {}:3:1: task \"k_z\" (in /) is not in the trace {}", layout.0, t.0));
}

/// The A/B e2e test (`e2e/specs/ab.spec.ts`) reads the browser's diff table against these files:
/// they must stay what `schedlab diff A B --json` prints for the A/B captures
/// (`traces/linux-6.18-ab`: `base-1` against `base-2` and against `shares-2048`, default noise).
/// Refresh with `UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli diff_fixtures`.
#[test]
fn diff_fixtures_match_the_ab_e2e_expectations() {
    for b in ["base-2", "shares-2048"] {
        let got = ok_json(&["diff", &format!("{AB}/base-1/trace.dat"), &format!("{AB}/{b}/trace.dat"), "--json"]);
        let expect = root().join(format!("e2e/fixtures/traces/ab.base-1.{b}.diff.json"));
        if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
            std::fs::write(&expect, format!("{}\n", serde_json::to_string_pretty(&got).unwrap())).unwrap();
        }
        let want: Value = serde_json::from_str(&std::fs::read_to_string(&expect).unwrap_or_default())
            .unwrap_or_else(|e| panic!("{}: {e}; refresh with UPDATE_EXPECT=1", expect.display()));
        assert_eq!(got, want, "{b}: refresh with UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli diff_fixtures");
    }
}

const PFTRACE: &str = "wasm-engine/engine/tests/fixtures/perfetto/nice-0-vs-2.compact.pftrace";

#[test]
fn import_reads_a_perfetto_trace() {
    let s = ok_json(&["import", PFTRACE, "--json"]);
    assert_eq!(s["format_name"], "Perfetto protobuf trace");
    assert_eq!(s["binary"], "Perfetto protobuf trace");
    assert_eq!(s["events"]["sched_switch"], 1022);
    assert_eq!(s["events"]["sched_wakeup"], 381);
    assert_eq!(s["lines_skipped"], 0);
    let text = schedlab(&["import", PFTRACE]);
    assert_eq!(text.code, 0);
    assert!(text.stdout.starts_with("Perfetto protobuf trace: "), "{}", text.stdout);
    assert!(text.stdout.contains("(1 compact_sched)") || text.stdout.contains("compact_sched)"), "{}", text.stdout);
}

#[test]
fn export_perfetto_round_trips_through_import() {
    let out = temp_file("export", b"");
    let o = schedlab(&["export", "--perfetto", "traces/linux-6.18/nice-0-vs-2/trace.txt", "-o", &out.0]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("1022 sched_switch"), "{}", o.stdout);
    let back = ok_json(&["import", &out.0, "--json"]);
    let orig = ok_json(&["import", "traces/linux-6.18/nice-0-vs-2/trace.txt", "--json"]);
    assert_eq!(back["events"], orig["events"]);
    assert_eq!(back["first_ts_ns"], orig["first_ts_ns"]);
    assert_eq!(back["last_ts_ns"], orig["last_ts_ns"]);
    let err = fails(&["export", "traces/linux-6.18/nice-0-vs-2/trace.txt", "-o", &out.0]);
    assert!(err.contains("--perfetto"), "{err}");
}

#[test]
fn simulate_writes_the_run_as_perfetto() {
    let out = temp_file("simperfetto", b"");
    let scenario = "scenarios/gallery/sleeper-vs-hog.toml";
    let o = schedlab(&["simulate", scenario, "--perfetto", &out.0, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stderr.contains("Perfetto protobuf trace"), "{}", o.stderr);
    let sum: serde_json::Value = serde_json::from_str(&o.stdout).expect("the summary as JSON");
    let back = ok_json(&["import", &out.0, "--json"]);
    assert_eq!(back["format_name"], "Perfetto protobuf trace");
    assert_eq!(back["events"]["sched_switch"], sum["switches"], "{back}");
    assert!(back["events"]["sched_wakeup"].as_u64().unwrap() > 0, "{back}");
    let err = fails(&["simulate", scenario, "--perfetto", "/nonexistent-dir/x.pftrace"]);
    assert!(err.contains("/nonexistent-dir/x.pftrace: cannot write"), "{err}");
}

/// A file in no supported format is refused (exit 2) with what it looks like.
#[test]
fn import_refuses_files_in_no_supported_format() {
    let err = fails(&["import", NICE]);
    assert!(err.contains("not a trace schedlab reads") && err.contains("text of an unknown tool"), "{err}");
    assert!(err.contains("first line:"), "{err}");
    let proto = temp_file("proto", &[0x10, 0x05, 0x1a, 0x02, b'a', b'b', 0x10, 0x80, 0x01, 0x25, 1, 2, 3, 4]);
    let err = fails(&["import", &proto.0]);
    assert!(err.contains("binary protobuf data, but not a Perfetto trace"), "{err}");
    let bin = temp_file("bin", &[0xff, 0xfe, 0x00, 0x07, 0x80, 0x81, 0x00, 0x00, 0xff, 0xff, 0x00, 0x13]);
    let err = fails(&["import", &bin.0]);
    assert!(err.contains("binary data"), "{err}");
    let gz = temp_file("gz", &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 0, 0]);
    assert!(fails(&["import", &gz.0]).contains("gzip"));
    let empty = temp_file("empty", b"");
    assert!(fails(&["import", &empty.0]).contains("an empty file"));
    // A Perfetto trace cut in the middle: what came before is read, the damage located.
    let bytes = std::fs::read(root().join(PFTRACE)).unwrap();
    let cut = temp_file("cut", &bytes[..bytes.len() / 2]);
    let s = ok_json(&["import", &cut.0, "--json"]);
    let reasons: Vec<&str> = s["skipped"].as_array().unwrap().iter().map(|r| r["reason"].as_str().unwrap()).collect();
    assert!(reasons.iter().any(|r| r.contains("the file ends")), "{reasons:?}");
}

/// `replay --cpu-avg`: a capture of `traces/linux-6.18-smp-cpuavg` with its dump, in text and
/// JSON; a dump given to `import`, and a trace given as the dump, are named for what they are.
#[test]
fn replay_at_the_kernels_cpu_averages() {
    let dir = "traces/linux-6.18-smp-cpuavg";
    let (trace, dump, layout) = (
        format!("{dir}/cgroup-shares-smp/trace.dat"),
        format!("{dir}/cgroup-shares-smp/cpu-avg.txt"),
        format!("{dir}/cgroup-shares-smp.layout.toml"),
    );
    let o = schedlab(&["replay", &trace, "--cgroups", &layout, "--cpu-avg", &dump]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("cpu averages dump: 690 samples (438 of 438 inside the trace on their switch)"),
        "{}",
        o.stdout
    );
    let j = ok_json(&["replay", &trace, "--cgroups", &layout, "--cpu-avg", &dump, "--json"]);
    assert_eq!(j["decisions"]["cpu_avg"]["used"], true, "{}", j["decisions"]["cpu_avg"]);
    assert_eq!(j["decisions"]["placements"]["agreed"], 73, "{}", j["decisions"]["placements"]);
    let without = ok_json(&["replay", &trace, "--cgroups", &layout, "--json"]);
    assert_eq!(without["decisions"]["cpu_avg"], Value::Null);
    assert_eq!(without["decisions"]["placements"]["agreed"], 70);
    assert!(fails(&["import", &dump]).contains("--cpu-avg THIS-FILE"));
    assert!(fails(&["replay", &trace, "--cpu-avg", &trace]).contains("found binary data (is it the trace?)"));
    assert!(
        fails(&["replay", &trace, "--cpu-avg", &layout]).contains("cgroup-shares-smp.layout.toml:1:1: expected `@c[`")
    );
}

/// `replay --balance`: a capture of `traces/linux-6.18-smp-balance` with its dump of the balance
/// passes, in text and JSON; the dump given to `import`, a trace given as the dump, and a
/// malformed line are named for what they are.
#[test]
fn replay_asks_each_balance_pass() {
    let dir = "traces/linux-6.18-smp-balance";
    let (trace, dump, layout) = (
        format!("{dir}/three-hogs-two-cpus-3/trace.dat"),
        format!("{dir}/three-hogs-two-cpus-3/balance.txt"),
        format!("{dir}/three-hogs-two-cpus-3.layout.toml"),
    );
    let o = schedlab(&["replay", &trace, "--cgroups", &layout, "--balance", &dump]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("balance passes: the model, asked each pass the kernel ran"), "{}", o.stdout);
    assert!(o.stdout.contains("decided as the kernel did at 63 of 65 (96.9 %)"), "{}", o.stdout);
    let j = ok_json(&["replay", &trace, "--cgroups", &layout, "--balance", &dump, "--json"]);
    let b = &j["decisions"]["balance_passes"];
    assert_eq!(
        (b["used"].as_bool(), b["scored"].as_u64(), b["agreed"].as_u64()),
        (Some(true), Some(65), Some(63)),
        "{b}"
    );
    assert!(b["outcomes"].as_array().unwrap().iter().any(|o| o["kernel"] == "moved" && o["model"] == "moved"), "{b}");
    let without = ok_json(&["replay", &trace, "--cgroups", &layout, "--json"]);
    assert_eq!(without["decisions"]["balance_passes"], Value::Null);
    assert!(fails(&["import", &dump]).contains("--balance THIS-FILE"));
    assert!(fails(&["replay", &trace, "--balance", &trace]).contains("found binary data (is it the trace?)"));
    assert!(fails(&["replay", &trace, "--balance", &layout])
        .contains("three-hogs-two-cpus-3.layout.toml:1:1: expected `@s[`"));
    // Softirqs in which no domain's last_balance moved: read, and reported as holding no pass.
    let idle = std::env::temp_dir().join(format!("schedlab-no-pass-{}.txt", std::process::id()));
    let header = schedlab_engine::import::balance::HEADER;
    std::fs::write(
        &idle,
        format!("{header}\n@s[5, 1, 0]: (0, 4, 100, 104, 1, 7)\n@s[9, 1, 1]: (0, 4, 100, 104, 1, 7)\n"),
    )
    .unwrap();
    let o = schedlab(&["replay", &trace, "--cgroups", &layout, "--balance", idle.to_str().unwrap()]);
    std::fs::remove_file(&idle).ok();
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("balance passes dump: its softirq records hold no balance pass"), "{}", o.stdout);
}

#[test]
fn replay_seeds_gives_each_task_a_range() {
    let dir = "traces/linux-6.18-smp-balance";
    let (trace, layout) =
        (format!("{dir}/three-hogs-two-cpus-2/trace.dat"), format!("{dir}/three-hogs-two-cpus-2.layout.toml"));
    let o = schedlab(&[
        "replay",
        &trace,
        "--cgroups",
        &layout,
        "--variant",
        "tick_ahead=11.4",
        "--variant",
        "timekeeper=1",
        "--seeds",
        "4",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("(tick_ahead=11.4 timekeeper=1) under seeds 1 to 4"), "{}", o.stdout);
    // Each hog's row: real, least, mean, most; the late passes make the seeds differ.
    let rows: Vec<Vec<f64>> = o
        .stdout
        .lines()
        .filter(|l| l.starts_with("k_"))
        .map(|l| l.split_whitespace().skip(1).take(4).map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 3, "{}", o.stdout);
    for r in &rows {
        assert!(r[1] <= r[2] && r[2] <= r[3], "{r:?}");
    }
    assert!(rows.iter().any(|r| r[3] > r[1]), "{}", o.stdout);
    assert!(!o.stdout.contains("every seed gave the same run"), "{}", o.stdout);
    // Without a seeded behaviour every seed runs the same course, and it says so.
    let same = schedlab(&["replay", &trace, "--cgroups", &layout, "--seeds", "2"]);
    assert!(same.stdout.contains("every seed gave the same run"), "{}", same.stdout);
    assert!(fails(&["replay", &trace, "--seeds", "0"]).contains("--seeds 0: expected 1 to 64"));
    assert!(fails(&["replay", &trace, "--seeds", "2", "--emit-scenario"]).contains("cannot be used with"));
    // `--json`: the same table as the browser gets it (`SpreadTable`).
    let j = ok_json(&["replay", &trace, "--cgroups", &layout, "--seeds", "2", "--json"]);
    assert_eq!((j["runs"].as_u64(), j["under"].as_str()), (Some(2), Some("under seeds 1 to 2")));
    assert!(j["same"].as_str().is_some_and(|s| s.starts_with("every seed gave the same run")), "{j}");
}

/// `--tick-phases N`: the shadow with its ticks at N phases of the period. The three hogs'
/// course depends on where the ticks fall (their rows spread); two pinned hogs' hardly does.
/// The report line says where the trace's ticks are and the variant that aligns them.
#[test]
fn replay_tick_phases_shows_how_far_the_ticks_decide() {
    let rows = |o: &Out| -> Vec<Vec<f64>> {
        o.stdout
            .lines()
            .filter(|l| l.starts_with("k_"))
            .map(|l| l.split_whitespace().skip(1).take(4).map(|x| x.parse().unwrap()).collect())
            .collect()
    };
    let hogs = (
        "traces/linux-6.18-smp/three-hogs-two-cpus/trace.dat",
        "traces/linux-6.18-smp/three-hogs-two-cpus.layout.toml",
    );
    let o = schedlab(&["replay", hogs.0, "--cgroups", hogs.1, "--tick-phases", "4"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("(baseline) with its ticks at 4 phases of the 4 ms period"), "{}", o.stdout);
    let r = rows(&o);
    assert_eq!(r.len(), 3, "{}", o.stdout);
    assert!(r.iter().all(|r| r[1] <= r[2] && r[2] <= r[3]), "{r:?}");
    assert!(r.iter().any(|r| r[3] - r[1] > 2.0), "the hogs' rotation depends on the ticks: {}", o.stdout);
    let pinned = ("traces/linux-6.18/nice-0-vs-2/trace.dat", "traces/linux-6.18/nice-0-vs-2.layout.toml");
    let o = schedlab(&["replay", pinned.0, "--cgroups", pinned.1, "--tick-phases", "4"]);
    assert!(rows(&o).iter().all(|r| r[3] - r[1] < 0.5), "{}", o.stdout);
    let o = schedlab(&["replay", pinned.0, "--cgroups", pinned.1]);
    assert!(o.stdout.contains("ticks: the shadow's at +0.000 ms of each period, the trace's at +"), "{}", o.stdout);
    let o = schedlab(&["replay", pinned.0, "--cgroups", pinned.1, "--variant", "tick_phase=trace"]);
    assert!(o.stdout.contains("of each period, at the trace's"), "{}", o.stdout);
    assert!(fails(&["replay", pinned.0, "--tick-phases", "65"]).contains("--tick-phases 65: expected 1 to 64"));
    assert!(fails(&["replay", pinned.0, "--tick-phases", "2", "--seeds", "2"]).contains("cannot be used with"));
}

/// The import e2e test's spread reads the table the browser shows against what `schedlab
/// replay --tick-phases 4 --json` prints for `traces/linux-6.18-smp/three-hogs-two-cpus/trace.txt`.
/// Refresh with `UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli spread_fixture`.
#[test]
fn spread_fixture_matches_the_e2e_expectations() {
    let trace = "traces/linux-6.18-smp/three-hogs-two-cpus/trace.txt";
    let got = ok_json(&["replay", trace, "--tick-phases", "4", "--json"]);
    let expect = root().join("e2e/fixtures/traces/three-hogs-two-cpus.trace.txt.spread.json");
    if std::env::var("UPDATE_EXPECT").is_ok_and(|v| v == "1") {
        std::fs::write(&expect, format!("{}\n", serde_json::to_string_pretty(&got).unwrap())).unwrap();
    }
    let want: Value = serde_json::from_str(&std::fs::read_to_string(&expect).unwrap_or_default())
        .unwrap_or_else(|e| panic!("{}: {e}; refresh with UPDATE_EXPECT=1", expect.display()));
    assert_eq!(got, want, "refresh with UPDATE_EXPECT=1 cargo test -p schedlab-cli --test cli spread_fixture");
    assert_eq!(got["runs"], 4);
    assert!(got["rows"].as_array().is_some_and(|r| r
        .iter()
        .filter(|t| t["name"].as_str().is_some_and(|n| n.starts_with("k_")))
        .count()
        == 3));
}
