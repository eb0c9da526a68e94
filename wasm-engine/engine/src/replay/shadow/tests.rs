//! The shadow scenario's unit tests: every trace that imports makes one that loads, wall-paced
//! bursts, refusals located at the trace or the layout file.

use super::*;
use crate::import::TextImporter;
use crate::replay::compare::replay;

fn observe(text: &str) -> Observed {
    let mut obs = Observed::default();
    obs.source = "t.txt".into();
    let mut imp = TextImporter::new();
    imp.feed(text.as_bytes(), &mut obs);
    imp.finish(&mut obs);
    obs.finish();
    obs
}

fn sw(ts: &str, prev: (&str, u32), state: &str, next: (&str, u32)) -> String {
    let ((p, pp), (n, np)) = (prev, next);
    format!(
        "{p:>16}-{pp:<5} [001] d..2. {ts}: sched_switch: prev_comm={p} prev_pid={pp} prev_prio=120 \
         prev_state={state} ==> next_comm={n} next_pid={np} next_prio=120\n"
    )
}

fn wake(ts: &str, by: (&str, u32), who: (&str, u32)) -> String {
    let ((b, bp), (w, wp)) = (by, who);
    format!("{b:>16}-{bp:<5} [001] d..2. {ts}: sched_wakeup: comm={w} pid={wp} prio=120 target_cpu=001\n")
}

