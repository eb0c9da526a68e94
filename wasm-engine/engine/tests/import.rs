//! Text trace importers (issue 7) against real captures: the Linux 6.18.44 captures in
//! `traces/linux-6.18` (tracefs text and `trace-cmd report` of the same buffer must give the same
//! records), the public LISA and trappy samples (third-party: read from the folder named by
//! `SCHEDLAB_THIRD_PARTY_TRACES`, and reported as not run without it), and crafted lines for the
//! grammar corners (chunk boundaries, LOST lines, odd comms, 9-decimal timestamps, perf script,
//! located errors).
//!
//! Every expected number below was counted independently of the importer, with the shell command
//! given next to it (run from `traces/`, or from the third-party folder for its files).

#![allow(clippy::disallowed_methods)] // reads trace files

mod common;

use schedlab_engine::import::store::TraceStore;
use schedlab_engine::import::{
    import_text, EevdfEntity, EevdfSample, Format, ImportStats, ImportSummary, PrevState, SchedPayload, Skipped,
    TextImporter, TraceRecord, TraceSink, WakeKind,
};
use std::path::{Path, PathBuf};

/// A file of the repository's `traces/` folder.
fn ours(rel: &str) -> PathBuf {
    common::traces().join(rel)
}

/// Imports a file in 1 MiB chunks, as the CLI does.
fn import(path: &Path) -> (TraceStore, ImportStats) {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut store = TraceStore::new();
    let mut imp = TextImporter::new();
    for chunk in bytes.chunks(1 << 20) {
        imp.feed(chunk, &mut store);
    }
    imp.finish(&mut store);
    (store, imp.stats().clone())
}

/// Everything a sink receives, in order.
#[derive(Default, Debug, PartialEq)]
struct Collect {
    records: Vec<TraceRecord>,
    lost: Vec<(u32, u64, u64)>,
    skipped: Vec<Skipped>,
    eevdf: Vec<EevdfSample>,
    meta: Vec<(String, String)>,
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
    fn meta(&mut self, key: &str, value: &str, _line: u64) {
        self.meta.push((key.to_string(), value.to_string()));
    }
}

fn collect(bytes: &[u8], chunk: usize) -> (Collect, ImportStats) {
    let mut c = Collect::default();
    let mut imp = TextImporter::new();
    for part in bytes.chunks(chunk.max(1)) {
        imp.feed(part, &mut c);
    }
    imp.finish(&mut c);
    (c, imp.stats().clone())
}

fn collect_str(text: &str) -> Collect {
    collect(text.as_bytes(), text.len()).0
}

/// (experiment, sched_switch, sched_wakeup, sched_wakeup_new, sched_waking, sched_migrate_task,
/// all events). Counted in both files with
/// `grep -v '^#' F | grep -oE '^ *.{1,40}\[[0-9]{3}\][^:]*: [a-z_0-9]+:' | grep -oE '[a-z_0-9]+:$' | sort | uniq -c`
/// (the two files agree on every event type; no capture enabled sched_waking).
const LINUX_618: [(&str, u64, u64, u64, u64, u64, u64); 5] = [
    ("bandwidth-30-of-100", 890, 320, 4, 0, 11, 2239),
    ("cgroup-shares", 919, 344, 4, 0, 7, 2417),
    ("nice-0-vs-2", 1022, 381, 3, 0, 9, 2581),
    ("sleeper-vs-hog", 8195, 4108, 3, 0, 12, 18206),
    ("yield-vs-hog", 1609, 440, 3, 0, 5, 4334),
];

