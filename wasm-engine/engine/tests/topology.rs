//! `Topology::this_machine()` against the project's machine as recorded:
//! `traces/linux-6.18-smp/topology/topology.txt`, written by `tools/capture/schedlab-topology.sh`
//! on the 2-CPU Linux 6.18.44 VM (its README gives the command and every field).
//!
//! Every field the capture records is checked. The fields the build sets once are compared
//! exactly with the model; the ones load balancing changes afterwards (`balance_interval`,
//! `nr_balance_failed`, `max_newidle_lb_cost`, `newidle_*`, `nr_busy_cpus`, the root domain's
//! overload flags) are checked to be values reachable from `sd_init()`'s, which the model holds.

#![allow(clippy::disallowed_methods)] // reads the capture

mod common;

use schedlab_engine::sched::topology::{flag_names, CpuMask, Host, Topology};
use std::collections::BTreeMap;

/// One line of the capture: its kind (`R`, `D`, `S`, `G`, `L`, `E`, `T`, `C`, `N`), its first
/// bare word after the kind (`index3`, `node0`) and its `key=value` fields.
struct Line {
    kind: String,
    word: String,
    fields: BTreeMap<String, String>,
}

impl Line {
    fn get(&self, key: &str) -> &str {
        self.fields.get(key).unwrap_or_else(|| panic!("{} line without {key}", self.kind))
    }
    fn num(&self, key: &str) -> i64 {
        let v = self.get(key);
        match v.strip_prefix("0x") {
            Some(hex) => i64::from_str_radix(hex, 16),
            None => v.parse(),
        }
        .unwrap_or_else(|_| panic!("{key}={v} is not a number"))
    }
    fn mask(&self, key: &str) -> CpuMask {
        CpuMask::from_bits(self.num(key) as u64)
    }
}

fn capture() -> Vec<Line> {
    let path = common::traces().join("linux-6.18-smp/topology/topology.txt");
    let text = std::fs::read_to_string(&path).expect("topology.txt");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let mut parts = l.split(' ');
            let kind = parts.next().expect("kind").to_string();
            let (mut word, mut fields) = (String::new(), BTreeMap::new());
            for p in parts {
                match p.split_once('=') {
                    Some((k, v)) => drop(fields.insert(k.to_string(), v.to_string())),
                    None => word = p.to_string(),
                }
            }
            Line { kind, word, fields }
        })
        .collect()
}

/// A sysfs CPU list (`0-1`, `0,2-3`) as a mask.
fn cpulist(s: &str) -> CpuMask {
    s.split(',')
        .flat_map(|part| {
            let (a, b) = part.split_once('-').unwrap_or((part, part));
            let (a, b): (usize, usize) = (a.parse().expect("cpu"), b.parse().expect("cpu"));
            a..=b
        })
        .collect()
}

/// The CPUs of `host` for which `same` holds against `cpu`.
fn cpus_where(host: &Host, same: impl Fn(usize) -> bool) -> CpuMask {
    (0..host.cpus.len()).filter(|&c| same(c)).collect()
}

