//! The loader's unit tests: parse errors located, and each semantic check.

use super::*;
use crate::scenario::apply_variant;

const GOOD: &str = r#"version = 1
name = "t"
duration = "1s"
[host]
cpus = 2
[[tasks]]
name = "a"
affinity = [0, 1]
program = [ { loop = { times = 3, body = [ { spin = "300us" }, { sleep = "700us" } ] } }, { run = "forever" } ]
"#;

fn err(text: &str) -> ScenarioError {
    parse_scenario("f.toml", text).unwrap_err()
}

#[test]
fn good_parses() {
    let s = parse_scenario("f.toml", GOOD).unwrap();
    assert_eq!(s.tasks[0].program.len(), 2);
}

#[test]
fn display_format() {
    let e = ScenarioError { file: "x.toml".into(), line: 3, column: 7, message: "boom".into() };
    assert_eq!(e.to_string(), "x.toml:3:7: boom");
}

#[test]
fn loop_without_time_is_rejected() {
    let text = "version = 1\nname = \"x\"\nduration = \"1ms\"\n[[tasks]]\nname = \"a\"\nprogram = [{ loop = { body = [{ sched_yield = 1 }] } }]\n";
    let e = parse_scenario("y.toml", text).unwrap_err();
    assert_eq!(e.line, 6, "{e}");
    assert!(e.message.contains("takes time"), "{e}");
}

#[test]
fn unreachable_after_forever() {
    let t = GOOD.replace("{ run = \"forever\" } ]", "{ run = \"forever\" }, { spin = \"1ms\" } ]");
    let e = err(&t);
    assert!(e.message.contains("tasks[0].program[2]: unreachable: the previous step never ends"), "{e}");
    assert_eq!(e.line, 9);
}

#[test]
fn unreachable_after_endless_loop() {
    let t = GOOD.replace("times = 3, ", "");
    let e = err(&t);
    assert!(e.message.contains("tasks[0].program[1]: unreachable"), "{e}");
}

#[test]
fn nesting_limit() {
    let mut prog = String::from("{ spin = \"1ms\" }");
    for _ in 0..17 {
        prog = format!("{{ loop = {{ times = 1, body = [ {prog} ] }} }}");
    }
    let t = GOOD.replace(
        "program = [ { loop = { times = 3, body = [ { spin = \"300us\" }, { sleep = \"700us\" } ] } }, { run = \"forever\" } ]",
        &format!("program = [ {prog} ]"),
    );
    let e = err(&t);
    assert!(e.message.contains("nest too deeply"), "{e}");
    // 16 levels are fine.
    let mut prog = String::from("{ spin = \"1ms\" }");
    for _ in 0..16 {
        prog = format!("{{ loop = {{ times = 1, body = [ {prog} ] }} }}");
    }
    let t = GOOD.replace(
        "program = [ { loop = { times = 3, body = [ { spin = \"300us\" }, { sleep = \"700us\" } ] } }, { run = \"forever\" } ]",
        &format!("program = [ {prog} ]"),
    );
    parse_scenario("f.toml", &t).unwrap();
}