/// (experiment, pid, switch-outs under any comm, of which `R+` in trace.txt).
/// `awk -v p=prev_pid=PID '/sched_switch:/ {for(i=1;i<=NF;i++) if ($i == p) n++} END {print n}' E/trace.txt`,
/// the same count from `grep -cE "sched_switch: +.*:PID \[[0-9]+\] [A-Za-z|]+ ==>" E/trace-cmd-report.txt`,
/// and `grep -c "prev_pid=PID prev_prio=[0-9]* prev_state=R+" E/trace.txt`. The pids are those of
/// `grep -o 'prev_comm=k_[^ ]* prev_pid=[0-9]*' E/trace.txt | sort -u` (each k_* task was `bash`
/// between fork and exec, so the pid counts a few more switches than the k_* comm alone).
const K_TASKS: [(&str, i32, u64, u64); 11] = [
    ("bandwidth-30-of-100", 22799, 79, 16),
    ("bandwidth-30-of-100", 22800, 76, 15),
    ("bandwidth-30-of-100", 22801, 128, 1),
    ("cgroup-shares", 22731, 131, 0),
    ("cgroup-shares", 22732, 66, 0),
    ("cgroup-shares", 22733, 70, 1),
    ("nice-0-vs-2", 22695, 152, 1),
    ("nice-0-vs-2", 22696, 150, 0),
    ("sleeper-vs-hog", 22832, 1352, 0),
    ("sleeper-vs-hog", 22833, 1354, 0),
    ("yield-vs-hog", 22765, 378, 0),
];

fn counts(s: &TraceStore) -> (u64, u64, u64, u64, u64, u64) {
    (
        s.count("sched_switch"),
        s.count("sched_wakeup"),
        s.count("sched_wakeup_new"),
        s.count("sched_waking"),
        s.count("sched_migrate_task"),
        s.records,
    )
}

fn task(s: &TraceStore, pid: i32) -> Vec<&schedlab_engine::import::store::Task> {
    s.tasks.iter().filter(|t| t.pid == pid).collect()
}

#[test]
fn linux_618_tracefs_and_trace_cmd_report_give_the_same_records() {
    for (exp, sw, wk, wn, wg, mg, total) in LINUX_618 {
        let (txt, ts) = import(&ours(&format!("linux-6.18/{exp}/trace.txt")));
        let (rep, rs) = import(&ours(&format!("linux-6.18/{exp}/trace-cmd-report.txt")));
        assert_eq!(ts.format, Some(Format::Tracefs), "{exp}");
        assert_eq!(rs.format, Some(Format::TraceCmdReport), "{exp}");
        assert!(txt.skipped.is_empty() && rep.skipped.is_empty(), "{exp}: {:?} {:?}", txt.skipped, rep.skipped);
        assert_eq!(counts(&txt), (sw, wk, wn, wg, mg, total), "{exp} trace.txt");
        assert_eq!(counts(&rep), counts(&txt), "{exp} trace-cmd-report.txt");
        assert_eq!(txt.meta.get("switch_form").map(String::as_str), Some("kernel"));
        assert_eq!(rep.meta.get("switch_form").map(String::as_str), Some("plugin"));
        assert_eq!(txt.meta.get("cpus").map(String::as_str), Some("2"));
        assert_eq!(rep.meta.get("cpus").map(String::as_str), Some("2"));
        assert_eq!((txt.first_ts, txt.last_ts), (rep.first_ts, rep.last_ts));
        assert_eq!(txt.out_of_order, 0);

        // Switch by switch: same time, CPU, tasks; the same state except that the libtraceevent
        // plugin prints a preemption (`R+`) as `R`.
        let (a, b) = (&txt.switches, &rep.switches);
        assert_eq!((&a.ts, &a.cpu), (&b.ts, &b.cpu), "{exp}");
        for i in 0..a.ts.len() {
            let pid = |s: &TraceStore, t: u32| s.tasks[t as usize].pid;
            assert_eq!((pid(&txt, a.prev[i]), pid(&txt, a.next[i])), (pid(&rep, b.prev[i]), pid(&rep, b.next[i])));
            let sa = match a.prev_state[i] {
                PrevState::Preempted => PrevState::Runnable,
                s => s,
            };
            assert_eq!(sa, b.prev_state[i], "{exp} switch {i}");
        }
        // Wakeups: same wakee, target CPU and kind.
        assert_eq!(txt.wakeups.target_cpu, rep.wakeups.target_cpu);
        assert_eq!(txt.wakeups.kind, rep.wakeups.kind);

        let sum_t = ImportSummary::new(&ts, &txt);
        let sum_r = ImportSummary::new(&rs, &rep);
        assert_eq!(sum_t.events, sum_r.events);
        assert_eq!(sum_t.cpus, vec![0, 1]);
        let what = |s: &ImportSummary| s.missing.iter().map(|m| m.what.clone()).collect::<Vec<_>>();
        assert!(what(&sum_t).contains(&"sched_waking".to_string()));
        assert!(!what(&sum_t).iter().any(|w| w.contains("R+")));
        assert!(what(&sum_r).iter().any(|w| w.contains("R+")), "{:?}", what(&sum_r));
    }
}