#[test]
fn this_machine_reproduces_the_recorded_domains() {
    let lines = capture();
    let t = Topology::this_machine();
    let of = |kind: &str, cpu: usize| -> Vec<&Line> {
        lines.iter().filter(|l| l.kind == kind && l.num("cpu") == cpu as i64).collect()
    };
    let mut checked = 0;
    for (cpu, model) in t.cpus.iter().enumerate() {
        let r = of("R", cpu);
        assert_eq!(r.len(), 1, "CPU {cpu} printed once");
        assert_eq!(r[0].num("rq_cpu"), cpu as i64, "the probe read CPU {cpu}'s own rq");
        assert_eq!(r[0].num("cpu_capacity") as u64, model.cpu_capacity);
        assert_eq!((r[0].mask("rd_span"), r[0].mask("rd_online")), (t.root_span, t.root_span));
        assert!(r[0].num("rd_overloaded") <= 1 && r[0].num("rd_overutilized") <= 1);

        let ds = of("D", cpu);
        assert_eq!(ds.len(), model.domains.len(), "CPU {cpu}: number of domains");
        assert_eq!(of("E", cpu)[0].num("domains"), model.domains.len() as i64);
        for (idx, (d, m)) in ds.iter().zip(&model.domains).enumerate() {
            let at = format!("CPU {cpu} domain {idx} ({})", m.name);
            assert_eq!(d.num("idx"), idx as i64);
            assert_eq!(d.get("name"), m.name, "{at}");
            assert_eq!(d.num("level"), i64::from(m.level), "{at}");
            assert_eq!(d.num("flags") as u32, m.flags, "{at}: {} vs {}", d.get("flags_names"), flag_names(m.flags));
            assert_eq!(d.get("flags_names"), format!("{}|", flag_names(m.flags)), "{at}");
            assert_eq!(d.mask("span"), m.span, "{at}");
            let exact = [
                ("span_weight", i64::from(m.span_weight)),
                ("imbalance_pct", i64::from(m.imbalance_pct)),
                ("cache_nice_tries", i64::from(m.cache_nice_tries)),
                ("busy_factor", i64::from(m.busy_factor)),
                ("min_interval", m.min_interval as i64),
                ("max_interval", m.max_interval as i64),
                ("imb_numa_nr", i64::from(m.imb_numa_nr)),
                ("has_child", i64::from(m.has_child)),
                ("has_shared", i64::from(m.shared_nr_busy_cpus.is_some())),
            ];
            for (key, want) in exact {
                assert_eq!(d.num(key), want, "{at}: {key}");
            }
            // load_balance() doubles balance_interval from sd_init()'s value and puts it back to
            // min_interval: always min_interval × 2^k.
            let bi = d.num("balance_interval");
            assert_eq!(i64::from(m.balance_interval), m.min_interval as i64);
            assert!(bi % m.min_interval as i64 == 0 && (bi / m.min_interval as i64).count_ones() == 1, "{at}: {bi}");
            assert!(d.num("nr_balance_failed") >= i64::from(m.nr_balance_failed));
            assert!(d.num("max_newidle_lb_cost") >= 0);
            // update_newidle_stats(): calls halve at 1024 (with the successes), the ratio is the
            // successes at that moment; sd_init() starts them at 512/256/512.
            let (call, success, ratio) = (d.num("newidle_call"), d.num("newidle_success"), d.num("newidle_ratio"));
            assert!(call < 1024 && success <= call && ratio <= 1024, "{at}: {call} {success} {ratio}");
            assert!(i64::from(m.newidle_success) <= i64::from(m.newidle_call) && m.newidle_ratio <= 1024);

            let shared: Vec<&Line> = of("S", cpu).into_iter().filter(|s| s.num("idx") == idx as i64).collect();
            assert_eq!(shared.len(), usize::from(m.shared_nr_busy_cpus.is_some()), "{at}: sd->shared");
            if let (Some(s), Some(busy)) = (shared.first(), m.shared_nr_busy_cpus) {
                assert!((0..=i64::from(busy)).contains(&s.num("nr_busy_cpus")), "{at}");
                assert!(s.num("has_idle_cores") <= 1 && s.num("nr_idle_scan") >= 0);
            }

            let gs: Vec<&Line> = of("G", cpu).into_iter().filter(|g| g.num("idx") == idx as i64).collect();
            assert_eq!(gs.len(), m.groups.len(), "{at}: groups");
            for (gidx, (g, mg)) in gs.iter().zip(&m.groups).enumerate() {
                let at = format!("{at} group {gidx}");
                assert_eq!(g.num("gidx"), gidx as i64);
                assert_eq!((g.mask("span"), g.mask("balance_mask")), (mg.span, mg.balance_mask), "{at}");
                let exact = [
                    ("group_weight", i64::from(mg.group_weight)),
                    ("cores", i64::from(mg.cores)),
                    ("flags", i64::from(mg.flags)),
                    ("asym_prefer_cpu", i64::from(mg.asym_prefer_cpu)),
                    ("capacity", mg.capacity as i64),
                    ("min_capacity", mg.min_capacity as i64),
                    ("max_capacity", mg.max_capacity as i64),
                    ("sgc_id", mg.sgc_id as i64),
                ];
                for (key, want) in exact {
                    assert_eq!(g.num(key), want, "{at}: {key}");
                }
            }
            checked += 1;
        }

        let l = of("L", cpu);
        assert_eq!(l.len(), 1, "CPU {cpu}: the sd_llc line");
        let idx = |i: Option<usize>| i.map_or(-1, |i| i as i64);
        assert_eq!(l[0].num("sd_llc_size"), i64::from(model.sd_llc_size));
        assert_eq!(l[0].num("sd_llc_id"), model.sd_llc_id as i64);
        assert_eq!(l[0].num("sd_share_id"), model.sd_share_id as i64);
        assert_eq!(l[0].num("sd_llc"), idx(model.sd_llc));
        assert_eq!(l[0].num("sd_llc_shared"), 1, "sd_llc_shared is the sd_llc's sd->shared");
        assert_eq!(l[0].num("sd_numa"), idx(model.sd_numa));
    }
    assert_eq!(lines.iter().filter(|l| l.kind == "R").count(), t.cpus.len(), "no other CPU");
    assert_eq!(checked, 2, "one MC domain per CPU");
}

