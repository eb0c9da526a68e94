//! "Why this pick" in plain words with the numbers, for one row of the picks table: which
//! entities were eligible, which had the earliest virtual deadline, which protection
//! (RUN_TO_PARITY's vprot window) or buddy (and who set it) decided, and what would have won
//! without it. Each row is one level of a decision (one cfs_rq); the caller names the level.
//!
//! The rules are those of `pick_next_entity()` and `__pick_eevdf()` in Linux 6.18.44
//! (`sched/pick.rs`): an eligible next buddy wins first (PICK_BUDDY); then an eligible,
//! still-protected curr; then the eligible entity with the earliest deadline, curr included.
//! Virtual times are given relative to the queue's V (avg_vruntime) at the pick: lag is
//! V − vruntime, and a deadline reads "V+1.400 ms".

use super::log::{flag, BuddySource, EventKind, EventLog, PickReason};
use crate::sched::features::SchedFeatures;

/// At most this many entities are listed by name in one sentence.
const MAX_LISTED: usize = 8;

/// One candidate of a pick, relative to the queue's V.
#[derive(Debug, Clone)]
pub struct Cand {
    /// Log node (task id, or GROUP_NODE | task group).
    pub node: u32,
    /// Display name.
    pub name: String,
    /// V − vruntime (virtual ns).
    pub lag: i64,
    /// deadline − V (virtual ns).
    pub deadline: i64,
    /// vprot − vruntime (virtual ns); meaningful for curr.
    pub prot_left: i64,
    /// `flag` bits.
    pub flags: u8,
}

impl Cand {
    fn has(&self, f: u8) -> bool {
        self.flags & f != 0
    }
}

/// The candidates of pick `index`, in logged order (curr first, then by deadline).
pub fn candidates(log: &EventLog, index: usize, name: &dyn Fn(u32) -> String) -> Vec<Cand> {
    let (p, c) = (&log.picks, &log.cands);
    let v = p.avg_vruntime[index];
    let (s, n) = (p.cand_start[index] as usize, p.cand_len[index] as usize);
    (s..s + n)
        .map(|k| Cand {
            node: c.task[k],
            name: name(c.task[k]),
            lag: v.wrapping_sub(c.vruntime[k]) as i64,
            deadline: c.deadline[k].wrapping_sub(v) as i64,
            prot_left: c.vprot[k].wrapping_sub(c.vruntime[k]) as i64,
            flags: c.flags[k],
        })
        .collect()
}

/// A duration in ns as the UI prints it: "1.350 ms", "200 µs", "12 ns" (sign kept).
pub fn fmt_ns(ns: i64) -> String {
    let a = ns.unsigned_abs();
    let sign = if ns < 0 { "−" } else { "" };
    if a >= 1_000_000_000 {
        format!("{sign}{:.3} s", a as f64 / 1e9)
    } else if a >= 1_000_000 {
        format!("{sign}{:.3} ms", a as f64 / 1e6)
    } else if a >= 1_000 {
        let s = format!("{:.3}", a as f64 / 1e3);
        let s = s.trim_end_matches('0').trim_end_matches('.');
        format!("{sign}{s} µs")
    } else {
        format!("{sign}{a} ns")
    }
}

/// A lag: "+200 µs", "−1.350 ms", "0".
pub fn fmt_lag(lag: i64) -> String {
    match lag {
        0 => "0".to_string(),
        l if l > 0 => format!("+{}", fmt_ns(l)),
        l => fmt_ns(l),
    }
}

/// A deadline relative to V: "V+1.400 ms", "V−200 µs", "V".
pub fn fmt_deadline(d: i64) -> String {
    match d {
        0 => "V".to_string(),
        d if d > 0 => format!("V+{}", fmt_ns(d)),
        d => format!("V{}", fmt_ns(d)),
    }
}

fn describe(c: &Cand) -> String {
    let asleep = if c.has(flag::DELAYED) { ", asleep but still queued (delayed dequeue)" } else { "" };
    format!("{} (lag {}, deadline {}{asleep})", c.name, fmt_lag(c.lag), fmt_deadline(c.deadline))
}

fn list(cs: &[&Cand]) -> String {
    let mut parts: Vec<String> = cs.iter().take(MAX_LISTED).map(|c| describe(c)).collect();
    if cs.len() > MAX_LISTED {
        parts.push(format!("and {} more", cs.len() - MAX_LISTED));
    }
    parts.join(", ")
}

/// The entity with the earliest deadline (eligible ones only if asked), optionally ignoring
/// one node. On a tie a queued entity beats curr, as in `__pick_eevdf()` (curr must be
/// strictly earlier), and queued ones keep their tree order.
fn earliest(cs: &[Cand], eligible_only: bool, skip: Option<u32>) -> Option<&Cand> {
    cs.iter()
        .filter(|c| (!eligible_only || c.has(flag::ELIGIBLE)) && Some(c.node) != skip)
        .min_by_key(|c| (c.deadline, c.has(flag::CURR)))
}