#[test]
fn linux_618_k_task_switch_counts() {
    for (exp, pid, switches, preempted) in K_TASKS {
        for file in ["trace.txt", "trace-cmd-report.txt"] {
            let (s, _) = import(&ours(&format!("linux-6.18/{exp}/{file}")));
            let t = task(&s, pid);
            assert_eq!(t.len(), 1, "{exp} {file} pid {pid}: one generation");
            assert_eq!(t[0].switches_out, switches, "{exp} {file} pid {pid}");
            let comm = s.task_comm(t[0]);
            assert!(comm.rsplit(" → ").next().unwrap().starts_with("k_"), "{exp} {pid}: {comm}");
            if file == "trace.txt" {
                assert_eq!(t[0].out_preempted, preempted, "{exp} pid {pid} R+");
            } else {
                assert_eq!(t[0].out_preempted, 0, "the plugin form has no R+");
            }
        }
    }
}

/// `grep -c '^S ' E/eevdf-state.txt`, `grep -c '^G ' E/eevdf-state.txt`.
#[test]
fn linux_618_eevdf_state_dumps() {
    let expected = [
        ("bandwidth-30-of-100", 340, 274),
        ("cgroup-shares", 317, 258),
        ("nice-0-vs-2", 367, 296),
        ("sleeper-vs-hog", 2757, 2703),
        ("yield-vs-hog", 806, 752),
    ];
    for (exp, s_lines, g_lines) in expected {
        let (s, st) = import(&ours(&format!("linux-6.18/{exp}/eevdf-state.txt")));
        assert_eq!(st.format, Some(Format::EevdfState));
        assert!(s.skipped.is_empty(), "{exp}: {:?}", s.skipped);
        assert_eq!(s.records, 0);
        let tasks = s.eevdf.iter().filter(|e| matches!(e.entity, EevdfEntity::Task { .. })).count();
        assert_eq!((tasks, s.eevdf.len() - tasks), (s_lines, g_lines), "{exp}");
        let sum = ImportSummary::new(&st, &s);
        assert_eq!(sum.eevdf_samples, (s_lines + g_lines) as u64);
        let s_sum: u64 = sum.eevdf_tasks.iter().map(|t| t.samples).sum();
        assert_eq!(s_sum, s_lines as u64);
        assert!(sum.eevdf_tasks.iter().any(|t| t.comm.starts_with("k_") && t.samples > 0));
    }
}

/// LISA's `tests/assets/trace_txt/trace.txt`: 1,856 sched_switch and 1,068 sched_wakeup (the
/// documented counts; `grep -c 'sched_switch:'`, `grep -c 'sched_wakeup:'`), 14 `print`, 3
/// `sched_overutilized`; numeric states `grep -o 'prev_state=[0-9]*' | sort | uniq -c`: 438 × 0,
/// 929 × 1, 134 × 2, 335 × 4096, 17 × 64, 3 × 130.
#[test]
fn lisa_trace_txt() {
    let Some(dir) = common::third_party("lisa_trace_txt", "LISA's trace_txt-trace.txt") else { return };
    let (s, st) = import(&dir.join("lisa/trace_txt-trace.txt"));
    assert_eq!(st.format, Some(Format::TraceCmdReport));
    assert_eq!((st.lines, s.skipped.len()), (2943, 0), "{:?}", s.skipped);
    assert_eq!(s.count("sched_switch"), 1856);
    assert_eq!(s.count("sched_wakeup"), 1068);
    assert_eq!(s.count("print"), 14);
    assert_eq!(s.count("sched_overutilized"), 3);
    assert_eq!(s.records, 1856 + 1068 + 14 + 3);
    assert_eq!(s.meta.get("switch_form").map(String::as_str), Some("raw"));
    assert_eq!(s.meta.get("version").map(String::as_str), Some("6"));
    let n = |p: PrevState| s.switches.prev_state.iter().filter(|&&x| x == p).count();
    assert_eq!(n(PrevState::Runnable), 438);
    assert_eq!(n(PrevState::Blocked(1)), 929);
    assert_eq!(n(PrevState::Blocked(2)), 134);
    assert_eq!((n(PrevState::Raw(4096)), n(PrevState::Raw(64)), n(PrevState::Raw(130))), (335, 17, 3));
    // `grep -o 'sched_switch: .*prev_pid=[0-9]*' F | grep -o 'prev_pid=[0-9]*' | sort | uniq -c`
    assert_eq!(task(&s, 1642)[0].switches_out, 273);
    assert_eq!(task(&s, 46)[0].switches_out, 272);
    // The first line's current task is `<...>-1701`: a pid, no comm from the prefix.
    assert_eq!(s.task_comm(task(&s, 1701)[0]), "trace-cmd");
    let sum = ImportSummary::new(&st, &s);
    assert_eq!(sum.cpus_declared, Some(6));
    assert_eq!(sum.raw_prev_states.get(&4096), Some(&335));
    let wake_success = s.wakeups.ts.len();
    assert_eq!(wake_success, 1068);
    // Free-text payloads are kept as text.
    let print = s.events.id("print").unwrap();
    let i = s.others.event.iter().position(|&e| e == print).unwrap();
    assert_eq!(s.other_fields(i), vec![("", "0xffff00000819ff24s: TRACE_MARKER_START")]);
}

