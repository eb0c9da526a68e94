//! What the fuzz targets share: a sink that keeps everything an importer delivers, and the
//! properties every text import must have whatever the bytes, beyond not panicking:
//!
//! * every line is accounted for exactly once: records + skipped + ignored + LOST lines + EEVDF
//!   samples = lines, and `lines`/`bytes` agree with the input;
//! * the sink saw what the counters say (records, skips, LOST lines, samples);
//! * a skipped line is located: 1 ≤ line ≤ lines, 1 ≤ column ≤ that line's length + 1;
//! * records and samples carry their own line number, in increasing order;
//! * the columnar [`TraceStore`] agrees with the records (per-event and per-CPU counts, the
//!   switch/wakeup/migration columns, task indices in range) and its [`ImportSummary`] builds,
//!   serialises and prints;
//! * the window figures (`import::metrics`) hold together: the tasks' CPU time is the CPUs' busy
//!   time, a task's running time its CPU time, a window split in two adds up, the CSV has a line
//!   per row, and the trace compared with itself (`import::diff`) differs nowhere.
//!
//! A failed property panics, which libFuzzer reports as a crash with the input saved.

use schedlab_engine::import::diff::{diff, DiffInput, DiffOptions};
use schedlab_engine::import::metrics::{window_metrics, MetricsWindow, WindowMetrics};
use schedlab_engine::import::timeline::TraceTimeline;
use schedlab_engine::import::{
    EevdfSample, ImportStats, ImportSummary, SchedPayload, Skipped, TextImporter, TraceRecord, TraceSink, TraceStore,
};

/// Everything a sink receives, in order.
#[derive(Default, Debug, PartialEq)]
pub struct Collect {
    pub records: Vec<TraceRecord>,
    pub lost: Vec<(u32, u64, u64)>,
    pub skipped: Vec<Skipped>,
    pub eevdf: Vec<EevdfSample>,
    pub meta: Vec<(String, String, u64)>,
}

impl TraceSink for Collect {
    fn record(&mut self, rec: TraceRecord) {
        self.records.push(rec);
    }
    fn lost(&mut self, cpu: u32, count: u64, line: u64) {
        self.lost.push((cpu, count, line));
    }
    fn skipped(&mut self, s: Skipped) {
        self.skipped.push(s);
    }
    fn eevdf(&mut self, s: EevdfSample) {
        self.eevdf.push(s);
    }
    fn meta(&mut self, key: &str, value: &str, line: u64) {
        self.meta.push((key.to_string(), value.to_string(), line));
    }
}

/// Feeds `bytes` in chunks of the given sizes, cycling through them (0 feeds an empty chunk; an
/// empty or all-zero list feeds everything at once).
pub fn feed_chunks<S: TraceSink>(bytes: &[u8], sizes: &[usize], sink: &mut S) -> ImportStats {
    let mut imp = TextImporter::new();
    let mut rest = bytes;
    if sizes.iter().all(|&n| n == 0) {
        imp.feed(rest, sink);
        rest = &[];
    }
    let mut i = 0;
    while !rest.is_empty() {
        let n = sizes[i % sizes.len()].min(rest.len());
        imp.feed(&rest[..n], sink);
        rest = &rest[n..];
        i += 1;
    }
    imp.finish(sink);
    imp.stats().clone()
}

/// Byte length of each line as the splitter hands it over (without `\n` and a `\r` before it).
pub fn line_lengths(bytes: &[u8]) -> Vec<usize> {
    let mut out: Vec<usize> = bytes.split(|&c| c == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).len()).collect();
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        out.pop();
    }
    out
}

