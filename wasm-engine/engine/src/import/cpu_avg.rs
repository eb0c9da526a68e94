//! Dumps of each CPU's root cfs_rq PELT averages (`tools/capture/schedlab-cpu-avg.bt`), taken
//! beside a trace whose clock is `mono`. bpftrace keeps the samples in a map and prints it at
//! exit, after its banner and a header naming the tuple's fields:
//!
//! ```text
//! Attaching 3 probes...
//! # schedlab-cpu-avg version=1 fields=lut,load,runnable,util,h_nr_queued,nr_running,rm_nr,rm_load,rm_runnable,rm_util,exiting,p_load,p_runnable,p_util
//! @c[12305493617647, 0, 7125]: (12303738024960, 1359, 749, 770, 0, 0, 0, 0, 0, 0, 1, 1024, 266, 266)
//! ```
//!
//! The key is bpftrace's `nsecs` (CLOCK_MONOTONIC) at a `sched_switch`, the CPU, and the pid
//! switching out (how the replay finds the sample's `sched_switch`). The value: the CPU's
//! `rq->cfs.avg` (`last_update_time` on its PELT clock, `load_avg`, `runnable_avg`, `util_avg`),
//! `h_nr_queued` and `nr_running`, `cfs_rq->removed` (count, load, runnable, util: taken out at
//! the CPU's next update), whether the outgoing task is exiting, and its own averages (taken out
//! after its last switch). The map prints in no particular order; [`parse`] sorts by time. The
//! replay sets the model's root cfs_rqs from them (`replay::decisions::cpu_avg`).

use super::bt_map::{map_dump, numbers};
use super::lex::{err, Located};

/// One sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CpuAvgSample {
    /// bpftrace's nsecs (CLOCK_MONOTONIC).
    pub ts_ns: u64,
    pub cpu: u32,
    pub pid: i32,
    pub last_update_time: u64,
    pub load_avg: u64,
    pub runnable_avg: u64,
    pub util_avg: u64,
    pub h_nr_queued: u64,
    pub nr_running: u64,
    /// `cfs_rq->removed`: load, runnable, util.
    pub removed: [u64; 3],
    /// The outgoing task is exiting: its load, runnable and util leave the CPU after this sample.
    pub exiting: Option<[u64; 3]>,
}

impl CpuAvgSample {
    /// `load_avg`, `runnable_avg`, `util_avg` once the CPU's next update has taken out what is
    /// leaving: the removed contributions, and an exiting outgoing task's.
    pub fn settled(&self) -> [u64; 3] {
        let gone = self.exiting.unwrap_or([0; 3]);
        let avg = [self.load_avg, self.runnable_avg, self.util_avg];
        std::array::from_fn(|i| avg[i].saturating_sub(self.removed[i]).saturating_sub(gone[i]))
    }
}

/// The header line, and the fields of the value tuple it names (version 1).
pub const HEADER: &str = "# schedlab-cpu-avg version=1 fields=lut,load,runnable,util,h_nr_queued,nr_running,\
                          rm_nr,rm_load,rm_runnable,rm_util,exiting,p_load,p_runnable,p_util";
const FIELDS: usize = 14;

/// The largest average a root cfs_rq can hold here: `load_avg` of 1,000 nice −20 tasks
/// (88,761 each); utilization and runnable are at most 1024 per task. Larger values are a
/// garbled line, not a CPU.
pub const MAX_AVG: u64 = 1 << 27;

