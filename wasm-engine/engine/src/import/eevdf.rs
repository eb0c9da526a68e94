//! bpftrace EEVDF-state dumps: at every `sched:sched_switch` the state of the task leaving the
//! CPU (`S`) and of its ancestor group entities (`G`), one line each, plus bpftrace's own
//! `Attaching N probes...` banner. Two dialects, told apart by their keys:
//!
//! * the project's `tools/capture/schedlab-eevdf.bt`, which starts with a header line
//!   `# schedlab-eevdf version=1 clock=CLOCK_MONOTONIC trace_clock=mono cpu_mask=2 comm_prefix=k_`
//!   ([`parse_header`]) and names the cfs_rq sums as the kernel does:
//!
//!   ```text
//!   S <nsecs> cpu=1 pid=12122 state=0 on_rq=1 v=.. d=.. lagprot=.. slice=1400000 w=1048576 sum=..
//!     depth=1 delayed=0 custom=0 q_zero=.. q_sum_w_vruntime=.. q_sum_weight=1024 q_nr=2
//!     q_load=1719296 q_curr_v=.. q_curr_w=670720 comm=k_a
//!   G <nsecs> cpu=1 pid=12122 gdepth=0 gon_rq=1 gv=.. gd=.. glagprot=.. gslice=1400000 gw=..
//!     gdelayed=0 gq_zero=.. gq_sum_w_vruntime=.. gq_sum_weight=.. gq_nr=2 gq_load=.. gq_curr_v=.. gq_curr_w=..
//!   ```
//!
//! * the older `tools/kernel-capture/eevdf-state.bt` of the `traces/linux-6.18` captures (`*/eevdf-state.txt`):
//!
//!   ```text
//!   S <nsecs> cpu=1 pid=22696 comm=k_b state=0 v=.. d=.. lagprot=-393389 slice=1400000 w=670720 sum=..
//!     depth=1 delayed=0 q_zero=.. q_sumw=.. q_wsum=655 q_nr=2
//!   G <nsecs> cpu=1 pid=22696 gv=.. gd=.. gslice=1400000 gw=1019480 gdepth=0 gq_zero=.. gq_nr=1
//!   ```
//!
//!   whose `q_sumw` holds `sum_w_vruntime` and `q_wsum` `sum_weight` (docs/kernel-6.18.44-findings.md).

use super::lex::{err, parse_i32, parse_i64, parse_u64, skip_ws, token_end, Located};
use super::payload::pairs;
use super::record::{CfsRqState, Curr, EevdfEntity, EevdfSample, EntityState};

/// bpftrace's banner line.
pub fn is_banner(line: &str) -> bool {
    line.starts_with("Attaching ") && line.contains(" probe")
}

/// True when the line looks like an `S`/`G` line (for format detection).
pub fn looks_like_sample(line: &str) -> bool {
    (line.starts_with("S ") || line.starts_with("G ")) && line.contains(" cpu=") && line.contains(" pid=")
}

/// The `name=value` pairs of a `# schedlab-eevdf ...` header line (`version`, `clock`,
/// `trace_clock`, `cpu_mask`, `comm_prefix`), or None for any other line.
pub fn parse_header(line: &str) -> Option<Vec<(&str, &str)>> {
    let rest = line.trim().strip_prefix("# schedlab-eevdf")?;
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some(pairs(rest).unwrap_or_default())
}

/// The fields of one line with located lookups.
struct Fields<'a> {
    line: &'a str,
    rest: &'a str,
    e: usize,
    p: Vec<(&'a str, &'a str)>,
}

