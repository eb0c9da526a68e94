//! Scenario loading: valid files parse (TOML and JSON alike), every class of error is
//! reported at the right line and column, CLI variants apply, and no input panics.

#![allow(clippy::disallowed_methods)] // tests read and write fixture files

use schedlab_engine::scenario::{
    apply_variant, parse_scenario, validate, OpSpec, ScenarioError, ScenarioFile, TunableScaling, YieldMode,
};

const TOML: &str = r#"version = 1
name = "sleeper-vs-hog"
seed = 1
duration = "1.5s"
[host]
cpus = 2
hz = 250
[kernel.features]
RUN_TO_PARITY = true
[[tasks]]
name = "k_s"
affinity = [1]
program = [ { loop = { body = [ { spin = "300us" }, { sleep = "700µs" } ] } } ]
[[tasks]]
name = "k_h"
nice = 2
affinity = [1]
program = [ { run = "forever" } ]
"#;

const JSON: &str = r#"{
  "version": 1,
  "name": "sleeper-vs-hog",
  "seed": 1,
  "duration": "1.5s",
  "host": { "cpus": 2, "hz": 250 },
  "kernel": { "features": { "RUN_TO_PARITY": true } },
  "tasks": [
    { "name": "k_s", "affinity": [1],
      "program": [ { "loop": { "body": [ { "spin": "300us" }, { "sleep": 700000 } ] } } ] },
    { "name": "k_h", "nice": 2, "affinity": [1], "program": [ { "run": "forever" } ] }
  ]
}
"#;

fn toml_err(from: &str, to: &str) -> ScenarioError {
    let text = TOML.replacen(from, to, 1);
    assert_ne!(text, TOML, "replacement {from:?} did not apply");
    parse_scenario("s.toml", &text).expect_err("should fail")
}

fn json_err(from: &str, to: &str) -> ScenarioError {
    let text = JSON.replacen(from, to, 1);
    assert_ne!(text, JSON, "replacement {from:?} did not apply");
    parse_scenario("s.json", &text).expect_err("should fail")
}

#[track_caller]
fn at(e: &ScenarioError, line: usize, column: usize, needle: &str) {
    assert_eq!((e.line, e.column), (line, column), "wrong location for: {e}");
    assert!(e.message.contains(needle), "message lacks {needle:?}: {e}");
}

#[test]
fn valid_toml_parses() {
    let s = parse_scenario("s.toml", TOML).unwrap();
    assert_eq!(s.name, "sleeper-vs-hog");
    assert_eq!(s.duration.ns(), 1_500_000_000);
    assert_eq!(s.host.cpus, 2);
    assert_eq!(s.host.tunable_scaling, TunableScaling::Log);
    assert_eq!(s.kernel.features.get("RUN_TO_PARITY"), Some(&true));
    assert_eq!(s.tasks.len(), 2);
    assert_eq!(s.tasks[1].nice, 2);
    assert_eq!(s.tasks[1].program, vec![OpSpec::Run(schedlab_engine::scenario::DurationSpec::FOREVER)]);
    match &s.tasks[0].program[0] {
        OpSpec::Loop(l) => {
            assert_eq!(l.times, None);
            assert_eq!(l.body.len(), 2);
        }
        other => panic!("expected a loop, got {other:?}"),
    }
}

#[test]
fn json_equals_toml() {
    let t = parse_scenario("s.toml", TOML).unwrap();
    let j = parse_scenario("s.json", JSON).unwrap();
    assert_eq!(t, j);
    // Leading whitespace still selects JSON.
    let j2 = parse_scenario("s.json", &format!("\n  {JSON}")).unwrap();
    assert_eq!(t, j2);
}

#[test]
fn round_trips_through_serialization() {
    let t = parse_scenario("s.toml", TOML).unwrap();
    let json = serde_json::to_string_pretty(&t).unwrap();
    assert_eq!(parse_scenario("x.json", &json).unwrap(), t);
    let toml_text = toml::to_string(&t).unwrap();
    assert_eq!(parse_scenario("x.toml", &toml_text).unwrap(), t);
}

