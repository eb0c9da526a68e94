//! Dumps of the periodic balance passes (`tools/capture/schedlab-balance.bt`), taken beside a
//! trace whose clock is `mono`. bpftrace keeps the records in a map and prints it at exit,
//! after its banner and a header naming the tuple's fields:
//!
//! ```text
//! Attaching 3 probes...
//! # schedlab-balance version=1 fields=nr_balance_failed,balance_interval,last_balance,next_balance,nr_running,pid
//! @s[53497369690117, 1, 0]: (0, 4, 4308266586, 4308266601, 2, 5167)
//! @s[53497369694200, 1, 1]: (0, 4, 4308266601, 4308266616, 2, 5167)
//! ```
//!
//! The key is bpftrace's `nsecs` (CLOCK_MONOTONIC) at the entry (0) or exit (1) of a SCHED
//! softirq, and the CPU; the value is that CPU's lowest domain's `nr_balance_failed`,
//! `balance_interval` (ms) and `last_balance` (jiffies), `rq->next_balance`, `rq->nr_running` and
//! the interrupted task's pid (0: the idle task). [`passes`] pairs each entry with its CPU's next
//! exit and keeps the softirqs in which `last_balance` moved: a pass of that domain ran
//! (`sched_balance_domains()` sets it after every pass it runs). The replay asks the model the
//! same passes (`replay::decisions::passes`).

use super::bt_map::{map_dump, numbers};
use super::lex::{err, Located};

/// One record: a softirq's entry or exit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalanceRecord {
    /// bpftrace's nsecs (CLOCK_MONOTONIC).
    pub ts_ns: u64,
    pub cpu: u32,
    pub exit: bool,
    pub nr_balance_failed: u32,
    /// `sd->balance_interval` in ms.
    pub balance_interval: u32,
    /// `sd->last_balance`, jiffies.
    pub last_balance: u64,
    /// `rq->next_balance`, jiffies.
    pub next_balance: u64,
    pub nr_running: u32,
    /// The interrupted task: 0 is the idle task (the tick decided `CPU_IDLE`).
    pub pid: i32,
}

/// One periodic pass of a CPU's domain: its state before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BalancePassRecord {
    /// The softirq's entry and exit (CLOCK_MONOTONIC ns).
    pub entry_ns: u64,
    pub exit_ns: u64,
    pub cpu: u32,
    /// Run from the idle task: a `CPU_IDLE` pass.
    pub idle: bool,
    pub nr_running: u32,
    pub failed: [u32; 2],
    pub interval: [u32; 2],
}

/// The header line (version 1).
pub const HEADER: &str = "# schedlab-balance version=1 \
                          fields=nr_balance_failed,balance_interval,last_balance,next_balance,nr_running,pid";

/// Parses one `@s[ns, cpu, 0|1]: (…)` line.
pub fn parse_line(line: &str) -> Result<BalanceRecord, Located> {
    if !line.starts_with("@s[") {
        return err(0, "`@s[` (a schedlab-balance.bt record)");
    }
    let (key, after) = numbers(line, 2, b'[', b']', "`[nsecs, cpu, 0|1]`")?;
    if key.len() != 3 {
        return err(3, "three keys: nsecs, cpu, and 0 (entry) or 1 (exit)");
    }
    if line.get(after..after + 2) != Some(": ") {
        return err(after, "`: ` after the key");
    }
    let (v, _) = numbers(line, after + 2, b'(', b')', "`(` and the record's 6 values")?;
    if v.len() != 6 {
        return err(
            after + 2,
            "6 values (nr_balance_failed, balance_interval, last_balance, next_balance, nr_running, pid)",
        );
    }
    let (cpu, cpu_at) = key[1];
    if cpu > u64::from(super::record::MAX_CPU) {
        return err(cpu_at, "a CPU number (at most 65535)");
    }
    let exit = match key[2].0 {
        0 => false,
        1 => true,
        _ => return err(key[2].1, "0 (entry) or 1 (exit)"),
    };
    let small = |i: usize, what: &'static str| -> Result<u32, Located> {
        let (n, at) = v[i];
        u32::try_from(n).or_else(|_| err(at, what))
    };
    let (pid, pid_at) = v[5];
    if pid > i32::MAX as u64 {
        return err(pid_at, "a pid");
    }
    Ok(BalanceRecord {
        ts_ns: key[0].0,
        cpu: cpu as u32,
        exit,
        nr_balance_failed: small(0, "a failure count")?,
        balance_interval: small(1, "an interval in ms")?,
        last_balance: v[2].0,
        next_balance: v[3].0,
        nr_running: small(4, "a task count")?,
        pid: pid as i32,
    })
}