#[test]
fn ranges() {
    for (from, to, needle) in [
        ("cpus = 2", "cpus = 0", "host.cpus"),
        ("cpus = 2", "cpus = 2\nhz = 200", "host.hz"),
        ("cpus = 2", "cpus = 2\nbase_slice = \"50us\"", "host.base_slice"),
        ("cpus = 2", "cpus = 2\ntimer_slack = \"2s\"", "host.timer_slack"),
        ("version = 1", "version = 2", "version"),
        ("name = \"t\"", "name = \"\"", "name"),
        ("duration = \"1s\"", "duration = \"forever\"", "duration"),
        ("duration = \"1s\"", "duration = 0", "duration"),
        ("name = \"a\"", "name = \"a\"\nnice = 20", "tasks[0].nice"),
        ("name = \"a\"", "name = \"a\"\nslice = \"200ms\"", "tasks[0].slice"),
        ("name = \"a\"", "name = \"a\\u0007\"", "tasks[0].name"),
        ("name = \"a\"", "name = \"a\"\nstart = \"2ms\"\nstop = \"1ms\"", "tasks[0].stop"),
        ("name = \"a\"", "name = \"a\"\nstart = \"forever\"", "tasks[0].start"),
        ("affinity = [0, 1]", "affinity = []", "tasks[0].affinity"),
        ("affinity = [0, 1]", "affinity = [1, 1]", "tasks[0].affinity[1]"),
        ("times = 3", "times = 0", "tasks[0].program[0].loop.times"),
        ("{ spin = \"300us\" }", "{ spin = \"forever\" }", "tasks[0].program[0].loop.body[0].spin"),
        ("{ sleep = \"700us\" }", "{ sleep = 0 }", "tasks[0].program[0].loop.body[1].sleep"),
        ("{ sleep = \"700us\" }", "{ sched_yield = 0 }", "tasks[0].program[0].loop.body[1].sched_yield"),
        (
            "{ sleep = \"700us\" }",
            "{ periodic = { run = \"2ms\", period = \"1ms\", count = 2 } }",
            "tasks[0].program[0].loop.body[1].periodic.run",
        ),
        ("{ run = \"forever\" }", "{ run = 0 }", "tasks[0].program[1].run"),
    ] {
        let t = GOOD.replace(from, to);
        assert_ne!(t, GOOD, "{from}");
        let e = err(&t);
        assert!(e.message.starts_with(&format!("{needle}: ")), "{to}: {e}");
    }
}

#[test]
fn period_phase_needs_a_quota_and_stays_inside_the_period() {
    let at_end = |extra: &str| format!("{GOOD}\n[[cgroups]]\npath = \"/q\"\n{extra}");
    parse_scenario("f.toml", &at_end("quota = \"20ms\"\nperiod_phase = \"99ms\"\n")).unwrap();
    let e = err(&at_end("period_phase = \"10ms\"\n"));
    assert!(e.message.starts_with("cgroups[0].period_phase: a period phase without a quota"), "{e}");
    let e = err(&at_end("quota = \"20ms\"\nperiod = \"50ms\"\nperiod_phase = \"50ms\"\n"));
    assert!(e.message.starts_with("cgroups[0].period_phase: expected a period phase below the period (50ms)"), "{e}");
    let e = err(&at_end("max = \"20000 40000\"\nperiod_phase = \"41ms\"\n"));
    assert!(e.message.contains("below the period (40ms)"), "{e}");
}

#[test]
fn a_cgroup_step_names_a_declared_cgroup() {
    let with = |step: &str| {
        GOOD.replace("{ run = \"forever\" }", &format!("{step}, {{ run = \"forever\" }}"))
            + "[[cgroups]]\npath = \"/q\"\n"
    };
    parse_scenario("f.toml", &with("{ cgroup = \"/q\" }")).unwrap();
    parse_scenario("f.toml", &with("{ cgroup = \"/\" }")).unwrap();
    let e = err(&with("{ cgroup = \"/nope\" }"));
    assert_eq!(e.message, "tasks[0].program[1].cgroup: cgroup \"/nope\" is not declared in [[cgroups]]");
    assert_eq!(e.line, 9, "{e}");
}

#[test]
fn start_after_end_is_allowed() {
    let t = GOOD.replace("name = \"a\"", "name = \"a\"\nstart = \"5s\"");
    parse_scenario("f.toml", &t).unwrap();
}

#[test]
fn validate_without_text_names_path() {
    let mut s = parse_scenario("f.toml", GOOD).unwrap();
    apply_variant(&mut s, "cpus", "1").unwrap();
    let e = validate("f.toml", None, &s).unwrap_err();
    assert_eq!((e.line, e.column), (0, 0));
    assert!(e.message.starts_with("tasks[0].affinity[1]: affinity names CPU 1 but the host has 1 CPU (0..=0)"), "{e}");
    let e = validate("f.toml", Some(GOOD), &s).unwrap_err();
    assert_eq!((e.line, e.column), (8, 16));
}
