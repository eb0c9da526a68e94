//! Tracepoint payloads in their three text renderings:
//!
//! * the kernel's `TP_printk` (include/trace/events/sched.h), printed by tracefs, `trace-cmd
//!   report -N` and `perf script` without plugins:
//!   `prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> next_comm=%s next_pid=%d next_prio=%d`,
//!   `comm=%s pid=%d prio=%d target_cpu=%03d` (older kernels add `success=%d`; vendor kernels append
//!   keys like Android's `state=W|m`), `comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d`;
//! * the libtraceevent plugin (plugins/plugin_sched_switch.c), `trace-cmd report`'s default:
//!   `prev_comm:prev_pid [prio] STATE ==> next_comm:next_pid [prio]` and
//!   `comm:pid [prio] success=1 CPU:005` (the `success=` only when the field exists). Its STATE
//!   letters come from `write_state()`'s table `"SDTtZXxW"` over the low 8 bits, so it prints the
//!   kernel's `X` (0x10) as `Z`, `Z` (0x20) as `X`, `P` as `x`, `I` as `W`, and prints `R` for a
//!   preemption (`TASK_REPORT_MAX`, which the kernel prints `R+`): **the plugin form cannot tell
//!   `R` from `R+`**;
//! * the raw fields of `trace-cmd report -R` / old `trace-cmd` text: `prev_state=1` as a number and
//!   no `==>`.
//!
//! Every other event becomes [`SchedPayload::Other`] with its `name=value` pairs: a token without
//! `=` continues the previous value, which keeps comms with spaces and unit suffixes
//! (`runtime=973671 [ns]`) whole.

use super::lex::{err, offset_in, parse_i32, parse_i64, skip_ws, token_end, Located};
use super::record::{state_bits as b, PrevState, SchedPayload, WakeKind};

/// Which rendering a `sched_switch` line used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchForm {
    /// `TP_printk`: letters, `R+` for preemption, `==>`.
    Kernel,
    /// libtraceevent plugin: `comm:pid [prio] STATE ==> ...`.
    Plugin,
    /// Raw fields: numeric `prev_state`, no `==>`.
    Raw,
}

impl SwitchForm {
    pub fn name(self) -> &'static str {
        match self {
            SwitchForm::Kernel => "kernel",
            SwitchForm::Plugin => "plugin",
            SwitchForm::Raw => "raw",
        }
    }
}

/// `name=value` pairs of a payload (values are slices of `text`), or `None` when the payload does
/// not start with `name=` (free text like `tracing_mark_write: E`). `==>` tokens are dropped.
pub fn pairs(text: &str) -> Option<Vec<(&str, &str)>> {
    let bytes = text.as_bytes();
    let mut out: Vec<(&str, &str)> = Vec::with_capacity(8);
    let mut value_start = 0;
    let mut i = skip_ws(bytes, 0);
    while i < bytes.len() {
        let e = token_end(bytes, i);
        let tok = &bytes[i..e];
        if tok != b"==>" {
            let eq = tok.iter().position(|&c| c == b'=');
            match eq {
                Some(k) if k > 0 && tok[..k].iter().all(|&c| c.is_ascii_alphanumeric() || c == b'_') => {
                    value_start = i + k + 1;
                    out.push((&text[i..i + k], &text[value_start..e]));
                }
                _ => {
                    let last = out.last_mut()?;
                    last.1 = &text[value_start..e];
                }
            }
        }
        i = skip_ws(bytes, e);
    }
    if out.is_empty() {
        return None;
    }
    Some(out)
}

/// A field value as a number and its unit suffix: `973671 [ns]` → (973671, Some("ns")),
/// `-5` → (-5, None), `0x1f` → (31, None). `None` when the value is not numeric.
pub fn numeric_value(v: &str) -> Option<(i64, Option<&str>)> {
    let (num, unit) = match v.split_once([' ', '\t']) {
        Some((n, u)) => {
            let u = u.trim();
            (n, Some(u.strip_prefix('[').and_then(|x| x.strip_suffix(']')).unwrap_or(u)))
        }
        None => (v, None),
    };
    let n = match num.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok()?,
        None => parse_i64(num)?,
    };
    Some((n, unit))
}

fn get<'a>(p: &[(&str, &'a str)], key: &str) -> Option<&'a str> {
    p.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn need<'a>(text: &str, p: &[(&str, &'a str)], key: &str, expected: &'static str) -> Result<&'a str, Located> {
    get(p, key).map_or_else(|| err(text.len(), expected), Ok)
}

