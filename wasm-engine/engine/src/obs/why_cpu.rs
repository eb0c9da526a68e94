//! "Why this CPU": a placement (`select_rq` row) or a migration (`migrate` row) in plain
//! words with its numbers, as `why.rs` does for picks. Read by `schedlab explain`.

use super::codes::MigrateClass;
use super::log::{EventKind, EventLog};
use crate::sched::select::{AffinePath, PlacePath};

/// A `select_rq` row's `val`, unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlacementRow {
    /// The rule that chose the CPU.
    pub path: PlacePath,
    /// `wake_affine()`'s part.
    pub affine: AffinePath,
    /// The CPU `select_idle_sibling()` started from.
    pub target: u32,
    /// SIS_UTIL's scan budget, None if it was not read.
    pub nr_idle_scan: Option<u32>,
}

impl PlacementRow {
    /// Unpacks a `select_rq` row's `val` (layout in `obs::codes::EventKind::SelectRq`).
    pub fn unpack(val: i64) -> Option<PlacementRow> {
        let path = match val & 0xff {
            0 => PlacePath::Pinned,
            1 => PlacePath::Target,
            2 => PlacePath::Prev,
            3 => PlacePath::Recent,
            4 => PlacePath::Scan,
            5 => PlacePath::Fallback,
            6 => PlacePath::Slow,
            7 => PlacePath::NotAllowed,
            8 => PlacePath::VcpuPack,
            _ => return None,
        };
        let affine = match (val >> 8) & 0xff {
            0 => AffinePath::None,
            1 => AffinePath::Idle,
            2 => AffinePath::Weight,
            3 => AffinePath::Prev,
            _ => return None,
        };
        let nr = (val >> 32) as u32;
        Some(PlacementRow {
            path,
            affine,
            target: ((val >> 16) & 0xffff) as u32,
            nr_idle_scan: (nr != u32::MAX).then_some(nr),
        })
    }
}

/// The words of the `select_rq` row `i`: which CPU, from which previous one, by which rule.
pub fn placement_words(log: &EventLog, i: usize, name: &dyn Fn(u32) -> String) -> String {
    let e = &log.events;
    debug_assert_eq!(e.kind[i], EventKind::SelectRq as u8);
    let (cpu, prev, task) = (e.cpu[i] as u32, e.arg[i], e.task[i]);
    let Some(r) = PlacementRow::unpack(e.val[i]) else { return format!("{} placed on CPU {cpu}", name(task)) };
    let mut w = format!("select_task_rq placed {} on CPU {cpu} (previous CPU {prev}). ", name(task));
    w.push_str(match r.affine {
        AffinePath::None => "",
        AffinePath::Idle => "wake_affine_idle() chose between the waker's CPU and the previous one. ",
        AffinePath::Weight => {
            "wake_affine_weight(): the waker's CPU, loaded with the wakee, stayed below the previous CPU's load. "
        }
        AffinePath::Prev => "wake_affine() kept the previous CPU (neither rule chose the waker's). ",
    });
    let t = r.target;
    let rule = match r.path {
        PlacePath::Pinned => format!("Only CPU {cpu} is allowed, so the class was not asked."),
        PlacePath::Target => format!("select_idle_sibling(): the target CPU {t} was idle."),
        PlacePath::Prev => format!("select_idle_sibling(): the target CPU {t} was busy; the previous CPU {cpu} was idle and shares its LLC."),
        PlacePath::Recent => format!("select_idle_sibling(): the target CPU {t} and the previous CPU were busy; recent_used_cpu {cpu} was idle."),
        PlacePath::Scan => match r.nr_idle_scan {
            Some(n) => format!("select_idle_cpu() scanned the LLC from CPU {} (at most {n} CPUs, SIS_UTIL) and found CPU {cpu} idle.", t + 1),
            None => format!("select_idle_cpu() scanned the LLC from CPU {} and found CPU {cpu} idle.", t + 1),
        },
        PlacePath::Fallback => match r.nr_idle_scan {
            Some(0) => format!(
                "The target CPU {t} was busy and SIS_UTIL's nr_idle_scan was 0 (the LLC looked busy at the last periodic balance, or none has run yet), so no CPU was scanned: it stays on CPU {t}."
            ),
            _ => format!("No idle CPU in the LLC within the scan: it stays on the target CPU {t}."),
        },
        PlacePath::Slow => format!("Fork/exec balancing (sched_balance_find_dst_cpu()) chose the idlest CPU, {cpu}."),
        PlacePath::NotAllowed => format!("The chosen CPU was not allowed; select_fallback_rq() took CPU {cpu}."),
        PlacePath::VcpuPack => format!("This build's vendor block (vcpu_pack_room(), sched_vcpu_pack=15) packed the task onto CPU {cpu}: it had room (under 70 % utilized, at most one other runnable task), or its idle task ran the wakeup."),
    };
    w.push_str(&rule);
    w
}

