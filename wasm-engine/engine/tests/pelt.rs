//! PELT bit-exact against the machine: every call recorded in `traces/linux-6.18-pelt/pelt.txt`
//! (hardware write watchpoints on a task's and its cfs_rq's `struct sched_avg`, see that
//! folder's README and `tools/capture/schedlab-pelt.bt`) is replayed through `sched::pelt` from
//! the recorded state and inputs, and the result must equal the recorded state after the call.
//!
//! A `B` line is taken at a call's first store (last_update_time) inside
//! `__update_load_avg_{blocked_se,se,cfs_rq}`: all other fields are the state before the call;
//! last_update_time before is the value on the previous line of the same avg (every store to
//! it traps). The state after is the next `A` line of the same avg (the call's last store,
//! util_avg, when it crossed a period), or else the next `B` line's fields with this call's
//! last_update_time (a call that crossed no period ends with no util_avg store).

#![allow(clippy::disallowed_methods)] // reads the capture

use schedlab_engine::sched::pelt::{self, SchedAvg};
use std::collections::BTreeMap;
use std::path::Path;

struct Line {
    kind: char,
    fields: BTreeMap<String, i128>,
    obj: String,
}

impl Line {
    fn get(&self, k: &str) -> u64 {
        *self.fields.get(k).unwrap_or_else(|| panic!("field {k} missing")) as u64
    }
    fn avg(&self) -> SchedAvg {
        SchedAvg {
            last_update_time: self.get("lut"),
            load_sum: self.get("load_sum"),
            runnable_sum: self.get("runnable_sum"),
            util_sum: self.get("util_sum") as u32,
            period_contrib: self.get("period_contrib") as u32,
            load_avg: self.get("load_avg"),
            runnable_avg: self.get("runnable_avg"),
            util_avg: self.get("util_avg"),
        }
    }
}

fn parse_fields(words: &[&str]) -> BTreeMap<String, i128> {
    words
        .iter()
        .filter_map(|w| w.split_once('='))
        .filter_map(|(k, v)| v.parse::<i128>().ok().map(|v| (k.to_string(), v)))
        .collect()
}

#[test]
fn pelt_calls_are_bit_exact() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces/linux-6.18-pelt/pelt.txt");
    let text = std::fs::read_to_string(&path).expect("read the PELT capture");
    let mut header = BTreeMap::new();
    let mut lines = Vec::new();
    for l in text.lines() {
        let words: Vec<&str> = l.split_whitespace().collect();
        if l.starts_with("# schedlab-pelt") {
            header = parse_fields(&words);
        } else if l.starts_with("B ") || l.starts_with("A ") {
            let obj = words.iter().find_map(|w| w.strip_prefix("obj=")).unwrap().to_string();
            lines.push(Line { kind: l.as_bytes()[0] as char, fields: parse_fields(&words), obj });
        }
    }
    let h = |k: &str| header[k];
    // Which function stored, from the trapping ip (kallsyms addresses in the header).
    let func = |l: &Line| {
        let ip = l.fields["ip"];
        if (h("fn_blocked")..h("fn_se")).contains(&ip) {
            "blocked"
        } else if (h("fn_se")..h("fn_cfs")).contains(&ip) {
            "se"
        } else if (h("fn_cfs")..h("fn_end")).contains(&ip) {
            "cfs"
        } else {
            "other"
        }
    };
    let mut counts: BTreeMap<(String, &str, bool), usize> = BTreeMap::new();
    let (mut checked, mut agreed) = (0, 0);
    for obj in ["se", "cfs"] {
        let seq: Vec<&Line> = lines.iter().filter(|l| l.obj == obj).collect();
        for i in 1..seq.len() {
            let b = seq[i];
            let f = func(b);
            if b.kind != 'B' || f == "other" {
                continue;
            }
            let mut before = b.avg();
            before.last_update_time = seq[i - 1].get("lut");
            let lut_after = b.get("lut");
            let expected = match seq.get(i + 1) {
                Some(a) if a.kind == 'A' && func(a) == f => (a.avg(), true),
                _ => match seq[i + 1..].iter().find(|l| l.kind == 'B') {
                    Some(next) => (SchedAvg { last_update_time: lut_after, ..next.avg() }, false),
                    None => continue, // the last call: its result was not recorded
                },
            };
            let mut got = before;
            let crossed = match f {
                "blocked" => pelt::__update_load_avg_blocked_se(b.get("q_lut"), &mut got, b.get("w")),
                "se" => {
                    let on_rq = b.get("on_rq") != 0;
                    let runnable = if b.get("delayed") != 0 {
                        0
                    } else if b.get("my_q") != 0 {
                        b.get("runnable_weight")
                    } else {
                        on_rq as u64
                    };
                    let curr = b.get("curr") != 0;
                    pelt::__update_load_avg_se(b.get("clock_pelt"), &mut got, b.get("w"), on_rq, runnable, curr)
                }
                _ => pelt::__update_load_avg_cfs_rq(
                    b.get("clock_pelt"),
                    &mut got,
                    b.get("q_w"),
                    b.get("q_h_nr_runnable"),
                    b.get("q_curr") != 0,
                ),
            };
            checked += 1;
            let ok = got == expected.0 && crossed == expected.1;
            if ok {
                agreed += 1;
            } else {
                eprintln!("{obj} {f}: before {before:?}\n  expected {:?}\n  got      {got:?}", expected.0);
            }
            *counts.entry((obj.to_string(), f, expected.1)).or_default() += 1;
        }
    }
    for ((obj, f, crossed), n) in &counts {
        println!("{obj:3} {f:7} crossed a period: {crossed:5} {n} calls");
    }
    println!("PELT calls checked: {checked}, bit-exact: {agreed}");
    assert!(checked > 500, "too few calls in the capture: {checked}");
    assert_eq!(agreed, checked);
}