fn num(text: &str, v: &str, expected: &'static str) -> Result<i32, Located> {
    parse_i32(v).map_or_else(|| err(offset_in(text, v), expected), Ok)
}

fn extras(p: &[(&str, &str)], known: &[&str]) -> Vec<(String, String)> {
    p.iter().filter(|(k, _)| !known.contains(k)).map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// Parses the payload of `event`. Offsets in errors are relative to `text`.
pub fn parse_payload(event: &str, text: &str) -> Result<(SchedPayload, Option<SwitchForm>), Located> {
    match event {
        "sched_switch" => switch(text).map(|(p, f)| (p, Some(f))),
        "sched_waking" => wakeup(text, WakeKind::Waking).map(|p| (p, None)),
        "sched_wakeup" => wakeup(text, WakeKind::Wakeup).map(|p| (p, None)),
        "sched_wakeup_new" => wakeup(text, WakeKind::WakeupNew).map(|p| (p, None)),
        "sched_migrate_task" => migrate(text).map(|p| (p, None)),
        _ => Ok((other(text), None)),
    }
}

/// Any event as ordered pairs, or as text.
pub fn other(text: &str) -> SchedPayload {
    match pairs(text) {
        Some(p) => SchedPayload::Other {
            fields: p.into_iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            text: None,
        },
        None => SchedPayload::Other { fields: Vec::new(), text: Some(text.to_string()) },
    }
}

const SWITCH_KEYS: [&str; 7] =
    ["prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid", "next_prio"];

fn switch(text: &str) -> Result<(SchedPayload, SwitchForm), Located> {
    if !text.starts_with("prev_comm=") {
        return plugin_switch(text).map(|p| (p, SwitchForm::Plugin));
    }
    let p = pairs(text).unwrap_or_default();
    let state_text = need(text, &p, "prev_state", "`prev_state=`")?;
    let (prev_state, form) = match parse_i64(state_text) {
        Some(n) => (numeric_state(n), SwitchForm::Raw),
        None => match letters(state_text, Table::Kernel) {
            Some(s) => (s, SwitchForm::Kernel),
            None => {
                return err(offset_in(text, state_text), "a state: letters `[A-Za-z|]+` with optional `+`, or a number")
            }
        },
    };
    let form = if form == SwitchForm::Raw && text.contains(" ==> ") { SwitchForm::Kernel } else { form };
    Ok((
        SchedPayload::Switch {
            prev_comm: need(text, &p, "prev_comm", "`prev_comm=`")?.to_string(),
            prev_pid: num(text, need(text, &p, "prev_pid", "`prev_pid=`")?, "a pid")?,
            prev_prio: num(text, need(text, &p, "prev_prio", "`prev_prio=`")?, "a priority")?,
            prev_state,
            next_comm: need(text, &p, "next_comm", "`next_comm=`")?.to_string(),
            next_pid: num(text, need(text, &p, "next_pid", "`next_pid=`")?, "a pid")?,
            next_prio: num(text, need(text, &p, "next_prio", "`next_prio=`")?, "a priority")?,
            extra: extras(&p, &SWITCH_KEYS),
        },
        form,
    ))
}

/// `comm:pid` split at the last colon.
fn comm_pid<'a>(text: &str, s: &'a str) -> Result<(&'a str, i32), Located> {
    let Some(c) = s.rfind(':') else { return err(offset_in(text, s), "`comm:pid`") };
    let pid = num(text, &s[c + 1..], "a pid after the last `:` of `comm:pid`")?;
    Ok((&s[..c], pid))
}

/// `[120]` → 120.
fn bracket_prio(text: &str, s: &str) -> Result<i32, Located> {
    match s.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
        Some(v) => num(text, v, "a priority in brackets `[120]`"),
        None => err(offset_in(text, s), "a priority in brackets `[120]`"),
    }
}

/// Splits off the last space-separated token: (rest trimmed, last).
fn last_token(s: &str) -> Option<(&str, &str)> {
    let s = s.trim_end();
    let sp = s.rfind([' ', '\t'])?;
    Some((s[..sp].trim_end(), &s[sp + 1..]))
}