/// Issue 16: k_a is woken at the nanosecond it slept (10.000300), and later switched in and
/// out at the same time (10.000500, 0 ns). The replay refused such a trace ("sleep must be
/// greater than 0"); both steps are now 1 ns, and the shadow scenario loads, as TOML too,
/// and runs.
#[test]
fn zero_length_sleeps_and_runs_replay() {
    let (idle, a, b, c) = (("swapper/1", 0), ("k_a", 100), ("k_b", 101), ("k_c", 102));
    let text = [
        "# tracer: nop\n#\n".to_string(),
        sw("10.000000", idle, "R", a),
        sw("10.000300", a, "S", b),
        wake("10.000300", b, a),
        sw("10.000500", b, "R+", a),
        sw("10.000500", a, "S", c),
        wake("10.000700", c, a),
        sw("10.001000", c, "R+", a),
        sw("10.002000", a, "R+", b),
        sw("10.003000", b, "R+", c),
    ]
    .concat();
    let obs = observe(&text);
    let k_a = obs.tasks.iter().find(|t| t.comm == "k_a").unwrap();
    assert_eq!(
        k_a.ops,
        [
            ShadowOp::Run(300_000),
            // Woken by k_b and k_c in task context (`d..2.`): causal wakeups, each sleep a
            // wait for the waker's `wake` step (issue 18), its observed length kept.
            ShadowOp::Wait { id: 0, ns: 1 },
            ShadowOp::Run(1),
            ShadowOp::Wait { id: 1, ns: 200_000 },
            ShadowOp::Run(1_000_000)
        ]
    );
    // Each step is located at the record that ended it (the header is lines 1-2; the last
    // burst, preempted, runs on to the trace's last record).
    assert_eq!(k_a.op_lines, [4, 5, 7, 8, 11]);
    let shadow = shadow_scenario(&obs, &Layout::default(), "replay/t").expect("the shadow scenario");
    let toml = toml::to_string(&shadow.scenario).unwrap();
    let (_, mut sim) = crate::load("shadow.toml", &toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
    sim.check_invariants = true;
    sim.run();
    let (_, report) = replay(&obs, &Layout::default(), "replay/t", &[]).expect("replays");
    assert_eq!(report.tasks.len(), 3);
    // k_c ran only for 0 ns before it was preempted: it is modeled all the same.
    let k_c = report.tasks.iter().find(|t| t.name == "k_c").unwrap();
    assert_eq!((k_c.observed_ns, k_c.observed_switches), (500_000, 1));
    assert!(report.decisions.scored > 0);
}

/// A task whose preempted bursts got less CPU than its whole ones is paced by the wall
/// clock: its bursts are replayed as spins, the preempted ones as long as its median whole
/// burst. A task whose preempted bursts got as much CPU is paced by its work: runs.
#[test]
fn wall_paced_bursts_are_replayed_as_spins() {
    let (h, w, c) = (("k_h", 10), ("k_w", 20), ("k_c", 30));
    let mut lines = vec!["# tracer: nop\n#\n".to_string()];
    let at = |us: u64| format!("{}.{:06}", 10 + us / 1_000_000, us % 1_000_000);
    let mut t = 0;
    for i in 0..40u64 {
        let task = if i % 2 == 0 { w } else { c };
        let preempted = i % 4 >= 2;
        lines.push(sw(&at(t), h, "R+", task));
        if preempted {
            lines.push(sw(&at(t + 400), task, "R+", h));
            lines.push(sw(&at(t + 700), h, "R+", task));
        }
        // k_w stops when the clock says (1000 us after it started), k_c when its 1000 us
        // of work are done.
        let end = if preempted && task == c { t + 1300 } else { t + 1000 };
        lines.push(sw(&at(end), task, "S", h));
        t = end + 2000;
    }
    let obs = observe(&lines.concat());
    let k_w = obs.tasks.iter().find(|t| t.comm == "k_w").unwrap();
    let k_c = obs.tasks.iter().find(|t| t.comm == "k_c").unwrap();
    assert_eq!(wall_paced(k_w), Some(1_000_000));
    assert_eq!(wall_paced(k_c), None);
    let shadow = shadow_scenario(&obs, &Layout::default(), "t").expect("replays");
    let program = |name: &str| shadow.scenario.tasks.iter().find(|t| t.name == name).unwrap().program.clone();
    let spins: Vec<u64> =
        program("k_w").iter().filter_map(|o| if let OpSpec::Spin(d) = o { Some(d.ns()) } else { None }).collect();
    assert_eq!(spins.len(), 20, "{:?}", program("k_w"));
    assert!(spins.iter().all(|&ns| ns == 1_000_000), "{spins:?}");
    assert!(program("k_c").iter().all(|o| !matches!(o, OpSpec::Spin(_))));
}

#[test]
fn a_task_that_only_ran_0_ns_is_modeled() {
    let (idle, a, b) = (("swapper/1", 0), ("k_a", 100), ("k_b", 101));
    let text = [sw("1.000000", idle, "R", a), sw("1.000000", a, "S", b)].concat();
    let obs = observe(&text);
    let shadow = shadow_scenario(&obs, &Layout::default(), "t").expect("a trace of one instant replays");
    let names: Vec<_> = shadow.scenario.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["k_a", "k_b"]);
    assert_eq!(shadow.scenario.tasks[0].program, [OpSpec::Run(DurationSpec(1))]);
    replay(&obs, &Layout::default(), "t", &[]).expect("replays");
}

/// What the replay still refuses is located at the trace or at the layout file, never at
/// the generated scenario.
#[test]
fn refusals_are_located_at_the_trace_or_the_layout() {
    let e = shadow_scenario(&observe("# tracer: nop\n"), &Layout::default(), "t").err().unwrap();
    assert_eq!(e, "t.txt: the trace has no records");
    let wakeup_only = wake("1.000000", ("k_b", 101), ("k_a", 100));
    let e = shadow_scenario(&observe(&wakeup_only), &Layout::default(), "t").err().unwrap();
    assert!(e.starts_with("t.txt: the trace has no sched_switch records"), "{e}");
    let rt = "       migration/1-20    [001] d..2. 1.000000: sched_switch: prev_comm=migration/1 prev_pid=20 \
              prev_prio=0 prev_state=S ==> next_comm=swapper/1 next_pid=0 next_prio=120\n";
    let e = shadow_scenario(&observe(rt), &Layout::default(), "t").err().unwrap();
    assert!(e.starts_with("t.txt: no fair-class task (prio 100..=139)"), "{e}");
    let one = sw("1.000000", ("swapper/1", 0), "R", ("k_a", 100));
    let layout = Layout::parse("l.toml", "hz = 250\n[tasks]\nk_z = \"/\"\n").unwrap();
    let e = shadow_scenario(&observe(&one), &layout, "t").err().unwrap();
    assert_eq!(e, "l.toml:3:1: task \"k_z\" (in /) is not in the trace t.txt");
    assert_eq!(trace_error(&observe(&one), 7, "x"), "t.txt:7:0: x");
}