/// trappy `tests/trace_sched.txt`: 11 event lines (`grep -c '\[0' F`), 2 sched_wakeup_new with
/// `success=1` from `<...>-19427`, 2 sched_wakeup.
#[test]
fn trappy_trace_sched() {
    let Some(dir) = common::third_party("trappy_trace_sched", "trappy's trace_sched.txt") else { return };
    let (s, st) = import(&dir.join("trappy/trace_sched.txt"));
    assert_eq!(st.format, Some(Format::TraceCmdReport));
    assert!(s.skipped.is_empty(), "{:?}", s.skipped);
    assert_eq!((s.records, s.count("sched_wakeup_new"), s.count("sched_wakeup")), (11, 2, 2));
    assert_eq!(s.count("sched_load_avg_task"), 1);
    let t = task(&s, 19427);
    assert_eq!(s.task_comm(t[0]), "<...>");
    assert_eq!(s.wakeups.kind.iter().filter(|&&k| k == WakeKind::WakeupNew).count(), 2);
    let fields = s.other_fields(1);
    assert_eq!(fields[0], ("comm", "sshd"));
    assert_eq!(fields.last(), Some(&("avg_period", "48595")));
}

/// trappy `tests/raw_trace.txt`: `trace-cmd report -R` (no `==>`), 3 sched_switch with
/// prev_state 1024, 1, 1; `CPU 3 is empty`, `CPU 4 is empty`.
#[test]
fn trappy_raw_trace() {
    let Some(dir) = common::third_party("trappy_raw_trace", "trappy's raw_trace.txt") else { return };
    let (s, st) = import(&dir.join("trappy/raw_trace.txt"));
    assert_eq!(st.format, Some(Format::TraceCmdReport));
    assert!(s.skipped.is_empty());
    assert_eq!(s.count("sched_switch"), 3);
    assert_eq!(s.switches.prev_state, vec![PrevState::Raw(1024), PrevState::Blocked(1), PrevState::Blocked(1)]);
    assert_eq!(s.meta.get("cpu_empty").map(String::as_str), Some("3,4"));
    assert_eq!(s.meta.get("switch_form").map(String::as_str), Some("raw"));
    // `ls-4734` switches out as prev_comm=trace-cmd: one task, both comms.
    assert_eq!(s.task_comm(task(&s, 4734)[0]), "ls → trace-cmd");
}