/// Every record of a dump, in time order (then CPU, entry before exit). bpftrace's banner,
/// blank lines and the header (version 1's) are skipped; any other line is an error
/// `FILE:LINE:COLUMN: expected …`. A dump without a single record is refused.
pub fn parse(file: &str, text: &str) -> Result<Vec<BalanceRecord>, String> {
    let mut out = map_dump(file, text, HEADER, "schedlab-balance.bt", "`@s[…]: (…)`", parse_line)?;
    out.sort_by_key(|r| (r.ts_ns, r.cpu, r.exit));
    Ok(out)
}

/// The passes, in order of their entries (then CPU): each entry paired with its CPU's next
/// exit, kept where `last_balance` moved. The CPUs' softirqs of one tick overlap, so the order
/// of their exits is not that of their entries. An entry without its exit (the map filled, or
/// bpftrace stopped in between) is dropped.
pub fn passes(records: &[BalanceRecord]) -> Vec<BalancePassRecord> {
    pass_records(records)
        .into_iter()
        .map(|(e, r)| BalancePassRecord {
            entry_ns: e.ts_ns,
            exit_ns: r.ts_ns,
            cpu: r.cpu,
            idle: e.pid == 0,
            nr_running: e.nr_running,
            failed: [e.nr_balance_failed, r.nr_balance_failed],
            interval: [e.balance_interval, r.balance_interval],
        })
        .collect()
}

/// The passes as [`passes`] pairs them, each as its entry and exit records (with the
/// `last_balance` and `next_balance` the pass record leaves out), in the same order.
pub fn pass_records(records: &[BalanceRecord]) -> Vec<(BalanceRecord, BalanceRecord)> {
    let mut open: std::collections::BTreeMap<u32, BalanceRecord> = Default::default();
    let mut out = Vec::new();
    for r in records {
        if !r.exit {
            open.insert(r.cpu, *r);
            continue;
        }
        let Some(e) = open.remove(&r.cpu) else { continue };
        if e.last_balance != r.last_balance {
            out.push((e, *r));
        }
    }
    out.sort_by_key(|(e, _)| (e.ts_ns, e.cpu));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_records_and_pairs_the_passes() {
        let text = format!(
            "Attaching 3 probes...\n{HEADER}\n\n\
             @s[200, 1, 1]: (1, 2, 101, 108, 1, 5166)\n\
             @s[100, 1, 0]: (0, 4, 86, 101, 1, 5166)\n\
             @s[300, 0, 0]: (0, 4, 90, 91, 2, 0)\n\
             @s[310, 0, 1]: (0, 4, 90, 91, 2, 0)\n\
             @s[400, 0, 0]: (2, 2, 90, 97, 1, 7)\n"
        );
        let r = parse("b.txt", &text).unwrap();
        assert_eq!(r.len(), 5);
        assert_eq!((r[0].ts_ns, r[0].exit, r[1].exit), (100, false, true));
        let p = passes(&r);
        // The CPU 0 softirq that left last_balance alone ran no pass; the last entry has no exit.
        assert_eq!(
            p,
            vec![BalancePassRecord {
                entry_ns: 100,
                exit_ns: 200,
                cpu: 1,
                idle: false,
                nr_running: 1,
                failed: [0, 1],
                interval: [4, 2],
            }]
        );
    }

    #[test]
    fn locates_errors() {
        let e = parse("b.txt", &format!("{HEADER}\n@s[1, 0, 2]: (0, 4, 1, 2, 1, 0)\n")).unwrap_err();
        assert_eq!(e, "b.txt:2:10: expected 0 (entry) or 1 (exit)");
        let e = parse("b.txt", "@s[1, 0, 0]: (0, 4, 1, 2, 1)\n").unwrap_err();
        assert!(e.starts_with("b.txt:1:14: expected 6 values"), "{e}");
        let e = parse("b.txt", "# schedlab-balance version=2\n").unwrap_err();
        assert!(e.starts_with("b.txt:1:1: expected the version 1 header"), "{e}");
        assert!(parse("b.txt", "Attaching 3 probes...\n").unwrap_err().contains("found none"));
    }
}