/// The words of the `migrate` row `i`.
pub fn migration_words(log: &EventLog, i: usize, name: &dyn Fn(u32) -> String) -> String {
    let e = &log.events;
    debug_assert_eq!(e.kind[i], EventKind::Migrate as u8);
    let class = MigrateClass::ALL.get(e.arg[i] as usize).map(|c| c.name()).unwrap_or("unknown");
    format!("{} moved from CPU {} to CPU {} ({class})", name(e.task[i]), e.val[i], e.cpu[i])
}

/// The last row of `kind` on `cpu` at or before row `end` (exclusive).
pub fn last_row(log: &EventLog, kind: EventKind, cpu: u32, end: usize) -> Option<usize> {
    let e = &log.events;
    (0..end.min(e.t.len())).rev().find(|&i| e.kind[i] == kind as u8 && e.cpu[i] as u32 == cpu)
}

/// The words of the `balance` row `i` (packing in `obs::codes::EventKind::Balance`): who
/// balanced, at which domain level and idle type, what the busiest group looked like, the
/// imbalance and what came of it.
pub fn balance_words(log: &EventLog, i: usize) -> String {
    let e = &log.events;
    debug_assert_eq!(e.kind[i], EventKind::Balance as u8);
    let (cpu, imb, v) = (e.cpu[i], e.arg[i], e.val[i]);
    let field = |shift: u32| ((v >> shift) & 0xff) as usize;
    let idle =
        ["busy (CPU_NOT_IDLE)", "idle (CPU_IDLE)", "newly idle (CPU_NEWLY_IDLE)"].get(field(8)).copied().unwrap_or("?");
    let group = ["has_spare", "fully_busy", "misfit_task", "smt_balance", "asym_packing", "imbalanced", "overloaded"]
        .get(field(16))
        .copied()
        .unwrap_or("?");
    let (mt, unit) =
        [("migrate_load", "load"), ("migrate_util", "util"), ("migrate_task", "tasks"), ("migrate_misfit", "misfit")]
            .get(field(24))
            .copied()
            .unwrap_or(("?", ""));
    let moved = field(40);
    let reject = [
        "",
        "it was running",
        "it was cache hot (ran within migration_cost)",
        "its load was above the imbalance",
        "it would be ineligible on the destination",
        "it was delayed",
        "it may not run here",
        "its load was below LB_MIN's 16",
    ]
    .get(field(48))
    .copied()
    .unwrap_or("?");
    let src = match field(56) {
        0xff => "no CPU".to_string(),
        s => format!("CPU {s}"),
    };
    let mut w = format!(
        "sched_balance_rq on CPU {cpu}, domain level {}, {idle}: the busiest group was {group}, {mt} ({imb} {unit} of imbalance left after detaching); ",
        field(0)
    );
    w.push_str(&match field(32) {
        0 => format!("{moved} task(s) pulled from {src}."),
        1 => "no CPU of the busiest group to pull from.".to_string(),
        2 => format!("every task of {src} was pinned away from CPU {cpu}."),
        3 => format!("nothing detached from {src}: the last candidate was refused because {reject}."),
        4 => {
            format!("nothing detached from {src} ({reject}): the stopper will push its running task (active balance).")
        }
        5 => format!("active balance wanted, but the running task of {src} may not run on CPU {cpu}."),
        _ => "unknown outcome.".to_string(),
    });
    w
}