impl<'a> Fields<'a> {
    fn at(&self, v: &str) -> usize {
        self.e + (v.as_ptr() as usize - self.rest.as_ptr() as usize)
    }
    fn opt(&self, k: &str) -> Option<&'a str> {
        self.p.iter().find(|(n, _)| *n == k).map(|(_, v)| *v)
    }
    fn get(&self, k: &str, expected: &'static str) -> Result<&'a str, Located> {
        self.opt(k).map_or_else(|| err(self.line.len(), expected), Ok)
    }
    fn num<T>(&self, v: &str, parse: fn(&str) -> Option<T>, expected: &'static str) -> Result<T, Located> {
        parse(v).map_or_else(|| err(self.at(v), expected), Ok)
    }
    fn u(&self, k: &str, expected: &'static str) -> Result<u64, Located> {
        self.num(self.get(k, expected)?, parse_u64, "an unsigned number")
    }
    fn i(&self, k: &str, expected: &'static str) -> Result<i64, Located> {
        self.num(self.get(k, expected)?, parse_i64, "a number")
    }
    fn small(&self, k: &str, expected: &'static str) -> Result<i32, Located> {
        self.num(self.get(k, expected)?, parse_i32, "a number")
    }
    /// An optional field: absent is None, present must parse.
    fn opt_u(&self, k: &str) -> Result<Option<u64>, Located> {
        self.opt(k).map(|v| self.num(v, parse_u64, "an unsigned number")).transpose()
    }
    fn opt_i(&self, k: &str) -> Result<Option<i64>, Located> {
        self.opt(k).map(|v| self.num(v, parse_i64, "a number")).transpose()
    }
    fn opt_flag(&self, k: &str) -> Result<Option<bool>, Located> {
        Ok(self.opt_u(k)?.map(|n| n != 0))
    }
    /// `sum_w_vruntime`/`sum_weight` under the kernel's names, else the older dump's labels.
    fn sums(&self, prefix: &str, legacy: Option<(&str, &str)>) -> Result<(Option<i64>, Option<u64>), Located> {
        let sw = self.opt_i(&format!("{prefix}sum_w_vruntime"))?;
        let w = self.opt_u(&format!("{prefix}sum_weight"))?;
        match legacy {
            Some((a, b)) if sw.is_none() && w.is_none() => {
                Ok((Some(self.i(a, "`q_sum_w_vruntime=`")?), Some(self.u(b, "`q_sum_weight=`")?)))
            }
            _ => Ok((sw, w)),
        }
    }
    fn curr(&self, prefix: &str) -> Result<Curr, Located> {
        let v = self.opt_u(&format!("{prefix}curr_v"))?;
        let w = self.opt_u(&format!("{prefix}curr_w"))?;
        Ok(match (v, w) {
            (Some(vruntime), Some(weight)) if weight != 0 => Curr::Some { vruntime, weight },
            (_, Some(_)) => Curr::None,
            _ => Curr::Unknown,
        })
    }
}