/// The properties of one text import of `bytes` (see the crate docs).
pub fn check_text_import(bytes: &[u8], c: &Collect, st: &ImportStats) {
    assert_eq!(st.bytes, bytes.len() as u64, "bytes counted");
    if st.binary.is_some() {
        assert_eq!((st.lines, st.records, c.records.len()), (0, 0, 0), "binary input is not parsed");
        assert_eq!(c.skipped.len(), 1, "binary input is one skip");
        assert_eq!((c.skipped[0].line, c.skipped[0].column), (1, 1));
        return;
    }
    let lens = line_lengths(bytes);
    assert_eq!(st.lines, lens.len() as u64, "lines counted");
    assert_eq!(st.records, c.records.len() as u64, "records delivered");
    assert_eq!(st.skipped_lines, c.skipped.len() as u64, "skips delivered");
    assert_eq!(st.lost_lines, c.lost.len() as u64, "LOST lines delivered");
    assert_eq!(st.eevdf_samples, c.eevdf.len() as u64, "samples delivered");
    assert_eq!(
        st.records + st.skipped_lines + st.ignored_lines + st.lost_lines + st.eevdf_samples,
        st.lines,
        "every line is a record, a skip, ignored, LOST or a sample, exactly once: {st:?}"
    );
    for s in &c.skipped {
        assert!(s.line >= 1 && s.line <= st.lines, "skip line {} of {}", s.line, st.lines);
        let len = lens[s.line as usize - 1];
        assert!(
            s.column >= 1 && s.column as usize <= len + 1,
            "skip {}:{} outside its line of {len} bytes ({})",
            s.line,
            s.column,
            s.reason
        );
        assert!(s.reason.starts_with("expected "), "reason says what was expected: {}", s.reason);
    }
    let mut last = 0;
    for r in &c.records {
        assert!(r.line > last && r.line <= st.lines, "record lines increase: {} after {last}", r.line);
        last = r.line;
        assert!(!r.event.is_empty(), "record without an event name at line {}", r.line);
    }
    let mut last = 0;
    for s in &c.eevdf {
        assert!(s.line > last && s.line <= st.lines, "sample lines increase: {} after {last}", s.line);
        last = s.line;
    }
    for &(_, _, line) in &c.lost {
        assert!(line >= 1 && line <= st.lines, "LOST line {line} of {}", st.lines);
    }
}

/// Imports `bytes` into a [`TraceStore`] and checks it against the records of `c` (the same
/// bytes, already collected), then builds, serialises and prints the summary.
pub fn check_store(bytes: &[u8], c: &Collect, st: &ImportStats) {
    let mut store = TraceStore::new();
    let st2 = feed_chunks(bytes, &[bytes.len()], &mut store);
    assert_eq!(&st2, st, "same stats into a TraceStore");
    assert_eq!(store.records, c.records.len() as u64);
    assert_eq!(store.event_counts.iter().sum::<u64>(), store.records, "per-event counts add up");
    assert_eq!(store.cpus.iter().map(|x| x.records).sum::<u64>(), store.records, "per-CPU counts add up");
    assert_eq!(store.cpus.iter().map(|x| x.out_of_order).sum::<u64>(), store.out_of_order);
    let kind = |f: fn(&SchedPayload) -> bool| c.records.iter().filter(|r| f(&r.payload)).count();
    assert_eq!(store.switches.ts.len(), kind(|p| matches!(p, SchedPayload::Switch { .. })));
    assert_eq!(store.wakeups.ts.len(), kind(|p| matches!(p, SchedPayload::Wakeup { .. })));
    assert_eq!(store.migrations.ts.len(), kind(|p| matches!(p, SchedPayload::MigrateTask { .. })));
    assert_eq!(store.others.ts.len(), kind(|p| matches!(p, SchedPayload::Other { .. })));
    let n = store.tasks.len() as u32;
    let s = &store.switches;
    let w = &store.wakeups;
    for &t in s.prev.iter().chain(&s.next).chain(&w.waker).chain(&w.wakee).chain(&store.migrations.task) {
        assert!(t < n, "task index {t} of {n}");
    }
    for i in 0..store.others.ts.len() {
        assert!(store.others.task[i] < n);
        let _ = store.other_fields(i);
    }
    assert_eq!(store.eevdf.len(), c.eevdf.len());
    let sum = ImportSummary::new(st, &store);
    assert_eq!(sum.total_events, store.records);
    assert_eq!(sum.events.values().sum::<u64>(), sum.total_events);
    assert_eq!(sum.lines_read, st.lines);
    if let (Some(a), Some(b)) = (sum.first_ts_ns, sum.last_ts_ns) {
        assert!(a <= b && sum.duration_ns == b - a);
    }
    let json = serde_json::to_string(&sum).expect("summary serialises");
    assert!(json.starts_with('{'));
    let _ = sum.text();
    check_metrics(&store);
}