/// trappy `tests/trace_systrace.html`: tracefs text with a TGID column inside the HTML; 10 events
/// (4 sched_switch, 4 sched_wakeup with `state=W` / `state=W|m`, 2 tracing_mark_write).
#[test]
fn trappy_systrace_html() {
    let Some(dir) = common::third_party("trappy_systrace_html", "trappy's trace_systrace.html") else { return };
    let bytes = std::fs::read(dir.join("trappy/trace_systrace.html")).unwrap();
    let (c, st) = collect(&bytes, 1 << 20);
    assert_eq!(st.format, Some(Format::SystraceHtml));
    assert_eq!(st.grammar, Some(Format::Tracefs));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    assert_eq!(c.records.len(), 10);
    let n = |e: &str| c.records.iter().filter(|r| r.event == e).count();
    assert_eq!((n("sched_switch"), n("sched_wakeup"), n("tracing_mark_write")), (4, 4, 2));
    let r = &c.records[1];
    assert_eq!((r.comm.as_str(), r.pid, r.cpu, r.ts_ns), ("com.android.systemui", 611, 1, 514_769_086_090_000));
    let extras: Vec<&Vec<(String, String)>> = c
        .records
        .iter()
        .filter_map(|r| match &r.payload {
            SchedPayload::Wakeup { extra, .. } => Some(extra),
            _ => None,
        })
        .collect();
    assert_eq!(extras[2], &vec![("state".to_string(), "W|m".to_string())]);
    let SchedPayload::Switch { prev_comm, prev_state, .. } = &c.records[2].payload else { panic!() };
    assert_eq!((prev_comm.as_str(), *prev_state), ("ndroid.systemui", PrevState::Blocked(1)));
    assert_eq!(c.meta.iter().find(|(k, _)| k == "cpus").map(|(_, v)| v.as_str()), Some("6"));
}

/// Trace text on the same line as `<script class="trace-data">`: a skip there is located in the
/// whole line, not in the text after the tag.
#[test]
fn systrace_text_after_the_opening_tag_is_located_in_its_line() {
    let tag = "  <script class=\"trace-data\" type=\"application/text\">";
    let html = format!(
        "<!DOCTYPE html>\n<html>\n{tag}  bogus line here\n  bash-1 [000] d..2. 1.000001: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n</script>\n"
    );
    let c = collect_str(&html);
    assert_eq!(c.records.len(), 1);
    assert_eq!(c.skipped.len(), 1, "{:?}", c.skipped);
    assert_eq!((c.skipped[0].line, c.skipped[0].column as usize), (3, tag.len() + 3));
}

/// Both `.dat` versions (the 6.18.44 captures are version 7; version 6 from `trace-cmd convert`
/// of one of them, cut down by the fuzz seeds, in `tests/fixtures/fuzz`): the text importer
/// recognises the magic and skips the file with one reason instead of reading it as text.
#[test]
fn trace_dat_is_recognised_not_parsed() {
    for path in [ours("linux-6.18/nice-0-vs-2/trace.dat"), common::repo_root().join(V6_DAT)] {
        let (s, st) = import(&path);
        assert_eq!(st.binary, Some("trace-cmd .dat"), "{}", path.display());
        assert_eq!((s.records, s.skipped.len()), (0, 1));
        assert_eq!(st.bytes, std::fs::metadata(&path).unwrap().len());
    }
}

/// A version 6 `.dat` of our own (see `tests/fixtures/README.md`).
const V6_DAT: &str = "wasm-engine/engine/tests/fixtures/fuzz/nice-0-vs-2-v6-cut.dat";

/// Crafted corners (CRLF, LOST, odd comms, bytes that are not UTF-8): every chunking gives the
/// one-chunk result, for them alone, for our report text, and followed by trappy's systrace HTML.
const TRICKY: &[u8] = b"# tracer: nop\r\n  a b-c:d-12 [001] d..2. 1.000000001: sched_switch: prev_comm=a b-c:d prev_pid=12 prev_prio=120 prev_state=R+ ==> next_comm=x next_pid=3 next_prio=120\r\nCPU:1 [LOST 7 EVENTS]\ngar\xffbage\nnot a line\n  x-1 [000] d..2. 2.0: sched_wakeup: comm=y pid=2 prio=1 target_cpu=000";

fn same_in_any_chunks(text: &[u8]) {
    let (whole, ws) = collect(text, text.len());
    assert!(!whole.records.is_empty());
    for n in 1..=7 {
        let (parts, ps) = collect(text, n);
        assert_eq!(ps, ws, "chunk {n}");
        assert!(parts == whole, "chunk size {n} changes the output");
    }
}

#[test]
fn chunk_boundaries_do_not_matter() {
    same_in_any_chunks(TRICKY);
    same_in_any_chunks(&std::fs::read(ours("linux-6.18/nice-0-vs-2/trace-cmd-report.txt")).unwrap());
}