#[test]
fn this_machine_is_the_recorded_sysfs_topology() {
    let lines = capture();
    let host = Host::this_machine();
    for cpu in 0..host.cpus.len() {
        let me = host.cpus[cpu];
        let t: BTreeMap<&str, &str> = lines
            .iter()
            .filter(|l| l.kind == "T" && l.num("cpu") == cpu as i64)
            .flat_map(|l| l.fields.iter().filter(|(k, _)| *k != "cpu").map(|(k, v)| (k.as_str(), v.as_str())))
            .collect();
        let same_core = cpus_where(&host, |c| host.cpus[c].core == me.core);
        let same_cluster = cpus_where(&host, |c| host.cpus[c].cluster == me.cluster);
        let same_llc = cpus_where(&host, |c| host.cpus[c].llc == me.llc);
        let same_package = cpus_where(&host, |c| host.cpus[c].package == me.package);
        assert_eq!(cpulist(t["thread_siblings_list"]), same_core);
        assert_eq!(cpulist(t["core_cpus_list"]), same_core);
        assert_eq!(cpulist(t["cluster_cpus_list"]), same_cluster);
        assert_eq!(cpulist(t["package_cpus_list"]), same_package);
        assert_eq!(cpulist(t["core_siblings_list"]), same_package);
        assert_eq!(t["physical_package_id"].parse::<u32>().expect("id"), me.package);
        let caches: Vec<&Line> = lines.iter().filter(|l| l.kind == "C" && l.num("cpu") == cpu as i64).collect();
        for c in &caches {
            let shared = cpulist(c.get("shared_cpu_list"));
            match c.num("level") {
                1 => assert_eq!(shared, same_core, "{}", c.word),
                2 => assert_eq!(shared, same_cluster, "L2: the CLS level's mask"),
                3 => assert_eq!(shared, same_llc, "L3: the MC level's mask"),
                level => panic!("cache level {level}"),
            }
        }
        assert_eq!(caches.len(), 4, "L1d, L1i, L2, L3");
    }
    let nodes: Vec<&Line> = lines.iter().filter(|l| l.kind == "N").collect();
    assert_eq!(nodes.len(), host.node_distance.len());
    for (n, line) in nodes.iter().enumerate() {
        assert_eq!(line.word, format!("node{n}"));
        assert_eq!(cpulist(line.get("cpulist")), cpus_where(&host, |c| host.cpus[c].node == n as u32));
        let row: Vec<u32> = line.get("distance").split(',').map(|d| d.parse().expect("distance")).collect();
        assert_eq!(row, host.node_distance[n]);
    }
}