fn plugin_switch(text: &str) -> Result<SchedPayload, Located> {
    let Some(arrow) = text.find(" ==> ") else {
        return err(0, "`prev_comm=` (kernel form) or `comm:pid [prio] STATE ==> comm:pid [prio]` (plugin form)");
    };
    let left = &text[..arrow];
    let right = text[arrow + 5..].trim();
    let Some((rest, state_text)) = last_token(left) else { return err(0, "`comm:pid [prio] STATE` before `==>`") };
    let Some(prev_state) = letters(state_text, Table::Plugin) else {
        return err(offset_in(text, state_text), "a state: letters `[A-Za-z|]+` with optional `+`");
    };
    let Some((prev, prev_prio)) = last_token(rest) else { return err(0, "`comm:pid [prio]` before the state") };
    let prev_prio = bracket_prio(text, prev_prio)?;
    let (prev_comm, prev_pid) = comm_pid(text, prev.trim_start())?;
    let Some((next, next_prio)) = last_token(right) else {
        return err(offset_in(text, right), "`comm:pid [prio]` after `==>`");
    };
    let next_prio = bracket_prio(text, next_prio)?;
    let (next_comm, next_pid) = comm_pid(text, next)?;
    Ok(SchedPayload::Switch {
        prev_comm: prev_comm.to_string(),
        prev_pid,
        prev_prio,
        prev_state,
        next_comm: next_comm.to_string(),
        next_pid,
        next_prio,
        extra: Vec::new(),
    })
}

fn wakeup(text: &str, kind: WakeKind) -> Result<SchedPayload, Located> {
    if !text.starts_with("comm=") {
        return plugin_wakeup(text, kind);
    }
    let p = pairs(text).unwrap_or_default();
    let success = match get(&p, "success") {
        Some(v) => Some(num(text, v, "a number after `success=`")?),
        None => None,
    };
    Ok(SchedPayload::Wakeup {
        kind,
        comm: need(text, &p, "comm", "`comm=`")?.to_string(),
        pid: num(text, need(text, &p, "pid", "`pid=`")?, "a pid")?,
        prio: num(text, need(text, &p, "prio", "`prio=`")?, "a priority")?,
        target_cpu: num(text, need(text, &p, "target_cpu", "`target_cpu=`")?, "a CPU number")?,
        success,
        extra: extras(&p, &["comm", "pid", "prio", "success", "target_cpu"]),
    })
}

/// `comm:pid [prio] [success=N] CPU:005`.
fn plugin_wakeup(text: &str, kind: WakeKind) -> Result<SchedPayload, Located> {
    let expected = "`comm=` (kernel form) or `comm:pid [prio] CPU:005` (plugin form)";
    let Some((mut rest, cpu)) = last_token(text) else { return err(0, expected) };
    let Some(cpu) = cpu.strip_prefix("CPU:") else { return err(offset_in(text, cpu), "`CPU:nnn` at the end") };
    let target_cpu = num(text, cpu, "a CPU number after `CPU:`")?;
    let mut success = None;
    let Some((r, mut tok)) = last_token(rest) else { return err(0, expected) };
    rest = r;
    if let Some(v) = tok.strip_prefix("success=") {
        success = Some(num(text, v, "a number after `success=`")?);
        let Some((r, t)) = last_token(rest) else { return err(0, expected) };
        (rest, tok) = (r, t);
    } else if tok == "success" || tok == "failure" {
        success = Some(i32::from(tok == "success"));
        let Some((r, t)) = last_token(rest) else { return err(0, expected) };
        (rest, tok) = (r, t);
    }
    let prio = bracket_prio(text, tok)?;
    let (comm, pid) = comm_pid(text, rest.trim_start())?;
    Ok(SchedPayload::Wakeup { kind, comm: comm.to_string(), pid, prio, target_cpu, success, extra: Vec::new() })
}

fn migrate(text: &str) -> Result<SchedPayload, Located> {
    let p = pairs(text).unwrap_or_default();
    Ok(SchedPayload::MigrateTask {
        comm: need(text, &p, "comm", "`comm=`")?.to_string(),
        pid: num(text, need(text, &p, "pid", "`pid=`")?, "a pid")?,
        prio: num(text, need(text, &p, "prio", "`prio=`")?, "a priority")?,
        orig_cpu: num(text, need(text, &p, "orig_cpu", "`orig_cpu=`")?, "a CPU number")?,
        dest_cpu: num(text, need(text, &p, "dest_cpu", "`dest_cpu=`")?, "a CPU number")?,
        extra: extras(&p, &["comm", "pid", "prio", "orig_cpu", "dest_cpu"]),
    })
}