#[test]
fn chunk_boundaries_do_not_matter_with_a_systrace_html_after_the_corners() {
    let Some(dir) = common::third_party(
        "chunk_boundaries_do_not_matter_with_a_systrace_html_after_the_corners",
        "trappy's trace_systrace.html",
    ) else {
        return;
    };
    let mut text = TRICKY.to_vec();
    text.extend_from_slice(&std::fs::read(dir.join("trappy/trace_systrace.html")).unwrap());
    text.extend_from_slice(b"\n");
    same_in_any_chunks(&text);
}

#[test]
fn lost_lines() {
    let c = collect_str("# tracer: nop\nCPU:2 [LOST 1234 EVENTS]\n  a-1 [002] d..2. 1.000000: sched_waking: comm=b pid=2 prio=120 target_cpu=002\nCPU:0 [77 EVENTS DROPPED]\nCPU:1 [EVENTS DROPPED]\n");
    assert_eq!(c.lost, vec![(2, 1234, 2), (0, 77, 4), (1, 0, 5)]);
    assert_eq!(c.records.len(), 1);
    let (s, st) = import_text(b"cpus=2\nCPU:1 [LOST 5 EVENTS]\nCPU:1 [LOST 6 EVENTS]\n");
    let sum = ImportSummary::new(&st, &s);
    assert_eq!(sum.lost_events.get(&1), Some(&11));
    assert!(sum.missing.iter().any(|m| m.what.contains("lost")));
}

#[test]
fn comms_with_spaces_colons_dashes_and_brackets() {
    let c = collect_str(concat!(
        "# tracer: nop\n",
        "  Web Content-42    [003] d..2.  10.000001: sched_switch: prev_comm=Web Content prev_pid=42 prev_prio=120 prev_state=S ==> next_comm=kworker/u36:1 next_pid=51219 next_prio=120\n",
        "  irq/86-mmc1-9     [000] d..2.  10.000002: sched_migrate_task: comm=a:b-c pid=5 prio=120 orig_cpu=0 dest_cpu=1\n",
        "  a [1] b-7 [002] .... 10.000003: sched_stat_runtime: comm=a [1] b pid=7 runtime=5 [ns]\n",
    ));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    assert_eq!((c.records[0].comm.as_str(), c.records[0].pid), ("Web Content", 42));
    let SchedPayload::Switch { prev_comm, next_comm, next_pid, .. } = &c.records[0].payload else { panic!() };
    assert_eq!((prev_comm.as_str(), next_comm.as_str(), *next_pid), ("Web Content", "kworker/u36:1", 51219));
    assert_eq!((c.records[1].comm.as_str(), c.records[1].pid), ("irq/86-mmc1", 9));
    let SchedPayload::MigrateTask { comm, dest_cpu, .. } = &c.records[1].payload else { panic!() };
    assert_eq!((comm.as_str(), *dest_cpu), ("a:b-c", 1));
    assert_eq!((c.records[2].comm.as_str(), c.records[2].pid, c.records[2].cpu), ("a [1] b", 7, 2));
    let SchedPayload::Other { fields, .. } = &c.records[2].payload else { panic!() };
    assert_eq!(fields[0], ("comm".to_string(), "a [1] b".to_string()));
    assert_eq!(fields[2], ("runtime".to_string(), "5 [ns]".to_string()));
    // The plugin form splits comm:pid at the last colon.
    let c = collect_str("cpus=1\n  kworker/u36:1-51219 [000]  1.5: sched_switch: kworker/u36:1:51219 [120] W ==> Web Content:42 [120]\n");
    let SchedPayload::Switch { prev_comm, prev_pid, prev_state, next_comm, next_pid, .. } = &c.records[0].payload
    else {
        panic!("{:?}", c.skipped)
    };
    assert_eq!(
        (prev_comm.as_str(), *prev_pid, next_comm.as_str(), *next_pid),
        ("kworker/u36:1", 51219, "Web Content", 42)
    );
    assert_eq!(*prev_state, PrevState::Blocked(0x80), "the plugin's W is the kernel's I");
}