/// Parses one `@c[ns, cpu, pid]: (…)` line.
pub fn parse_line(line: &str) -> Result<CpuAvgSample, Located> {
    if !line.starts_with("@c[") {
        return err(0, "`@c[` (a schedlab-cpu-avg.bt sample)");
    }
    let (key, after) = numbers(line, 2, b'[', b']', "`[nsecs, cpu, pid]`")?;
    if key.len() != 3 {
        return err(3, "three keys: nsecs, cpu, pid");
    }
    if line.get(after..after + 2) != Some(": ") {
        return err(after, "`: ` after the key");
    }
    let (v, _) = numbers(line, after + 2, b'(', b')', "`(` and the sample's 14 values")?;
    if v.len() != FIELDS {
        return err(after + 2, "14 values (lut, load, runnable, util, h_nr_queued, nr_running, rm_nr, rm_load, rm_runnable, rm_util, exiting, p_load, p_runnable, p_util)");
    }
    let avg = |i: usize| -> Result<u64, Located> {
        let (n, at) = v[i];
        if n > MAX_AVG {
            return err(at, "an average of at most 2^27");
        }
        Ok(n)
    };
    let (cpu, cpu_at) = key[1];
    if cpu > u64::from(super::record::MAX_CPU) {
        return err(cpu_at, "a CPU number (at most 65535)");
    }
    let (pid, pid_at) = key[2];
    if pid > i32::MAX as u64 {
        return err(pid_at, "a pid");
    }
    let exiting = match v[10].0 {
        0 => None,
        1 => Some([avg(11)?, avg(12)?, avg(13)?]),
        _ => return err(v[10].1, "`exiting` 0 or 1"),
    };
    Ok(CpuAvgSample {
        ts_ns: key[0].0,
        cpu: cpu as u32,
        pid: pid as i32,
        last_update_time: v[0].0,
        load_avg: avg(1)?,
        runnable_avg: avg(2)?,
        util_avg: avg(3)?,
        h_nr_queued: v[4].0,
        nr_running: v[5].0,
        removed: [avg(7)?, avg(8)?, avg(9)?],
        exiting,
    })
}

/// Every sample of a dump, in time order (then CPU). bpftrace's banner, blank lines, and the
/// header (which must be version 1's) are skipped; any other line is an error
/// `FILE:LINE:COLUMN: expected …`. A dump without a single sample is refused.
pub fn parse(file: &str, text: &str) -> Result<Vec<CpuAvgSample>, String> {
    let mut out = map_dump(file, text, HEADER, "schedlab-cpu-avg.bt", "`@c[…]: (…)`", parse_line)?;
    out.sort_by_key(|s| (s.ts_ns, s.cpu));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_sample() {
        let s = parse_line(
            "@c[12305493617647, 0, 7125]: (12303738024960, 1359, 749, 770, 0, 0, 0, 0, 0, 0, 1, 1024, 266, 266)",
        )
        .unwrap();
        assert_eq!(
            s,
            CpuAvgSample {
                ts_ns: 12305493617647,
                cpu: 0,
                pid: 7125,
                last_update_time: 12303738024960,
                load_avg: 1359,
                runnable_avg: 749,
                util_avg: 770,
                h_nr_queued: 0,
                nr_running: 0,
                removed: [0; 3],
                exiting: Some([1024, 266, 266]),
            }
        );
        assert_eq!(s.settled(), [335, 483, 504]);
        let r = parse_line("@c[5, 1, 7]: (1, 860, 417, 458, 1, 1, 1, 10, 20, 30, 0, 400, 400, 400)").unwrap();
        assert_eq!(r.settled(), [850, 397, 428]);
    }

    #[test]
    fn sorts_by_time_and_locates_errors() {
        let text = format!(
            "Attaching 3 probes...\n{HEADER}\n\n@c[9, 1, 7]: (1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)\n\
             @c[5, 0, 7]: (1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)\n"
        );
        let s = parse("d.txt", &text).unwrap();
        assert_eq!(s.iter().map(|s| s.ts_ns).collect::<Vec<_>>(), [5, 9]);
        let bad = "@c[9, 1, 7]: (1, 2, x, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)";
        assert_eq!(parse("d.txt", bad).unwrap_err(), "d.txt:1:21: expected an unsigned number");
        let short = "@c[9, 1, 7]: (1, 2, 3)";
        assert!(parse("d.txt", short).unwrap_err().starts_with("d.txt:1:14: expected 14 values"));
        let huge = "@c[9, 1, 7]: (1, 999999999, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)";
        assert_eq!(parse("d.txt", huge).unwrap_err(), "d.txt:1:18: expected an average of at most 2^27");
        assert!(parse("d.txt", "S 5 cpu=0 pid=1").unwrap_err().starts_with("d.txt:1:1: expected `@c[`"));
        assert!(parse("d.txt", "# schedlab-cpu-avg version=2").unwrap_err().contains("version 1 header"));
        assert!(parse("d.txt", "Attaching 3 probes...\n").unwrap_err().contains("found none"));
        assert!(parse("d.txt", "@c[9, 1]: (1)").unwrap_err().contains("three keys"));
    }
}