/// Which letter table a state was printed with.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Table {
    /// `TP_printk`'s `__print_flags`: S D T t X Z P I.
    Kernel,
    /// libtraceevent `write_state()`: S D T t Z X x W (newer versions may print P and I).
    Plugin,
}

/// `R`, `R+`, `S`, `S|D`, ... → [`PrevState`]. Unknown letters set [`b::UNKNOWN`]; `+` after a
/// blocked state (pre-4.14 kernels) is dropped.
pub fn letters(s: &str, table: Table) -> Option<PrevState> {
    let (body, plus) = match s.strip_suffix('+') {
        Some(x) => (x, true),
        None => (s, false),
    };
    if body.is_empty() || !body.bytes().all(|c| c.is_ascii_alphabetic() || c == b'|') {
        return None;
    }
    if body == "R" {
        return Some(if plus { PrevState::Preempted } else { PrevState::Runnable });
    }
    let mut bits = 0u16;
    for c in body.bytes() {
        bits |= match (c, table) {
            (b'|', _) => 0,
            (b'S', _) => b::S,
            (b'D', _) => b::D,
            (b'T', _) => b::T,
            (b't', _) => b::LOWER_T,
            (b'X', Table::Kernel) | (b'Z', Table::Plugin) => b::X,
            (b'Z', Table::Kernel) | (b'X', Table::Plugin) => b::Z,
            (b'P', _) | (b'x', Table::Plugin) => b::P,
            (b'I', _) | (b'W', Table::Plugin) => b::I,
            _ => b::UNKNOWN,
        };
    }
    // Only separators (`|||`): no state at all.
    (bits != 0).then_some(PrevState::Blocked(bits))
}