#[test]
fn display_is_file_line_column_message() {
    let e = toml_err("cpus = 2", "cpus = 0");
    assert_eq!(e.to_string(), format!("s.toml:6:8: {}", e.message));
    assert!(e.message.starts_with("host.cpus: "), "{e}");
    let _: &dyn std::error::Error = &e;
}

// ----- syntax and type errors (parser locations) -----

#[test]
fn toml_syntax_error() {
    let e = toml_err("seed = 1", "seed = 1 =");
    at(&e, 3, 10, "expected");
}

#[test]
fn toml_bad_duration() {
    let e = toml_err(r#"duration = "1.5s""#, r#"duration = "3oous""#);
    at(&e, 4, 12, "unknown duration unit \"oous\"");
    let e = toml_err(r#"duration = "1.5s""#, "duration = true");
    at(&e, 4, 12, "expected a duration");
}

#[test]
fn toml_unknown_field() {
    let e = toml_err("nice = 2", "nicee = 2");
    at(&e, 16, 1, "unknown field `nicee`, expected one of `name`, `nice`");
}

#[test]
fn toml_unknown_op() {
    let e = toml_err(r#"{ spin = "300us" }"#, r#"{ spn = "300us" }"#);
    at(&e, 13, 35, "unknown variant `spn`");
}

#[test]
fn toml_type_error() {
    let e = toml_err("cpus = 2", "cpus = -2");
    at(&e, 6, 8, "expected u32");
}

#[test]
fn toml_missing_field() {
    let e = toml_err("version = 1\n", "");
    assert!(e.message.contains("missing field `version`"), "{e}");
}

#[test]
fn json_type_error() {
    let e = json_err(r#""cpus": 2"#, r#""cpus": "two""#);
    at(&e, 6, 21, "invalid type: string \"two\", expected u32");
}

#[test]
fn json_bad_duration() {
    let e = json_err(r#""duration": "1.5s""#, r#""duration": "3oous""#);
    at(&e, 5, 15, "unknown duration unit");
}

#[test]
fn json_unknown_field() {
    let e = json_err(r#""nice": 2"#, r#""nicee": 2"#);
    at(&e, 11, 22, "unknown field `nicee`");
}

#[test]
fn json_syntax_error() {
    let e = json_err(r#""seed": 1,"#, r#""seed": 1"#);
    at(&e, 5, 3, "expected `,` or `}`");
}

// ----- semantic errors (located by key path) -----

#[test]
fn existing_task_averages_out_of_range() {
    // k_h is nice 2: weight 655.
    let e = toml_err("nice = 2\n", "nice = 2\nexisting = { cpu = 1, load_avg = 700 }\n");
    at(&e, 17, 34, "tasks[1].existing.load_avg: load_avg 700 is above the task's weight (655)");
    let e = toml_err("nice = 2\n", "nice = 2\nexisting = { util_avg = 1025 }\n");
    at(&e, 17, 25, "tasks[1].existing.util_avg: util_avg 1025 is above SCHED_CAPACITY_SCALE (1024)");
    let e = toml_err("nice = 2\n", "nice = 2\nexisting = { cpu = 2 }\n");
    at(&e, 17, 20, "tasks[1].existing.cpu: cpu names CPU 2 but the host has 2 CPUs");
    let ok = TOML.replacen("nice = 2\n", "nice = 2\nexisting = { cpu = 1, load_avg = 655, runnable_avg = 1024 }\n", 1);
    parse_scenario("s.toml", &ok).expect("in range");
}

#[test]
fn host_cfs_rq_avg_out_of_range() {
    let e = toml_err("cpus = 2\n", "cpus = 2\ncfs_rq_avg = [{ cpu = 2 }]\n");
    at(&e, 7, 23, "host.cfs_rq_avg[0].cpu: cpu names CPU 2 but the host has 2 CPUs");
    let e = toml_err("cpus = 2\n", "cpus = 2\ncfs_rq_avg = [{ cpu = 1 }, { cpu = 1, util_avg = 9 }]\n");
    at(&e, 7, 36, "host.cfs_rq_avg[1].cpu: CPU 1 is already given by cfs_rq_avg[0]");
    let e = toml_err("cpus = 2\n", "cpus = 2\ncfs_rq_avg = [{ cpu = 0, util_avg = 1025 }]\n");
    at(&e, 7, 37, "host.cfs_rq_avg[0].util_avg: util_avg 1025 is above SCHED_CAPACITY_SCALE (1024)");
    let e = toml_err("cpus = 2\n", "cpus = 2\ncfs_rq_avg = [{ cpu = 0, runnable_avg = 1048577 }]\n");
    at(&e, 7, 41, "host.cfs_rq_avg[0].runnable_avg: runnable_avg 1048577 is above 1048576");
    let ok = TOML.replacen(
        "cpus = 2\n",
        "cpus = 2\ncfs_rq_avg = [{ cpu = 1, load_avg = 3000, runnable_avg = 2048, util_avg = 1024 }]\n",
        1,
    );
    parse_scenario("s.toml", &ok).expect("in range");
}

#[test]
fn host_cpu_switch_gaps_out_of_range() {
    let e = toml_err("cpus = 2\n", "cpus = 2\ncpu_switch_gaps = [{ cpu = 2 }]\n");
    at(&e, 7, 28, "host.cpu_switch_gaps[0].cpu: cpu names CPU 2 but the host has 2 CPUs");
    let e = toml_err("cpus = 2\n", "cpus = 2\ncpu_switch_gaps = [{ cpu = 1 }, { cpu = 1 }]\n");
    at(&e, 7, 41, "host.cpu_switch_gaps[1].cpu: CPU 1 is already given by cpu_switch_gaps[0]");
    let e = toml_err("cpus = 2\n", "cpus = 2\ncpu_switch_gaps = [{ cpu = 0, schedule_clock_lead = \"2ms\" }]\n");
    at(&e, 7, 53, "host.cpu_switch_gaps[0].schedule_clock_lead: schedule_clock_lead is too large");
    let ok =
        TOML.replacen("cpus = 2\n", "cpus = 2\ncpu_switch_gaps = [{ cpu = 1, schedule_clock_lead = \"8.2us\" }]\n", 1);
    parse_scenario("s.toml", &ok).expect("in range");
}

#[test]
fn affinity_cpu_out_of_range() {
    let e = toml_err("affinity = [1]\nprogram = [ { run", "affinity = [3]\nprogram = [ { run");
    at(&e, 17, 13, "tasks[1].affinity[0]: affinity names CPU 3 but the host has 2 CPUs (0..=1)");
    let e = json_err(r#""affinity": [1], "program": [ { "run"#, r#""affinity": [0, 3], "program": [ { "run"#);
    at(&e, 11, 49, "tasks[1].affinity[1]: affinity names CPU 3 but the host has 2 CPUs (0..=1)");
}

#[test]
fn affinity_duplicate_and_empty() {
    let e = toml_err("affinity = [1]", "affinity = [1, 0, 1]");
    at(&e, 12, 19, "tasks[0].affinity[2]: CPU 1 is listed twice");
    let e = toml_err("affinity = [1]", "affinity = []");
    at(&e, 12, 12, "tasks[0].affinity: expected at least one CPU");
}

#[test]
fn duplicate_task_name() {
    let e = toml_err(r#"name = "k_h""#, r#"name = "k_s""#);
    at(&e, 15, 8, "tasks[1].name: duplicate task name \"k_s\"");
    let e = json_err(r#""name": "k_h""#, r#""name": "k_s""#);
    at(&e, 11, 15, "tasks[1].name: duplicate task name \"k_s\"");
}

#[test]
fn unknown_feature() {
    let e = toml_err("RUN_TO_PARITY = true", "RUN_TO_PARTY = true");
    at(&e, 9, 1, "kernel.features.RUN_TO_PARTY: unknown scheduler feature \"RUN_TO_PARTY\", expected one of PLACE_LAG");
    let e = json_err(r#""RUN_TO_PARITY""#, r#""RUN_TO_PARTY""#);
    at(&e, 7, 29, "unknown scheduler feature");
}

#[test]
fn host_ranges() {
    at(&toml_err("cpus = 2", "cpus = 5000"), 6, 8, "host.cpus: expected a CPU count in 1..=4096");
    at(&toml_err("hz = 250", "hz = 200"), 7, 6, "host.hz: expected CONFIG_HZ to be one of 100, 250, 300, 1000");
    at(
        &toml_err("hz = 250", "hz = 250\nbase_slice = \"99us\""),
        8,
        14,
        "host.base_slice: base_slice 99us is out of range",
    );
    at(&toml_err("hz = 250", "hz = 250\ntimer_slack = \"1.5s\""), 8, 15, "host.timer_slack");
    // Limits themselves are fine.
    parse_scenario("s.toml", &TOML.replace("hz = 250", "hz = 1000\nbase_slice = \"100ms\"\ntimer_slack = \"1s\""))
        .unwrap();
}

#[test]
fn top_level_checks() {
    at(&toml_err("version = 1", "version = 2"), 1, 11, "version: unsupported scenario version 2 (expected 1)");
    at(&toml_err(r#"name = "sleeper-vs-hog""#, r#"name = """#), 2, 8, "name: the scenario name must not be empty");
    at(
        &toml_err(r#"duration = "1.5s""#, r#"duration = "forever""#),
        4,
        12,
        "duration: the scenario duration must be finite",
    );
    at(&toml_err(r#"duration = "1.5s""#, "duration = 0"), 4, 12, "must be greater than 0");
    at(
        &toml_err("seed = 1", "seed = 1\nseeds = 2"),
        4,
        1,
        "unknown field `seeds`, expected one of `$schema`, `version`",
    );
}

#[test]
fn empty_task_list() {
    let text = "version = 1\nname = \"x\"\nduration = \"1s\"\ntasks = []\n";
    let e = parse_scenario("s.toml", text).unwrap_err();
    at(&e, 4, 9, "tasks: expected at least one task");
}

#[test]
fn task_checks() {
    at(&toml_err("nice = 2", "nice = -21"), 16, 8, "tasks[1].nice: expected a nice value in -20..=19, got -21");
    at(
        &toml_err("nice = 2", "nice = 2\nslice = \"101ms\""),
        17,
        9,
        "tasks[1].slice: slice 101ms is out of range: expected a duration in 100us..=100ms",
    );
    at(&toml_err("nice = 2", "nice = 2\nslice = \"50us\""), 17, 9, "kernel clamps");
    at(&toml_err(r#"name = "k_h""#, r#"name = """#), 15, 8, "tasks[1].name: a task name must not be empty");
    at(&toml_err(r#"name = "k_h""#, r#"name = "k\th""#), 15, 8, "control character");
    at(
        &toml_err("nice = 2", "nice = 2\nstart = \"2ms\"\nstop = \"2ms\""),
        18,
        8,
        "tasks[1].stop: stop (2ms) must be after start (2ms)",
    );
    at(&toml_err("nice = 2", "nice = 2\nstop = \"forever\""), 17, 8, "tasks[1].stop: stop must be finite");
    at(&toml_err("nice = 2", "nice = 2\nstart = \"forever\""), 17, 9, "tasks[1].start: start must be finite");
    at(
        &toml_err(r#"program = [ { run = "forever" } ]"#, "program = []"),
        18,
        11,
        "tasks[1].program: expected at least one step",
    );
    // A task may start after the end of the run.
    parse_scenario("s.toml", &TOML.replace("nice = 2", "nice = 2\nstart = \"10s\"\nstop = \"11s\"")).unwrap();
}

#[test]
fn op_checks() {
    let run = r#"program = [ { run = "forever" } ]"#;
    let with = |ops: &str| toml_err(run, &format!("program = [ {ops} ]"));
    at(&with("{ run = 0 }"), 18, 21, "tasks[1].program[0].run: run must be greater than 0");
    at(&with(r#"{ spin = "forever" }"#), 18, 22, "tasks[1].program[0].spin: spin must be finite");
    at(&with("{ sleep = 0 }"), 18, 23, "tasks[1].program[0].sleep: sleep must be greater than 0");
    at(
        &with("{ sched_yield = 0 }"),
        18,
        29,
        "tasks[1].program[0].sched_yield: expected a sched_yield count of at least 1",
    );
    at(
        &with(r#"{ periodic = { run = "5ms", period = "4ms" } }"#),
        18,
        34,
        "tasks[1].program[0].periodic.run: periodic run (5ms) must not exceed the period (4ms)",
    );
    at(
        &with(r#"{ periodic = { run = "1ms", period = 0 } }"#),
        18,
        50,
        "periodic.period: periodic period must be greater than 0",
    );
    at(&with(r#"{ periodic = { run = "1ms", period = "forever" } }"#), 18, 50, "periodic period must be finite");
    at(
        &with(r#"{ loop = { body = [] } }"#),
        18,
        31,
        "tasks[1].program[0].loop.body: expected at least one step in the loop body",
    );
    at(
        &with(r#"{ loop = { times = 0, body = [ { spin = "1ms" } ] } }"#),
        18,
        32,
        "tasks[1].program[0].loop.times: expected loop times of at least 1",
    );
    at(
        &with(r#"{ run = "forever" }, { sleep = "1ms" }"#),
        18,
        34,
        "tasks[1].program[1]: unreachable: the previous step never ends",
    );
    at(
        &with(r#"{ loop = { body = [ { spin = "1ms" } ] } }, { sleep = "1ms" }"#),
        18,
        57,
        "tasks[1].program[1]: unreachable: the previous step never ends",
    );
    at(
        &with(r#"{ loop = { times = 2, body = [ { run = "forever" }, { spin = "1ms" } ] } }"#),
        18,
        65,
        "tasks[1].program[0].loop.body[1]: unreachable",
    );
    // Finite loops and periodic steps with a count may be followed by more steps.
    let ok = TOML.replace(
        run,
        r#"program = [ { loop = { times = 2, body = [ { sched_yield = 1 } ] } }, { periodic = { run = "1ms", period = "1ms", count = 3 } }, { run = "1ms" } ]"#,
    );
    parse_scenario("s.toml", &ok).unwrap();
}

const PIPES: &str = r#"version = 1
name = "pipes"
duration = "1s"
[[tasks]]
name = "k_p"
program = [ { pipe = { peer = "k_q", rounds = 10, work = "50us", first = true } } ]
[[tasks]]
name = "k_q"
program = [ { pipe = { peer = "k_p", rounds = 10, work = "50us" } } ]
"#;

fn pipes_err(from: &str, to: &str) -> ScenarioError {
    let text = PIPES.replacen(from, to, 1);
    assert_ne!(text, PIPES, "replacement {from:?} did not apply");
    parse_scenario("p.toml", &text).expect_err("should fail")
}

#[test]
fn pipe_checks() {
    parse_scenario("p.toml", PIPES).unwrap();
    at(
        &pipes_err(r#"peer = "k_q""#, r#"peer = "k_x""#),
        6,
        31,
        r#"tasks[0].program[0].pipe.peer: pipe names "k_x", which is not a task of this scenario"#,
    );
    at(&pipes_err(r#"peer = "k_q""#, r#"peer = "k_p""#), 6, 31, r#"task "k_p" cannot pipe to itself"#);
    at(
        &pipes_err(r#"{ pipe = { peer = "k_p", rounds = 10, work = "50us" } }"#, r#"{ run = "1ms" }"#),
        6,
        31,
        r#"tasks[0].program[0].pipe.peer: pipe peer "k_q" has no pipe step naming "k_p""#,
    );
    at(
        &pipes_err(r#"work = "50us" } }"#, r#"work = "50us", first = true } }"#),
        6,
        22,
        r#"tasks[0].program[0].pipe: both "k_p" and "k_q" write the first message: exactly one"#,
    );
    at(
        &pipes_err(r#", first = true"#, ""),
        6,
        22,
        r#"tasks[0].program[0].pipe: neither of "k_p" and "k_q" write the first message: give one of them first = true"#,
    );
    at(&pipes_err("rounds = 10, work", "rounds = 0, work"), 6, 47, "pipe.rounds: expected at least 1 round");
    at(&pipes_err(r#"work = "50us""#, "work = 0"), 6, 58, "pipe.work: pipe work must be greater than 0");
    at(
        &pipes_err(r#"work = "50us" } } ]"#, r#"work = "50us", work_jitter = "60us" } } ]"#),
        9,
        80,
        "pipe.work_jitter: pipe work_jitter 60us is larger than work 50us",
    );
    at(
        &pipes_err(r#"work = "50us" } } ]"#, r#"work = "50us", block_cost = "forever" } } ]"#),
        9,
        79,
        "pipe.block_cost: pipe block_cost must be finite",
    );
    // Without rounds a pipe runs until its peer exits, and the program may go on after it.
    let endless =
        PIPES.replace("rounds = 10, ", "").replace(r#"work = "50us" } } ]"#, r#"work = "50us" } }, { run = "1ms" } ]"#);
    parse_scenario("p.toml", &endless).unwrap();
}

#[test]
fn fork_checks() {
    let run = r#"program = [ { run = "forever" } ]"#;
    let with = |ops: &str| toml_err(run, &format!("program = [ {ops} ]"));
    let ok = TOML.replace(
        run,
        r#"program = [ { loop = { body = [ { fork = { children = 8, program = [ { run = "5ms" } ] } }, { sleep = "10ms" } ] } } ]"#,
    );
    parse_scenario("s.toml", &ok).unwrap();
    at(
        &with(r#"{ fork = { children = 0, program = [ { run = "5ms" } ] } }"#),
        18,
        35,
        "tasks[1].program[0].fork.children: expected 1..=1024 children, got 0",
    );
    at(
        &with(r#"{ fork = { children = 2, program = [] } }"#),
        18,
        48,
        "tasks[1].program[0].fork.program: expected at least one step in the children's program",
    );
    at(
        &with(r#"{ fork = { children = 2, program = [ { sched_yield = 1 } ] } }"#),
        18,
        48,
        "fork.program: expected the children's program to contain a step that takes time",
    );
    at(
        &with(
            r#"{ fork = { children = 2, program = [ { run = "1ms" }, { fork = { children = 1, program = [ { run = "1ms" } ] } } ] } }"#,
        ),
        18,
        67,
        "tasks[1].program[0].fork.program[1]: a fork's children cannot run fork (a fork's children cannot fork",
    );
    at(
        &with(
            r#"{ fork = { children = 2, program = [ { run = "1ms" }, { pipe = { peer = "k_s", work = "1ms" } } ] } }"#,
        ),
        18,
        67,
        "tasks[1].program[0].fork.program[1]: a fork's children cannot run pipe",
    );
    at(
        &with(r#"{ fork = { children = 2, program = [ { run = "1ms" }, { lock = "l" } ] } }"#),
        18,
        67,
        "a fork's children cannot run guest code",
    );
    // Unnamed, two fork steps of one task would give their children the same names.
    at(
        &with(
            r#"{ fork = { children = 2, program = [ { run = "1ms" } ] } }, { fork = { children = 1, program = [ { run = "1ms" } ] } }"#,
        ),
        18,
        82,
        r#"tasks[1].program[1].fork: child "k_h/child0" of this fork has the name of a child of tasks[1].program[0].fork"#,
    );
    at(
        &with(r#"{ fork = { children = 2, program = [ { run = "forever" } ] } }, { run = "1ms" }"#),
        18,
        77,
        "unreachable",
    );
    // A child may yield_to its parent.
    let yielding = TOML.replace(
        run,
        r#"program = [ { fork = { children = 2, program = [ { run = "1ms" }, { yield_to = "k_h" } ] } } ]"#,
    );
    parse_scenario("s.toml", &yielding).unwrap();
    // A child's name must be new.
    let text = r#"version = 1
name = "names"
duration = "1s"
[[tasks]]
name = "a"
program = [ { fork = { children = 2, name = "b", program = [ { run = "1ms" } ] } } ]
[[tasks]]
name = "b1"
program = [ { run = "1ms" } ]
"#;
    let e = parse_scenario("n.toml", text).unwrap_err();
    at(&e, 6, 45, r#"tasks[0].program[0].fork.name: child "b1" of this fork has the name of tasks[1]"#);
    let vcpu = TOML.replace(
        run,
        r#"vm = "v"
program = [ { fork = { children = 2, program = [ { run = "1ms" } ] } } ]"#,
    );
    let e = parse_scenario("s.toml", &vcpu).unwrap_err();
    at(&e, 19, 22, r#"tasks[1].program[0].fork: task "k_h" is a vCPU"#);
}

#[test]
fn loop_nesting_limit() {
    let nest = |levels: usize| {
        let mut op = String::from(r#"{ spin = "1ms" }"#);
        for _ in 0..levels {
            op = format!("{{ loop = {{ times = 1, body = [ {op} ] }} }}");
        }
        TOML.replace(r#"program = [ { run = "forever" } ]"#, &format!("program = [ {op} ]"))
    };
    parse_scenario("s.toml", &nest(16)).unwrap();
    let e = parse_scenario("s.toml", &nest(17)).unwrap_err();
    assert!(e.message.contains("loops nest too deeply (at most 16 levels)"), "{e}");
    assert_eq!(e.line, 18);
    assert!(e.message.starts_with("tasks[1].program[0]"), "{e}");
}

// ----- variants -----

#[test]
fn variants_apply() {
    let mut s = parse_scenario("s.toml", TOML).unwrap();
    apply_variant(&mut s, "RUN_TO_PARITY", "off").unwrap();
    apply_variant(&mut s, "NEXT_BUDDY", "1").unwrap();
    apply_variant(&mut s, "HRTICK", "true").unwrap();
    assert_eq!(s.kernel.features.get("RUN_TO_PARITY"), Some(&false));
    assert_eq!(s.kernel.features.get("NEXT_BUDDY"), Some(&true));
    assert_eq!(s.kernel.features.get("HRTICK"), Some(&true));
    apply_variant(&mut s, "yield", "deadline_bump").unwrap();
    assert_eq!(s.kernel.yield_mode, Some(YieldMode::DeadlineBump));
    apply_variant(&mut s, "yield", "forfeit").unwrap();
    assert_eq!(s.kernel.yield_mode, Some(YieldMode::Forfeit));
    apply_variant(&mut s, "hz", "1000").unwrap();
    apply_variant(&mut s, "cpus", "4").unwrap();
    apply_variant(&mut s, "seed", "42").unwrap();
    assert_eq!((s.host.hz, s.host.cpus, s.seed), (1000, 4, 42));
    apply_variant(&mut s, "base_slice", "3ms").unwrap();
    apply_variant(&mut s, "timer_slack", "0us").unwrap();
    apply_variant(&mut s, "duration", "2.5s").unwrap();
    assert_eq!(s.host.base_slice.unwrap().ns(), 3_000_000);
    assert_eq!(s.host.timer_slack.unwrap().ns(), 0);
    assert_eq!(s.duration.ns(), 2_500_000_000);
    apply_variant(&mut s, "tunable_scaling", "linear").unwrap();
    assert_eq!(s.host.tunable_scaling, TunableScaling::Linear);
    validate("s.toml", Some(TOML), &s).unwrap();
}

#[test]
fn variants_reject_bad_input() {
    let mut s = parse_scenario("s.toml", TOML).unwrap();
    let before = s.clone();
    let e = apply_variant(&mut s, "RUN_TO_PARTY", "off").unwrap_err();
    assert!(e.contains("unknown variant \"RUN_TO_PARTY\""), "{e}");
    assert!(e.contains("yield") && e.contains("tunable_scaling") && e.contains("RUN_TO_PARITY"), "{e}");
    assert!(apply_variant(&mut s, "RUN_TO_PARITY", "maybe").is_err());
    assert!(apply_variant(&mut s, "yield", "sometimes").is_err());
    assert!(apply_variant(&mut s, "hz", "fast").is_err());
    assert!(apply_variant(&mut s, "cpus", "-1").is_err());
    assert!(apply_variant(&mut s, "duration", "3oous").is_err());
    assert!(apply_variant(&mut s, "tunable_scaling", "cubic").is_err());
    assert_eq!(s, before, "failed variants must not change the scenario");
}

#[test]
fn revalidation_after_variant() {
    let mut s = parse_scenario("s.toml", TOML).unwrap();
    apply_variant(&mut s, "cpus", "1").unwrap();
    let e = validate("s.toml", Some(TOML), &s).unwrap_err();
    at(&e, 12, 13, "tasks[0].affinity[0]: affinity names CPU 1 but the host has 1 CPU (0..=0)");
    let e = validate("s.toml", None, &s).unwrap_err();
    assert_eq!((e.line, e.column), (0, 0));
    assert!(e.message.starts_with("tasks[0].affinity[0]: "), "{e}");
    let mut s = parse_scenario("s.json", JSON).unwrap();
    apply_variant(&mut s, "hz", "123").unwrap();
    at(&validate("s.json", Some(JSON), &s).unwrap_err(), 6, 30, "host.hz");
    // A knob absent from the text falls back to its nearest ancestor.
    apply_variant(&mut s, "hz", "250").unwrap();
    apply_variant(&mut s, "base_slice", "1s").unwrap();
    at(&validate("s.json", Some(JSON), &s).unwrap_err(), 6, 11, "host.base_slice");
}

// ----- robustness -----

fn never_panics(name: &str, text: &str) {
    for (end, _) in text.char_indices().chain(std::iter::once((text.len(), ' '))) {
        let prefix = &text[..end];
        let r = std::panic::catch_unwind(|| parse_scenario(name, prefix));
        match r {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                assert!(e.line >= 1 && e.column >= 1, "prefix {end}: bad location in {e}");
                assert!(!e.message.is_empty());
            }
            Err(_) => panic!("parse_scenario panicked on the {end}-byte prefix of {name}"),
        }
    }
}

#[test]
fn truncated_prefixes_never_panic() {
    never_panics("s.toml", TOML);
    never_panics("s.json", JSON);
}

#[test]
fn mutated_inputs_never_panic() {
    for text in [TOML, JSON] {
        for (i, _) in text.char_indices() {
            for repl in ["", "\"", "{", "]", "\\", "9", "µ"] {
                let mut t = String::with_capacity(text.len() + 2);
                t.push_str(&text[..i]);
                t.push_str(repl);
                let rest = &text[i..];
                let skip = rest.chars().next().map_or(0, char::len_utf8);
                t.push_str(&rest[skip..]);
                let r = std::panic::catch_unwind(|| parse_scenario("m", &t));
                assert!(r.is_ok(), "panicked on mutation at {i} with {repl:?}:\n{t}");
            }
        }
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let deep_json = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(parse_scenario("d.json", &format!("{{\"tasks\": {deep_json}}}")).is_err());
    let deep_toml = format!("x = {}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(parse_scenario("d.toml", &deep_toml).is_err());
}

#[test]
fn empty_inputs() {
    for t in ["", "   \n", "{", "{}", "\u{feff}"] {
        let e = parse_scenario("e", t).unwrap_err();
        assert!(e.line >= 1 && e.column >= 1, "{e}");
    }
    let _unused: Option<ScenarioFile> = None;
}