#[test]
fn nine_decimal_and_other_timestamps() {
    let c = collect_str(concat!(
        "cpus=1\n",
        "  a-1 [000]  544.830864123: x: y=1\n",
        "  a-1 [000]  544.830865: x: y=1\n",
        "  a-1 [000]  544830866000: x: y=1\n",
    ));
    let ts: Vec<u64> = c.records.iter().map(|r| r.ts_ns).collect();
    assert_eq!(ts, vec![544_830_864_123, 544_830_865_000, 544_830_866_000]);
    // 18446744073.709551615 s is u64::MAX ns; one more does not fit and is reported, not wrapped.
    let c =
        collect_str("cpus=1\n  a-1 [000] 18446744073.709551615: x: y=1\n  a-1 [000] 18446744073.709551616: x: y=1\n");
    assert_eq!(c.records[0].ts_ns, u64::MAX);
    assert_eq!((c.skipped.len(), c.skipped[0].line, c.skipped[0].column), (1, 3, 13));
}

#[test]
fn out_of_order_timestamps_are_counted_and_kept() {
    let (s, st) = import_text(
        b"cpus=2\n  a-1 [000] 2.0: x: y=1\n  a-1 [001] 1.0: x: y=1\n  a-1 [000] 1.5: x: y=1\n  a-1 [000] 3.0: x: y=1\n",
    );
    assert_eq!((s.records, s.out_of_order), (4, 1));
    assert_eq!(ImportSummary::new(&st, &s).duration_ns, 2_000_000_000);
}

#[test]
fn perf_script_both_payload_styles_and_callchains() {
    let c = collect_str(concat!(
        "            perf  112408 [000] 457541.580856:       sched:sched_switch: prev_comm=perf prev_pid=112408 prev_prio=120 prev_state=R+ ==> next_comm=migration/0 next_pid=15 next_prio=0\n",
        "\tffffffff81c0a1b2 __schedule+0x2e2 ([kernel.kallsyms])\n",
        "\tffffffff81c0a6f4 schedule+0x44 ([kernel.kallsyms])\n",
        "\n",
        "            perf 13322 [002]   233.835807:                     sched:sched_switch: perf:13322 [120] R ==> migration/2:27 [0]\n",
        "     migration/2    27 [002]   233.835811123:               sched:sched_migrate_task: comm=perf pid=13322 prio=120 orig_cpu=2 dest_cpu=3\n",
        "            perf 16984/16999 [005] 991962.879966:   sched:sched_wakeup: comm=perf pid=16999 prio=120 target_cpu=005\n",
    ));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    assert_eq!(c.records.len(), 4);
    let SchedPayload::Switch { prev_state, next_comm, next_prio, .. } = &c.records[0].payload else { panic!() };
    assert_eq!((*prev_state, next_comm.as_str(), *next_prio), (PrevState::Preempted, "migration/0", 0));
    let SchedPayload::Switch { prev_comm, prev_pid, next_pid, .. } = &c.records[1].payload else { panic!() };
    assert_eq!((prev_comm.as_str(), *prev_pid, *next_pid), ("perf", 13322, 27));
    assert_eq!(
        (c.records[2].comm.as_str(), c.records[2].pid, c.records[2].ts_ns),
        ("migration/2", 27, 233_835_811_123)
    );
    assert_eq!((c.records[3].pid, c.records[3].cpu), (16999, 5));
    let (_, st) = collect(b"  perf 1 [000] 1.000000: sched:sched_switch: a:1 [1] R ==> b:2 [1]\n", 64);
    assert_eq!(st.format, Some(Format::PerfScript));
    let forms: Vec<&str> = c.meta.iter().filter(|(k, _)| k == "switch_form").map(|(_, v)| v.as_str()).collect();
    assert_eq!(forms, vec!["kernel", "plugin"]);
}