/// A numeric `prev_state` (raw form). Only the values every kernel version agrees on are decoded:
/// 0 (`TASK_RUNNING`, switched out runnable), 1 (`TASK_INTERRUPTIBLE`) and 2
/// (`TASK_UNINTERRUPTIBLE`). Higher bits moved between versions (the preemption bit was 1024,
/// 2048, 4096 on 4.x kernels, 256 on 6.x), so they stay `Raw` until a format file decodes them.
pub fn numeric_state(n: i64) -> PrevState {
    match n {
        0 => PrevState::Runnable,
        1 => PrevState::Blocked(b::S),
        2 => PrevState::Blocked(b::D),
        _ => PrevState::Raw(n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sw(text: &str) -> (SchedPayload, SwitchForm) {
        let (p, f) = parse_payload("sched_switch", text).unwrap();
        (p, f.unwrap())
    }

    #[test]
    fn pairs_keep_spaces_and_units() {
        let p = pairs("comm=Web Content pid=7 runtime=973671 [ns] vruntime=5 [ns]").unwrap();
        assert_eq!(p, vec![("comm", "Web Content"), ("pid", "7"), ("runtime", "973671 [ns]"), ("vruntime", "5 [ns]")]);
        assert_eq!(pairs("0xffff00000819ff24s: TRACE_MARKER_START"), None);
        assert_eq!(pairs("overutilized=0\t  ").unwrap(), vec![("overutilized", "0")]);
    }

    #[test]
    fn numeric_values_and_units() {
        assert_eq!(numeric_value("973671 [ns]"), Some((973_671, Some("ns"))));
        assert_eq!(numeric_value("-5"), Some((-5, None)));
        assert_eq!(numeric_value("0x1f"), Some((31, None)));
        assert_eq!(numeric_value("12 usecs"), Some((12, Some("usecs"))));
        assert_eq!(numeric_value("W|m"), None);
    }

    #[test]
    fn three_switch_renderings_agree() {
        let k = sw("prev_comm=kworker/u36:1 prev_pid=51219 prev_prio=120 prev_state=R+ ==> next_comm=irq/86-mmc1 next_pid=9 next_prio=49");
        let p = sw("kworker/u36:1:51219 [120] R ==> irq/86-mmc1:9 [49]");
        let r = sw("prev_comm=kworker/u36:1 prev_pid=51219 prev_prio=120 prev_state=0 next_comm=irq/86-mmc1 next_pid=9 next_prio=49");
        assert_eq!((k.1, p.1, r.1), (SwitchForm::Kernel, SwitchForm::Plugin, SwitchForm::Raw));
        let SchedPayload::Switch { prev_comm, prev_pid, prev_state, next_comm, next_pid, next_prio, .. } = &p.0 else {
            panic!()
        };
        assert_eq!(
            (prev_comm.as_str(), *prev_pid, next_comm.as_str(), *next_pid, *next_prio),
            ("kworker/u36:1", 51219, "irq/86-mmc1", 9, 49)
        );
        assert_eq!(*prev_state, PrevState::Runnable);
        let SchedPayload::Switch { prev_state, .. } = &k.0 else { panic!() };
        assert_eq!(*prev_state, PrevState::Preempted);
        let SchedPayload::Switch { prev_state, .. } = &r.0 else { panic!() };
        assert_eq!(*prev_state, PrevState::Runnable);
    }

    #[test]
    fn comms_with_spaces_colons_dashes() {
        let (p, _) = sw("prev_comm=Web Content prev_pid=5 prev_prio=120 prev_state=S|D ==> next_comm=a-b:c d next_pid=6 next_prio=120");
        let SchedPayload::Switch { prev_comm, prev_state, next_comm, .. } = p else { panic!() };
        assert_eq!((prev_comm.as_str(), next_comm.as_str()), ("Web Content", "a-b:c d"));
        assert_eq!(prev_state, PrevState::Blocked(b::S | b::D));
        let (p, _) = sw("Web Content:5 [120] S ==> a-b:c d:6 [120]");
        let SchedPayload::Switch { prev_comm, prev_pid, next_comm, next_pid, .. } = p else { panic!() };
        assert_eq!((prev_comm.as_str(), prev_pid, next_comm.as_str(), next_pid), ("Web Content", 5, "a-b:c d", 6));
    }

    #[test]
    fn plugin_letters_are_libtraceevent_bits() {
        assert_eq!(letters("W", Table::Plugin), Some(PrevState::Blocked(b::I)));
        assert_eq!(letters("I", Table::Kernel), Some(PrevState::Blocked(b::I)));
        assert_eq!(letters("X", Table::Plugin), Some(PrevState::Blocked(b::Z)));
        assert_eq!(letters("Z", Table::Kernel), Some(PrevState::Blocked(b::Z)));
        assert_eq!(letters("K", Table::Kernel), Some(PrevState::Blocked(b::UNKNOWN)));
        assert_eq!(letters("S+", Table::Kernel), Some(PrevState::Blocked(b::S)));
        assert_eq!(letters("4", Table::Kernel), None);
        assert_eq!(numeric_state(1024), PrevState::Raw(1024));
    }

    #[test]
    fn wakeups() {
        let (p, _) =
            parse_payload("sched_wakeup", "comm=Binder_5 pid=1158 prio=120 success=1 target_cpu=002 state=W|m")
                .unwrap();
        assert_eq!(
            p,
            SchedPayload::Wakeup {
                kind: WakeKind::Wakeup,
                comm: "Binder_5".into(),
                pid: 1158,
                prio: 120,
                target_cpu: 2,
                success: Some(1),
                extra: vec![("state".into(), "W|m".into())]
            }
        );
        let (p, _) = parse_payload("sched_wakeup_new", "kworker/u8:2:89992 [120] success=1 CPU:005").unwrap();
        let SchedPayload::Wakeup { comm, pid, target_cpu, success, kind, .. } = p else { panic!() };
        assert_eq!(
            (comm.as_str(), pid, target_cpu, success, kind),
            ("kworker/u8:2", 89992, 5, Some(1), WakeKind::WakeupNew)
        );
        let (p, _) = parse_payload("sched_wakeup", "trace-cmd:89992 [120] CPU:005").unwrap();
        let SchedPayload::Wakeup { success, .. } = p else { panic!() };
        assert_eq!(success, None);
    }

    #[test]
    fn errors_are_located() {
        let t = "prev_comm=a prev_pid=x1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=1";
        assert_eq!(parse_payload("sched_switch", t).unwrap_err(), Located { at: 21, expected: "a pid" });
        let t = "a:1 [120] S ==> b:2 120";
        assert_eq!(parse_payload("sched_switch", t).unwrap_err().expected, "a priority in brackets `[120]`");
        let e = parse_payload("sched_migrate_task", "comm=a pid=1 prio=2 orig_cpu=0").unwrap_err();
        assert_eq!(e.expected, "`dest_cpu=`");
        assert!(parse_payload("sched_wakeup", "garbage").is_err());
    }
}