/// Parses an `S` or `G` line of either dialect.
pub fn parse_sample(line: &str, no: u64) -> Result<EevdfSample, Located> {
    let b = line.as_bytes();
    let kind = b.first().copied();
    if !matches!(kind, Some(b'S' | b'G')) || b.get(1) != Some(&b' ') {
        return err(0, "`S ` or `G ` (bpftrace EEVDF-state line)");
    }
    let t = skip_ws(b, 2);
    let e = token_end(b, t);
    let Some(ts_ns) = parse_u64(&line[t..e]) else { return err(t, "nanoseconds (bpftrace nsecs)") };
    let rest = &line[e..];
    let Some(p) = pairs(rest) else { return err(e, "`cpu=` and the other name=value fields") };
    let f = Fields { line, rest, e, p };
    let cpu = f.num(
        f.get("cpu", "`cpu=`")?,
        |v| v.parse::<u32>().ok().filter(|&c| c <= super::record::MAX_CPU),
        "a CPU number (at most 65535)",
    )?;
    let pid = f.small("pid", "`pid=`")?;
    let count = |k: &str, expected: &'static str| f.num(f.get(k, expected)?, |v| v.parse::<u32>().ok(), "a count");
    // Fields are read in the older dump's line order, so the first bad one is reported.
    let entity = if kind == Some(b'S') {
        let comm = f.get("comm", "`comm=`")?.to_string();
        let prev_state = f.i("state", "`state=`")?;
        let (vruntime, deadline) = (f.u("v", "`v=`")?, f.u("d", "`d=`")?);
        let vlag_or_vprot = Some(f.i("lagprot", "`lagprot=`")?);
        let (slice, weight) = (f.u("slice", "`slice=`")?, f.u("w", "`w=`")?);
        let sum_exec_runtime = f.u("sum", "`sum=`")?;
        let depth = f.small("depth", "`depth=`")?;
        let sched_delayed = Some(f.u("delayed", "`delayed=`")? != 0);
        let zero_vruntime = f.u("q_zero", "`q_zero=`")?;
        let (sum_w_vruntime, sum_weight) = f.sums("q_", Some(("q_sumw", "q_wsum")))?;
        let nr_queued = count("q_nr", "`q_nr=`")?;
        EevdfEntity::Task {
            comm,
            prev_state,
            sum_exec_runtime,
            se: EntityState {
                vruntime,
                deadline,
                vlag_or_vprot,
                slice,
                weight,
                depth,
                on_rq: f.opt_flag("on_rq")?,
                sched_delayed,
                custom_slice: f.opt_flag("custom")?,
            },
            cfs_rq: CfsRqState {
                zero_vruntime,
                sum_w_vruntime,
                sum_weight,
                nr_queued,
                load_weight: f.opt_u("q_load")?,
                curr: f.curr("q_")?,
            },
        }
    } else {
        let (vruntime, deadline) = (f.u("gv", "`gv=`")?, f.u("gd", "`gd=`")?);
        let (slice, weight) = (f.u("gslice", "`gslice=`")?, f.u("gw", "`gw=`")?);
        let depth = f.small("gdepth", "`gdepth=`")?;
        let zero_vruntime = f.u("gq_zero", "`gq_zero=`")?;
        let nr_queued = count("gq_nr", "`gq_nr=`")?;
        let (sum_w_vruntime, sum_weight) = f.sums("gq_", None)?;
        EevdfEntity::Group {
            se: EntityState {
                vruntime,
                deadline,
                vlag_or_vprot: f.opt_i("glagprot")?,
                slice,
                weight,
                depth,
                on_rq: f.opt_flag("gon_rq")?,
                sched_delayed: f.opt_flag("gdelayed")?,
                custom_slice: None,
            },
            cfs_rq: CfsRqState {
                zero_vruntime,
                sum_w_vruntime,
                sum_weight,
                nr_queued,
                load_weight: f.opt_u("gq_load")?,
                curr: f.curr("gq_")?,
            },
        }
    };
    Ok(EevdfSample { ts_ns, cpu, pid, line: no, entity })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_dump_lines() {
        let s = parse_sample("S 544812033589 cpu=1 pid=22696 comm=k_b state=0 v=122060226574 d=122062394720 lagprot=-393389 slice=1400000 w=670720 sum=3114226 depth=1 delayed=0 q_zero=122058823671 q_sumw=918901465 q_wsum=655 q_nr=2", 3).unwrap();
        assert_eq!((s.ts_ns, s.cpu, s.pid, s.line), (544_812_033_589, 1, 22696, 3));
        let EevdfEntity::Task { comm, se, cfs_rq, .. } = &s.entity else { panic!() };
        assert_eq!(
            (comm.as_str(), se.vlag_or_vprot, se.weight, se.sched_delayed, se.on_rq),
            ("k_b", Some(-393_389), 670_720, Some(false), None)
        );
        assert_eq!((cfs_rq.sum_w_vruntime, cfs_rq.sum_weight, cfs_rq.nr_queued), (Some(918_901_465), Some(655), 2));
        assert_eq!((cfs_rq.curr, cfs_rq.avg_vruntime(), se.vlag()), (Curr::Unknown, None, None));
        let g = parse_sample("G 544812044559 cpu=1 pid=22696 gv=292822221428 gd=292823649027 gslice=1400000 gw=1019480 gdepth=0 gq_zero=292822207896 gq_nr=1", 4).unwrap();
        assert_eq!(
            (g.entity.se().weight, g.entity.cfs_rq().nr_queued, g.entity.se().vlag_or_vprot),
            (1_019_480, 1, None)
        );
        let e = parse_sample("S 1 cpu=1 pid=2 comm=k state=0 v=x", 1).unwrap_err();
        assert_eq!(e.at, 33);
    }

    /// A line of `traces/capture-example/eevdf-state.txt`, and V recomputed from it by hand:
    /// curr k_b (670720 → 655 in 1024 scale) at key 361064812865 − 361065131285 = −318420;
    /// (252149760 + (−318420)·655) / (1024 + 655) = 43584660 / 1679 = 25958.7 → 25958.
    #[test]
    fn schedlab_dump_lines_and_v() {
        let s = parse_sample("S 14170080083365 cpu=1 pid=10381 state=0 on_rq=1 v=361065377525 d=361066734962 lagprot=361064374419 slice=1400000 w=1048576 sum=1703106 depth=1 delayed=0 custom=0 q_zero=361065131285 q_sum_w_vruntime=252149760 q_sum_weight=1024 q_nr=2 q_load=1719296 q_curr_v=361064812865 q_curr_w=670720 comm=Web Content", 9).unwrap();
        let EevdfEntity::Task { comm, se, cfs_rq, .. } = &s.entity else { panic!() };
        assert_eq!(
            (comm.as_str(), se.on_rq, se.custom_slice, se.vlag()),
            ("Web Content", Some(true), Some(false), None)
        );
        assert_eq!(cfs_rq.curr, Curr::Some { vruntime: 361_064_812_865, weight: 670_720 });
        assert_eq!(cfs_rq.load_weight, Some(1_719_296));
        assert_eq!(cfs_rq.avg_vruntime(), Some(361_065_131_285 + 25_958));
        // k_b (curr) is eligible: its key −318420 ≤ V − zero; the task that left (v − zero = 246240) is not.
        assert_eq!(cfs_rq.eligible(361_064_812_865), Some(true));
        assert_eq!(cfs_rq.eligible(361_065_377_525), Some(false));
        assert_eq!(cfs_rq.eligible(361_065_131_285 + 25_958), Some(true));
        assert_eq!(cfs_rq.eligible(361_065_131_285 + 25_959), Some(false));
        let g = parse_sample("G 14170080097657 cpu=1 pid=10381 gdepth=0 gon_rq=1 gv=12483137591356 gd=12483139202630 glagprot=1155866 gslice=1400000 gw=884007 gdelayed=0 gq_zero=12483139225903 gq_sum_w_vruntime=995283898 gq_sum_weight=1022 gq_nr=2 gq_load=1931308 gq_curr_v=12483137591356 gq_curr_w=884007", 10).unwrap();
        let (se, q) = (g.entity.se(), g.entity.cfs_rq());
        assert_eq!(
            (se.on_rq, se.vlag_or_vprot, q.sum_weight, q.curr),
            (Some(true), Some(1_155_866), Some(1022), Curr::Some { vruntime: 12_483_137_591_356, weight: 884_007 })
        );
        let asleep = parse_sample("S 5 cpu=0 pid=7 state=1 on_rq=0 v=10 d=20 lagprot=-300 slice=1 w=1024 sum=1 depth=0 delayed=0 custom=0 q_zero=0 q_sum_w_vruntime=0 q_sum_weight=0 q_nr=0 q_load=0 q_curr_v=0 q_curr_w=0 comm=x", 1).unwrap();
        assert_eq!(asleep.entity.se().vlag(), Some(-300));
        assert_eq!((asleep.entity.cfs_rq().curr, asleep.entity.cfs_rq().avg_vruntime()), (Curr::None, Some(0)));
        let line = "S 5 cpu=0 pid=7 state=1 on_rq=x v=10 d=20 lagprot=-300 slice=1 w=1024 sum=1 depth=0 delayed=0 q_zero=0 q_sum_w_vruntime=0 q_sum_weight=0 q_nr=0 comm=x";
        let bad = parse_sample(line, 1).unwrap_err();
        assert_eq!((bad.at, bad.expected), (line.find("on_rq=x").unwrap() + 6, "an unsigned number"));
    }

    #[test]
    fn header() {
        let h =
            parse_header("# schedlab-eevdf version=1 clock=CLOCK_MONOTONIC trace_clock=mono cpu_mask=2 comm_prefix=k_")
                .unwrap();
        assert_eq!(h[1], ("clock", "CLOCK_MONOTONIC"));
        assert_eq!(h[4], ("comm_prefix", "k_"));
        assert_eq!(parse_header("# schedlab-eevdfx"), None);
        assert_eq!(parse_header("# tracer: nop"), None);
    }
}