/// The window figures of `store` and its diff with itself (see the crate docs).
pub fn check_metrics(store: &TraceStore) {
    let tl = TraceTimeline::build(store);
    let all = window_metrics(store, &tl, &MetricsWindow::all());
    // Summed wide: a trace's timestamps can span most of u64, and several CPUs' busy time
    // together then does not fit one (a fuzzed perf script found it).
    let busy: u128 = all.cpus.iter().map(|c| u128::from(c.busy_ns)).sum();
    assert_eq!(all.tasks.iter().map(|t| u128::from(t.cpu_ns)).sum::<u128>(), busy, "tasks' CPU time = CPUs' busy time");
    for t in &all.tasks {
        assert_eq!(t.states.running_ns, t.cpu_ns, "task {}", t.task);
        assert_eq!(t.wakeup_latency.count, t.latencies_ns.len() as u64);
    }
    for c in &all.cpus {
        assert_eq!(u128::from(c.known_ns), c.depth_ns.iter().map(|&d| u128::from(d)).sum::<u128>());
        assert!(c.idle_while_overloaded_ns <= c.idle_ns && c.known_ns <= all.window_ns, "CPU {}: {c:?}", c.cpu);
    }
    let mid = all.t0 + all.window_ns / 2;
    let left = window_metrics(store, &tl, &MetricsWindow { t1: Some(mid), ..MetricsWindow::all() });
    let right = window_metrics(store, &tl, &MetricsWindow { t0: Some(mid), ..MetricsWindow::all() });
    let part = |m: &WindowMetrics, task: u32| m.tasks.iter().find(|x| x.task == task).cloned().unwrap_or_default();
    for t in &all.tasks {
        let (l, r) = (part(&left, t.task), part(&right, t.task));
        assert_eq!(l.cpu_ns + r.cpu_ns, t.cpu_ns, "task {}", t.task);
        assert_eq!(l.switches + r.switches, t.switches, "task {}", t.task);
        assert_eq!(l.wakeup_latency.count + r.wakeup_latency.count, t.wakeup_latency.count, "task {}", t.task);
        assert_eq!(l.states.sleeping_ns + r.states.sleeping_ns, t.states.sleeping_ns, "task {}", t.task);
    }
    for (c, w) in all.cpus.iter().enumerate() {
        let (l, r) = (&left.cpus[c], &right.cpus[c]);
        assert_eq!(l.known_ns + r.known_ns, w.known_ns, "CPU {c}");
        assert_eq!(l.idle_while_overloaded_ns + r.idle_while_overloaded_ns, w.idle_while_overloaded_ns, "CPU {c}");
    }
    assert_eq!(all.csv().lines().count(), all.tasks.len() + all.cpus.len() + 3);
    let input = || DiffInput { store, timeline: &tl };
    let d = diff(input(), input(), &DiffOptions::default()).expect("no --match: no error");
    assert_eq!(d.flagged, 0, "a trace against itself");
    assert!(serde_json::to_string(&d).is_ok());
    let _ = d.text();
}

/// Imports `bytes` whole, checks every property, and returns what was collected.
pub fn import_and_check(bytes: &[u8]) -> (Collect, ImportStats) {
    let mut c = Collect::default();
    let st = feed_chunks(bytes, &[bytes.len()], &mut c);
    check_text_import(bytes, &c, &st);
    check_store(bytes, &c, &st);
    (c, st)
}

/// `prefix` then `data`, as one input (targets use it to force a grammar).
pub fn with_prefix(prefix: &[u8], data: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(prefix.len() + data.len());
    v.extend_from_slice(prefix);
    v.extend_from_slice(data);
    v
}

/// Checks that an error location `(at, line)` is inside the line (0-based byte offset ≤ length).
pub fn assert_in_line(at: usize, line: &str, what: &str) {
    assert!(at <= line.len(), "{what}: error offset {at} past the end of a {}-byte line {line:?}", line.len());
}

/// True when `sub` lies inside `line` (a borrowed slice of it).
pub fn is_subslice(line: &str, sub: &str) -> bool {
    let (a, b) = (line.as_ptr() as usize, sub.as_ptr() as usize);
    b >= a && b + sub.len() <= a + line.len()
}