#[test]
fn garbage_lines_are_located_and_grouped() {
    let c = collect_str(concat!(
        "# tracer: nop\n",
        "  a-1 [000] d..2. 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=x next_prio=120\n",
        "  a-1 [000] d..2. 1.0000000000: x: y\n",
        "hello world\n",
        "  a-1 [000] d..2. 1.000000: sched_wakeup: comm=b pid=2 prio=120\n",
        "  a-1 [000] d..2. 1.000000: sched_switch: a:1 [120] ?? ==> b:2 [120]\n",
    ));
    let got: Vec<(u64, u32, &str)> = c.skipped.iter().map(|s| (s.line, s.column, s.reason.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (2, 118, "expected a pid"),
            (3, 19, "expected a timestamp `secs.usecs:` (0 to 9 decimals)"),
            (4, 1, "expected `TASK-PID [CPU]` (task, last `-`, pid, then the CPU in brackets)"),
            (5, 64, "expected `target_cpu=`"),
            (6, 53, "expected a state: letters `[A-Za-z|]+` with optional `+`"),
        ]
    );
    assert!(c.records.is_empty());
    // Grouped in the store, with examples.
    let text = "# tracer: nop\nx\ny\nz\n1\n2\n3\n";
    let (s, st) = import_text(text.as_bytes());
    let sum = ImportSummary::new(&st, &s);
    assert_eq!((sum.lines_skipped, sum.skipped.len()), (6, 1));
    assert_eq!(sum.skipped[0].examples, vec!["2:1", "3:1", "4:1", "5:1", "6:1"]);
}

#[test]
fn undetected_input_skips_every_line_with_a_reason() {
    let (s, st) = import_text(b"hello\nworld\n\xff\n");
    assert_eq!(st.format, None);
    assert_eq!(s.skipped.values().map(|g| g.count).sum::<u64>(), 3);
    assert!(s.skipped.keys().any(|r| r.starts_with("expected a trace line")));
    assert_eq!(ImportSummary::new(&st, &s).format_name, "unrecognised");
}

#[test]
fn pid_reuse_starts_a_new_generation() {
    let (s, _) = import_text(concat!(
        "cpus=1\n",
        "  a-10 [000] 1.0: sched_process_exit: comm=a pid=10 prio=120\n",
        "  a-10 [000] 1.1: sched_switch: prev_comm=a prev_pid=10 prev_prio=120 prev_state=X ==> next_comm=p next_pid=5 next_prio=120\n",
        "  p-5 [000] 2.0: sched_process_fork: comm=p pid=5 child_comm=p child_pid=10\n",
        "  p-5 [000] 2.1: sched_switch: prev_comm=p prev_pid=5 prev_prio=120 prev_state=S ==> next_comm=p next_pid=10 next_prio=120\n",
        "  p-10 [000] 2.2: sched_process_exec: filename=/bin/b pid=10 old_pid=10\n",
        "  b-10 [000] 2.3: sched_switch: prev_comm=b prev_pid=10 prev_prio=120 prev_state=S ==> next_comm=p next_pid=5 next_prio=120\n",
        "  p-5 [000] 3.0: sched_process_fork: comm=p pid=5 child_comm=p child_pid=10\n",
    )
    .as_bytes());
    let gens: Vec<(u32, String, u64)> =
        task(&s, 10).iter().map(|t| (t.generation, s.task_comm(t), t.switches_out)).collect();
    assert_eq!(gens, vec![(0, "a".to_string(), 1), (1, "p → b".to_string(), 1), (2, "p".to_string(), 0)]);
}

/// `trace-cmd report -N`: the report's prefix (no latency flags, padded event column) with the
/// kernel `TP_printk` payloads.
#[test]
fn trace_cmd_report_dash_n_form() {
    let (s, st) = import_text(
        concat!(
            "cpus=2\n",
            "      capture.sh-22673 [000]   544.830869: sched_wakeup_new:     comm=capture.sh pid=22694 prio=120 target_cpu=000\n",
            "      capture.sh-22673 [000]   544.830873: sched_switch:         prev_comm=capture.sh prev_pid=22673 prev_prio=120 prev_state=R+ ==> next_comm=capture.sh next_pid=22694 next_prio=120\n",
        )
        .as_bytes(),
    );
    assert_eq!(st.format, Some(Format::TraceCmdReport));
    assert_eq!(s.meta.get("switch_form").map(String::as_str), Some("kernel"));
    assert_eq!(s.switches.prev_state, vec![PrevState::Preempted]);
    assert_eq!(s.wakeups.kind, vec![WakeKind::WakeupNew]);
    assert_eq!(s.tasks[s.switches.next[0] as usize].pid, 22694);
    assert!(ImportSummary::new(&st, &s).missing.iter().all(|m| !m.what.contains("R+")));
}
