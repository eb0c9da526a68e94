//! The project's bpftrace EEVDF-state dump (`tools/kernel-capture/eevdf-state.bt` in the shared
//! traces; sample output in `linux-6.18/*/eevdf-state.txt`): at every `sched:sched_switch` of a task
//! named `k*` it prints the task entity and its cfs_rq,
//!
//! ```text
//! S <nsecs> cpu=1 pid=22696 comm=k_b state=0 v=.. d=.. lagprot=-393389 slice=1400000 w=670720 sum=..
//!   depth=1 delayed=0 q_zero=.. q_sumw=.. q_wsum=655 q_nr=2
//! G <nsecs> cpu=1 pid=22696 gv=.. gd=.. gslice=1400000 gw=1019480 gdepth=0 gq_zero=.. gq_nr=1
//! ```
//!
//! (one line each), and bpftrace's own `Attaching 1 probe...` banner.

use super::lex::{err, parse_i32, parse_i64, parse_u64, skip_ws, token_end, Located};
use super::payload::pairs;
use super::record::{EevdfEntity, EevdfSample};

/// bpftrace's banner line.
pub fn is_banner(line: &str) -> bool {
    line.starts_with("Attaching ") && line.contains(" probe")
}

/// True when the line looks like an `S`/`G` line (for format detection).
pub fn looks_like_sample(line: &str) -> bool {
    (line.starts_with("S ") || line.starts_with("G ")) && line.contains(" cpu=") && line.contains(" pid=")
}

/// Parses an `S` or `G` line.
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
    let at = |v: &str| e + (v.as_ptr() as usize - rest.as_ptr() as usize);
    let get = |k: &'static str, expected: &'static str| -> Result<&str, Located> {
        p.iter().find(|(n, _)| *n == k).map(|(_, v)| *v).map_or_else(|| err(line.len(), expected), Ok)
    };
    let u = |k: &'static str, expected: &'static str| -> Result<u64, Located> {
        let v = get(k, expected)?;
        parse_u64(v).map_or_else(|| err(at(v), "an unsigned number"), Ok)
    };
    let i = |k: &'static str, expected: &'static str| -> Result<i64, Located> {
        let v = get(k, expected)?;
        parse_i64(v).map_or_else(|| err(at(v), "a number"), Ok)
    };
    let small = |k: &'static str, expected: &'static str| -> Result<i32, Located> {
        let v = get(k, expected)?;
        parse_i32(v).map_or_else(|| err(at(v), "a number"), Ok)
    };
    let cpu = u("cpu", "`cpu=`")?;
    let pid = small("pid", "`pid=`")?;
    let entity = if kind == Some(b'S') {
        EevdfEntity::Task {
            comm: get("comm", "`comm=`")?.to_string(),
            prev_state: i("state", "`state=`")?,
            vruntime: u("v", "`v=`")?,
            deadline: u("d", "`d=`")?,
            vlag_or_vprot: i("lagprot", "`lagprot=`")?,
            slice: u("slice", "`slice=`")?,
            weight: u("w", "`w=`")?,
            sum_exec_runtime: u("sum", "`sum=`")?,
            depth: small("depth", "`depth=`")?,
            sched_delayed: u("delayed", "`delayed=`")? != 0,
            zero_vruntime: u("q_zero", "`q_zero=`")?,
            sum_w_vruntime: i("q_sumw", "`q_sumw=`")?,
            sum_weight: u("q_wsum", "`q_wsum=`")?,
            nr_queued: u("q_nr", "`q_nr=`")? as u32,
        }
    } else {
        EevdfEntity::Group {
            vruntime: u("gv", "`gv=`")?,
            deadline: u("gd", "`gd=`")?,
            slice: u("gslice", "`gslice=`")?,
            weight: u("gw", "`gw=`")?,
            depth: small("gdepth", "`gdepth=`")?,
            zero_vruntime: u("gq_zero", "`gq_zero=`")?,
            nr_queued: u("gq_nr", "`gq_nr=`")? as u32,
        }
    };
    Ok(EevdfSample { ts_ns, cpu: cpu as u32, pid, line: no, entity })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_and_group_lines() {
        let s = parse_sample("S 544812033589 cpu=1 pid=22696 comm=k_b state=0 v=122060226574 d=122062394720 lagprot=-393389 slice=1400000 w=670720 sum=3114226 depth=1 delayed=0 q_zero=122058823671 q_sumw=918901465 q_wsum=655 q_nr=2", 3).unwrap();
        assert_eq!((s.ts_ns, s.cpu, s.pid, s.line), (544_812_033_589, 1, 22696, 3));
        let EevdfEntity::Task { comm, vlag_or_vprot, weight, sum_weight, nr_queued, sched_delayed, .. } = s.entity
        else {
            panic!()
        };
        assert_eq!(
            (comm.as_str(), vlag_or_vprot, weight, sum_weight, nr_queued, sched_delayed),
            ("k_b", -393_389, 670_720, 655, 2, false)
        );
        let g = parse_sample("G 544812044559 cpu=1 pid=22696 gv=292822221428 gd=292823649027 gslice=1400000 gw=1019480 gdepth=0 gq_zero=292822207896 gq_nr=1", 4).unwrap();
        assert!(matches!(g.entity, EevdfEntity::Group { weight: 1_019_480, nr_queued: 1, .. }));
        let e = parse_sample("S 1 cpu=1 pid=2 comm=k state=0 v=x", 1).unwrap_err();
        assert_eq!(e.at, 33);
    }
}