/// The UTF-8 lines of `bytes`, as the splitter hands them over (non-UTF-8 lines left out).
pub fn text_lines(bytes: &[u8]) -> Vec<&str> {
    let mut v: Vec<&[u8]> = bytes.split(|&c| c == b'\n').collect();
    if bytes.is_empty() || bytes.ends_with(b"\n") {
        v.pop();
    }
    v.into_iter().filter_map(|l| std::str::from_utf8(l.strip_suffix(b"\r").unwrap_or(l)).ok()).collect()
}

/// Properties of a parsed event line (tracefs, `trace-cmd report` or `perf script`) and of its
/// payload: every part borrowed from the line, the payload where `payload_at` says, payload errors
/// inside the payload, and a `sched_switch` re-printed in the kernel's `TP_printk` form parsing back
/// to the same fields.
pub fn check_event_line(line: &str, e: &schedlab_engine::import::ftrace::EventLine<'_>) {
    use schedlab_engine::import::payload::parse_payload;
    for part in [e.comm, e.flags, e.event, e.payload] {
        assert!(part.is_empty() || is_subslice(line, part), "{part:?} is not a slice of {line:?}");
    }
    assert!(line[e.payload_at..].starts_with(e.payload), "payload_at {} in {line:?}", e.payload_at);
    assert!(!e.comm.is_empty() && !e.event.is_empty());
    let _ = schedlab_engine::import::record::trace_flags::from_text(e.flags);
    match parse_payload(e.event, e.payload) {
        Err(l) => assert_in_line(l.at, e.payload, "payload"),
        Ok((p, form)) => {
            assert_eq!(form.is_some(), e.event == "sched_switch", "a switch form for every sched_switch");
            switch_round_trip(&p);
        }
    }
}

/// A `sched_switch` payload printed as the kernel's `TP_printk` does parses back to itself (for
/// comms a `name=value` list can carry: no whitespace, no `=`, not empty; states the record keeps
/// exactly).
pub fn switch_round_trip(p: &SchedPayload) {
    use schedlab_engine::import::payload::parse_payload;
    use schedlab_engine::import::record::state_bits;
    use schedlab_engine::import::PrevState;
    let SchedPayload::Switch { prev_comm, prev_pid, prev_prio, prev_state, next_comm, next_pid, next_prio, extra } = p
    else {
        return;
    };
    let plain = |c: &str| !c.is_empty() && !c.contains(|ch: char| ch.is_whitespace() || ch == '=');
    // Letters outside the kernel's table are kept only as the UNKNOWN bit (printed `?`).
    let lossy = match prev_state {
        PrevState::Raw(_) => true,
        PrevState::Blocked(bits) => bits & state_bits::UNKNOWN != 0,
        _ => false,
    };
    if !plain(prev_comm) || !plain(next_comm) || !extra.is_empty() || lossy {
        return;
    }
    let text = format!(
        "prev_comm={prev_comm} prev_pid={prev_pid} prev_prio={prev_prio} prev_state={} ==> next_comm={next_comm} next_pid={next_pid} next_prio={next_prio}",
        prev_state.kernel_text()
    );
    let (again, _) =
        parse_payload("sched_switch", &text).unwrap_or_else(|e| panic!("{text:?} does not parse back: {e:?}"));
    assert_eq!(&again, p, "{text:?}");
}

/// A located error points inside `text`: 1 ≤ line ≤ lines (+1 for an error at the very end), 1 ≤
/// column ≤ that line's length + 1, counted in characters when `chars`, else in bytes.
pub fn check_location(text: &str, line: usize, column: usize, chars: bool, what: &str) {
    let lines: Vec<&str> = text.split('\n').collect();
    assert!(line >= 1 && line <= lines.len(), "line {line} of {} lines: {what}", lines.len());
    let l = lines[line - 1];
    let len = if chars { l.chars().count() } else { l.len() };
    assert!(column >= 1 && column <= len + 1, "column {column} of a {len}-long line: {what}");
}