/// The names of entities a "delayed dequeue" pick removed just before pick `index` (same
/// time, same CPU): the pick had landed on a sleeping entity and was redone.
fn delayed_before(log: &EventLog, index: usize, name: &dyn Fn(u32) -> String) -> Vec<String> {
    let p = &log.picks;
    let (t, cpu) = (p.t[index], p.cpu[index]);
    if index == 0
        || p.t[index - 1] != t
        || p.cpu[index - 1] != cpu
        || p.reason[index - 1] != PickReason::DelayedDequeued as u8
    {
        return Vec::new();
    }
    let (lo, hi) = log.event_window(t, t.saturating_add(1));
    let e = &log.events;
    (lo..hi)
        .filter(|&i| e.kind[i] == EventKind::DelayedDequeue as u8 && e.cpu[i] == cpu)
        .map(|i| name(e.task[i]))
        .collect()
}

/// The plain-words reasoning of pick `index` (one level of a decision). `name` names log
/// nodes; `feat` are the run's features (RUN_TO_PARITY and PICK_BUDDY change the words).
pub fn pick_words(log: &EventLog, index: usize, name: &dyn Fn(u32) -> String, feat: &SchedFeatures) -> String {
    let p = &log.picks;
    let reason = PickReason::from_u8(p.reason[index]).expect("valid pick reason");
    let cs = candidates(log, index, name);
    let winner_node = p.task[index];
    let winner = cs.iter().find(|c| c.node == winner_node);
    let who = winner.map(|c| c.name.clone()).unwrap_or_else(|| name(winner_node));
    let buddy_src = BuddySource::from_u8(p.buddy_src.get(index).unwrap_or(0)).unwrap_or_default();
    let mut out = Vec::new();
    let gone = delayed_before(log, index, name);
    if !gone.is_empty() {
        out.push(format!(
            "First, {} had won this pick while asleep: delayed dequeue had kept it queued with negative lag, so it was dequeued for good and the pick was redone.",
            gone.join(" and ")
        ));
    }
    let best_eligible = earliest(&cs, true, None);
    match (reason, winner) {
        (PickReason::OnlyEntity, _) => {
            out.push(format!("{who} was the only entity queued here, so nothing was compared."));
        }
        (PickReason::Buddy, Some(_)) if cs.len() == 1 => {
            out.push(format!(
                "{who} was the only entity queued here (it was also the next buddy, set by {}).",
                buddy_src.words()
            ));
        }
        (PickReason::Buddy, Some(w)) => {
            out.push(format!(
                "{who} was picked as the next buddy, set by {}. A buddy is honoured before any deadline comparison when it is eligible (PICK_BUDDY), and {who} was: lag {}.",
                buddy_src.words(),
                fmt_lag(w.lag)
            ));
            if let Some(b) = best_eligible.filter(|b| b.node != w.node) {
                out.push(format!(
                    "By deadline alone {} would have been picked ({} against {who}'s {}).",
                    b.name,
                    fmt_deadline(b.deadline),
                    fmt_deadline(w.deadline)
                ));
            }
        }
        (PickReason::Protected, Some(w)) => {
            let rule = if feat.run_to_parity {
                "RUN_TO_PARITY: at pick, vprot is set to its deadline, or to vruntime plus the smallest slice queued here if that comes first"
            } else {
                "NO_RUN_TO_PARITY: at pick, vprot is set to vruntime plus the 0.7 ms normalized base slice, or its deadline if that comes first"
            };
            out.push(format!(
                "{who} kept the CPU: it was running, eligible (lag {}) and still protected, its vruntime {} short of vprot ({rule}).",
                fmt_lag(w.lag),
                fmt_ns(w.prot_left)
            ));
            match earliest(&cs, true, Some(w.node)) {
                Some(b) if b.deadline <= w.deadline => out.push(format!(
                    "Without the protection {} would have been picked: its deadline {} is earlier than {who}'s {}.",
                    b.name,
                    fmt_deadline(b.deadline),
                    fmt_deadline(w.deadline)
                )),
                _ => out.push(format!(
                    "Without the protection {who} would still have won: its deadline {} is the earliest among the eligible.",
                    fmt_deadline(w.deadline)
                )),
            }
        }
        (PickReason::CurrEarlierDeadline, Some(w)) => match earliest(&cs, true, Some(w.node)) {
            Some(b) => out.push(format!(
                "{who} kept the CPU: it was running and eligible (lag {}), and its deadline {} is earlier than that of every eligible queued entity (the best, {}, has {}). Its protection had run out, so this is a plain deadline comparison.",
                fmt_lag(w.lag),
                fmt_deadline(w.deadline),
                b.name,
                fmt_deadline(b.deadline)
            )),
            None => out.push(format!(
                "{who} kept the CPU: it was running and eligible (lag {}), and no queued entity was eligible.",
                fmt_lag(w.lag)
            )),
        },
        (PickReason::EarliestEligibleDeadline, Some(w)) => {
            let tied = |curr: bool| -> Vec<&str> {
                cs.iter()
                    .filter(|c| c.node != w.node && c.has(flag::ELIGIBLE) && c.deadline == w.deadline && c.has(flag::CURR) == curr)
                    .map(|c| c.name.as_str())
                    .collect()
            };
            let mut tie = String::new();
            if !tied(false).is_empty() {
                tie.push_str(&format!(" (a tie with {}: the entity queued first wins)", tied(false).join(", ")));
            }
            if let Some(c) = tied(true).first() {
                tie.push_str(&format!(" (a tie with {c}, which was running: the running entity stays only if its deadline is strictly earlier)"));
            }
            out.push(format!(
                "{who} had the earliest virtual deadline among the eligible entities: {}{tie}.",
                fmt_deadline(w.deadline)
            ));
        }
        (_, _) => out.push(format!("{who} was picked.")),
    }
    // The running entity, when it lost.
    if let Some(c) = cs.iter().find(|c| c.has(flag::CURR) && c.node != winner_node) {
        if c.has(flag::DELAYED) {
            out.push(format!(
                "{}, the running entity, had just gone to sleep; not being eligible (lag {}), it stays queued until its lag is paid back (delayed dequeue).",
                c.name,
                fmt_lag(c.lag)
            ));
        } else if !c.has(flag::ELIGIBLE) {
            out.push(format!(
                "{}, the running entity, was no longer eligible (lag {}), so it could not stay.",
                c.name,
                fmt_lag(c.lag)
            ));
        } else if reason == PickReason::EarliestEligibleDeadline {
            out.push(format!(
                "{}, the running entity, was eligible but no longer protected (its vruntime had reached vprot, or a wakeup with a shorter slice had cancelled the protection: PREEMPT_SHORT), so deadlines decided.",
                c.name
            ));
        }
    }
    // Who was eligible, and whether the earliest deadline of all belonged to someone who had
    // to wait.
    if reason != PickReason::OnlyEntity && cs.len() > 1 {
        let eligible: Vec<&Cand> = cs.iter().filter(|c| c.has(flag::ELIGIBLE)).collect();
        let ineligible: Vec<&Cand> = cs.iter().filter(|c| !c.has(flag::ELIGIBLE)).collect();
        out.push(format!("Eligible (lag ≥ 0, vruntime ≤ V): {}.", list(&eligible)));
        if !ineligible.is_empty() {
            out.push(format!("Not eligible (lag < 0): {}.", list(&ineligible)));
        }
        if let (Some(first), Some(b)) = (earliest(&cs, false, None), best_eligible) {
            if first.node != b.node && !first.has(flag::ELIGIBLE) {
                out.push(format!(
                    "{} had the earliest deadline of all ({}) but was not eligible: it has received more than its share, so it waits.",
                    first.name,
                    fmt_deadline(first.deadline)
                ));
            }
        }
    }
    // A buddy that did not decide.
    if reason != PickReason::Buddy {
        if let Some(b) = cs.iter().find(|c| c.has(flag::BUDDY)) {
            if !feat.pick_buddy {
                out.push(format!(
                    "{} was the next buddy, set by {}, but PICK_BUDDY is off, so the hint was ignored.",
                    b.name,
                    buddy_src.words()
                ));
            } else if !b.has(flag::ELIGIBLE) {
                out.push(format!(
                    "{} was the next buddy, set by {}, but it was not eligible here (lag {}), so the hint was skipped; it stays set until {} is picked or dequeued.",
                    b.name,
                    buddy_src.words(),
                    fmt_lag(b.lag),
                    b.name
                ));
            }
        }
    }
    out.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(fmt_ns(1_350_000), "1.350 ms");
        assert_eq!(fmt_ns(200_000), "200 µs");
        assert_eq!(fmt_ns(12_500), "12.5 µs");
        assert_eq!(fmt_ns(-700), "−700 ns");
        assert_eq!(fmt_lag(0), "0");
        assert_eq!(fmt_lag(200_000), "+200 µs");
        assert_eq!(fmt_lag(-1_350_000), "−1.350 ms");
        assert_eq!(fmt_deadline(1_400_000), "V+1.400 ms");
        assert_eq!(fmt_deadline(-200_000), "V−200 µs");
    }
}