#[test]
fn layout_errors_are_located_in_the_layout_file() {
    let e = Layout::parse("l.toml", "hz = 251\n").unwrap_err();
    assert_eq!(e, "l.toml:1:6: hz: expected CONFIG_HZ to be one of 100, 250, 300, 1000, got 251");
    let e = Layout::parse("l.toml", "[[cgroups]]\npath = \"/a\"\nshares = 1\n").unwrap_err();
    assert_eq!(e, "l.toml:3:10: cgroups[0].shares: expected cpu.shares in 2..=262144, got 1");
    let e = Layout::parse("l.toml", "[tasks]\nk_a = \"/nope\"\n").unwrap_err();
    assert_eq!(e, "l.toml:2:7: tasks.k_a: cgroup \"/nope\" is not declared in [[cgroups]]");
}

#[test]
fn names_are_printable_and_times_finite() {
    // A comm with a control character, a pid reused with the same comm, timestamps out of
    // order across CPUs, and a window reaching the end of the clock.
    let text = [
        sw("1.000000", ("swapper/1", 0), "R", ("a\u{1}b", 7)),
        sw("1.000010", ("a\u{1}b", 7), "Z", ("x", 8)),
        sw("1.000020", ("x", 8), "R+", ("a\u{1}b", 7)),
        "           y-9     [000] d..2. 0.500000: sched_switch: prev_comm=y prev_pid=9 prev_prio=120 \
         prev_state=S ==> next_comm=y next_pid=9 next_prio=120\n"
            .to_string(),
        sw("18446744073.709551", ("a\u{1}b", 7), "R+", ("x", 8)),
    ]
    .concat();
    let obs = observe(&text);
    let shadow = shadow_scenario(&obs, &Layout::default(), "t").unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<_> = shadow.scenario.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["a\\u{1}b-7", "x", "a\\u{1}b-7.2", "y"]);
    assert!(!shadow.scenario.duration.is_forever());
    let toml = toml::to_string(&shadow.scenario).unwrap();
    crate::load("shadow.toml", &toml, &[]).unwrap_or_else(|e| panic!("{e}\n{toml}"));
}

/// CPUs a trace names anywhere are the model's: a wakeup's target CPU without records of
/// its own (the per-decision replay indexed past its CPUs), and CPU numbers past the
/// largest host a scenario holds (numbered densely then).
#[test]
fn every_cpu_the_trace_names_is_modeled() {
    let text = [
        sw("1.000000", ("swapper/1", 0), "R", ("k_a", 100)),
        "             k_a-100   [001] d..2. 1.000100: sched_wakeup: comm=k_b pid=101 prio=120 target_cpu=003\n"
            .to_string(),
        "       swapper/3-0     [65535] d..2. 1.000200: sched_switch: prev_comm=swapper/3 prev_pid=0 prev_prio=120 \
         prev_state=R ==> next_comm=k_b next_pid=101 next_prio=120\n"
            .to_string(),
        sw("1.000300", ("k_a", 100), "R+", ("swapper/1", 0)),
    ]
    .concat();
    let obs = observe(&text);
    assert_eq!((obs.cpus, obs.cpu_ids.as_slice()), (3, &[1, 3, 65535][..]));
    let (shadow, report) = replay(&obs, &Layout::default(), "t", &[]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(shadow.scenario.host.cpus, 3);
    let cpus: Vec<_> = report.tasks.iter().map(|t| (t.name.as_str(), t.cpu)).collect();
    assert_eq!(cpus, [("k_a", 0), ("k_b", 2)]);
}