/// A parsed EEVDF sample printed back in `tools/capture/schedlab-eevdf.bt`'s dialect parses to
/// itself (for samples that carry every field of that dialect, and comms a `name=value` list can
/// carry: not empty, no `=`, no leading or trailing whitespace).
pub fn eevdf_round_trip(s: &EevdfSample) {
    use schedlab_engine::import::eevdf::parse_sample;
    use schedlab_engine::import::{CfsRqState, Curr, EevdfEntity, EntityState};
    fn q(prefix: &str, c: &CfsRqState) -> Option<String> {
        let (cv, cw) = match c.curr {
            Curr::Unknown => return None,
            Curr::None => (0, 0),
            Curr::Some { vruntime, weight } => (vruntime, weight),
        };
        Some(format!(
            "{prefix}zero={} {prefix}sum_w_vruntime={} {prefix}sum_weight={} {prefix}nr={} {prefix}load={} {prefix}curr_v={cv} {prefix}curr_w={cw}",
            c.zero_vruntime, c.sum_w_vruntime?, c.sum_weight?, c.nr_queued, c.load_weight?
        ))
    }
    let flag = |b: Option<bool>| b.map(u8::from);
    let text = match &s.entity {
        EevdfEntity::Task { comm, prev_state, sum_exec_runtime, se, cfs_rq } => {
            let EntityState {
                vruntime,
                deadline,
                vlag_or_vprot,
                slice,
                weight,
                depth,
                on_rq,
                sched_delayed,
                custom_slice,
            } = se;
            let plain = !comm.is_empty() && !comm.contains('=') && comm.trim() == comm && !comm.contains('\n');
            let (Some(lp), Some(on), Some(dl), Some(cu), Some(q), true) =
                (vlag_or_vprot, flag(*on_rq), flag(*sched_delayed), flag(*custom_slice), q("q_", cfs_rq), plain)
            else {
                return;
            };
            format!(
                "S {} cpu={} pid={} state={prev_state} on_rq={on} v={vruntime} d={deadline} lagprot={lp} slice={slice} w={weight} sum={sum_exec_runtime} depth={depth} delayed={dl} custom={cu} {q} comm={comm}",
                s.ts_ns, s.cpu, s.pid
            )
        }
        EevdfEntity::Group { se, cfs_rq } => {
            let (Some(lp), Some(on), Some(dl), Some(q)) =
                (se.vlag_or_vprot, flag(se.on_rq), flag(se.sched_delayed), q("gq_", cfs_rq))
            else {
                return;
            };
            format!(
                "G {} cpu={} pid={} gdepth={} gon_rq={on} gv={} gd={} glagprot={lp} gslice={} gw={} gdelayed={dl} {q}",
                s.ts_ns, s.cpu, s.pid, se.depth, se.vruntime, se.deadline, se.slice, se.weight
            )
        }
    };
    let again = parse_sample(&text, s.line).unwrap_or_else(|e| panic!("{text:?} does not parse back: {e:?}"));
    let mut expect = s.clone();
    if let EevdfEntity::Group { se, .. } = &mut expect.entity {
        se.custom_slice = None;
    }
    assert_eq!(again, expect, "{text:?}");
}

/// A few switches of the example capture (trace clock `mono`), for the dump targets' clock check.
pub const SMALL_TRACE: &str = "# trace_clock: mono
# tracer: nop
             k_a-12122   [001] d..2. 14223.008051: sched_switch: prev_comm=k_a prev_pid=12122 prev_prio=120 prev_state=R ==> next_comm=k_b next_pid=12123 next_prio=122
             k_b-12123   [001] d..2. 14223.012049: sched_switch: prev_comm=k_b prev_pid=12123 prev_prio=122 prev_state=R ==> next_comm=k_a next_pid=12122 next_prio=120
             k_a-12122   [001] d..2. 14223.016050: sched_switch: prev_comm=k_a prev_pid=12122 prev_prio=120 prev_state=R ==> next_comm=node next_pid=11691 next_prio=120
";

/// `dump` imported beside [`SMALL_TRACE`] into one store: the clock check and the summary
/// (samples and switches at any times, in any numbers) never panic and stay consistent.
pub fn check_clocks_against_small_trace(dump: &[u8]) {
    use schedlab_engine::import::clock::check_clocks;
    let mut store = TraceStore::new();
    feed_chunks(SMALL_TRACE.as_bytes(), &[SMALL_TRACE.len()], &mut store);
    let st = feed_chunks(dump, &[dump.len()], &mut store);
    if let Some(c) = check_clocks(&store) {
        assert!(c.matched <= c.samples && c.in_span <= c.samples, "{c:?}");
        let tol = schedlab_engine::import::clock::TOLERANCE_NS as u64;
        assert!(c.max_abs_offset_ns.is_none_or(|m| m.unsigned_abs() <= tol), "{c:?}");
        assert_eq!(c.median_offset_ns.is_some(), c.matched > 0, "{c:?}");
        if let Some(e) = &c.estimate {
            assert!(e.matched <= c.samples && e.runner_up <= e.matched, "{e:?}");
        }
    }
    let _ = ImportSummary::new(&st, &store).text();
}

/// Simulated time the `replay` target runs a shadow scenario for (its window may be as long as
/// the clock).
pub const REPLAY_RUN_NS: u64 = 5_000_000;

/// The replay's properties for `bytes` as a text trace (issue 16): when the import has a
/// `sched_switch` record, the shadow scenario is made; it loads as the TOML that `schedlab replay
/// --emit-scenario` prints; the per-decision replay along the trace and the comparison run and
/// are consistent; and the simulation runs [`REPLAY_RUN_NS`] with the invariant checker on. The
/// one refusal allowed: no task a `sched_switch` names is fair-class (by the last priority the
/// trace printed for it), said at the trace's name.
pub fn check_replay(bytes: &[u8]) {
    use schedlab_engine::replay::observe::Observed;
    use schedlab_engine::replay::shadow::{Layout, Pin};
    let mut obs = Observed::default();
    obs.source = "f.txt".into();
    feed_chunks(bytes, &[bytes.len()], &mut obs);
    obs.finish();
    // Both shadows: tasks free (placed and balanced, causal wakeups as `wake` steps) and
    // pinned where each ran most.
    for pin in [Pin::Free, Pin::Observed] {
        let mut layout = Layout::default();
        layout.pin = pin;
        check_shadow(&obs, &layout);
    }
}

fn check_shadow(obs: &schedlab_engine::replay::observe::Observed, layout: &schedlab_engine::replay::shadow::Layout) {
    use schedlab_engine::replay::compare::compare;
    use schedlab_engine::replay::decisions::decisions;
    use schedlab_engine::replay::shadow::shadow_scenario;
    use schedlab_engine::sim::{config::SimConfig, Simulation};
    let shadow = match shadow_scenario(obs, layout, "replay/f") {
        Ok(s) => s,
        Err(e) if obs.switches == 0 => {
            assert!(e.starts_with("f.txt: "), "a refusal names the trace: {e}");
            return;
        }
        Err(e) => {
            let fair = obs.tasks.iter().any(|t| t.is_fair() && t.main_cpu().is_some());
            assert!(!fair && e.starts_with("f.txt: no fair-class task"), "a trace with sched_switch refused: {e}");
            return;
        }
    };
    let sc = &shadow.scenario;
    assert_eq!(shadow.task_of.len(), obs.tasks.len());
    assert_eq!(shadow.task_of.iter().flatten().count(), sc.tasks.len(), "every scenario task is an observed one");
    let toml = toml::to_string(sc).unwrap_or_else(|e| panic!("the shadow scenario does not print as TOML: {e}"));
    let (again, _) = schedlab_engine::load("shadow.toml", &toml, &[])
        .unwrap_or_else(|e| panic!("the shadow scenario does not load: {e}\n{toml}"));
    assert_eq!(&again, sc, "the TOML reads back to the same scenario");
    let cfg = SimConfig::from_scenario(sc).expect("the shadow scenario's configuration");
    let d = decisions(obs, &shadow, cfg.clone());
    assert!(d.agreed <= d.scored);
    assert!(d.placements.agreed <= d.placements.scored);
    assert_eq!(d.per_cpu.iter().map(|c| c.scored).sum::<u64>(), d.scored, "per-CPU picks add up");
    assert_eq!(d.per_cpu.iter().map(|c| c.agreed).sum::<u64>(), d.agreed);
    let mut sim = Simulation::new(cfg);
    sim.check_invariants = true;
    sim.run_until(REPLAY_RUN_NS);
    let r = compare(obs, &shadow, &sim, &[], d);
    assert!((0.0..=100.0).contains(&r.agreement_pct), "agreement {}", r.agreement_pct);
    assert!(r.max_share_error_pp.is_finite() && r.max_share_error_pp <= 100.0);
    assert_eq!(r.tasks.len(), sc.tasks.len());
    serde_json::to_string(&r).expect("the report serialises");
}
