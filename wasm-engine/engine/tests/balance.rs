//! Load balancing under `smp = "fair"` (`sched/balance`): periodic balancing rotates three
//! hogs over two CPUs, weights are balanced by load, pinned tasks never move, a CPU going
//! idle pulls by newidle balancing, NI_RANDOM's dice come from the scenario seed. Every
//! scenario runs with the invariant checker on.

use schedlab_engine::obs::codes::MigrateClass;
use schedlab_engine::obs::log::EventKind;
use schedlab_engine::obs::summary::Summary;
use schedlab_engine::sim::Simulation;

const MS: u64 = 1_000_000;

fn scenario(smp: &str, seed: u64, duration: &str, tasks: &str) -> String {
    format!(
        "version = 1\nname = \"balance\"\nseed = {seed}\nduration = \"{duration}\"\n[host]\ncpus = 2\nhz = 250\n\
         [kernel]\nsmp = \"{smp}\"\n{tasks}"
    )
}

fn run(text: &str, variants: &[(&str, &str)]) -> Simulation {
    let v: Vec<(String, String)> = variants.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    let (_, mut sim) = schedlab_engine::load("balance.toml", text, &v).expect("valid scenario");
    sim.check_invariants = true;
    sim.run();
    sim
}

fn hog(name: &str, nice: i32, affinity: &str) -> String {
    format!("[[tasks]]\nname = \"{name}\"\nnice = {nice}\naffinity = {affinity}\nprogram = [{{ run = \"forever\" }}]\n")
}

/// Migrate rows by class.
fn migrations(sim: &Simulation, class: MigrateClass) -> usize {
    let e = &sim.fair.log.events;
    (0..e.t.len()).filter(|&i| e.kind[i] == EventKind::Migrate as u8 && e.arg[i] == class as u32).count()
}

fn report(sim: &Simulation, what: &str) -> Summary {
    let s = Summary::of(sim);
    let secs = sim.cfg.duration_ns as f64 / 1e9;
    for t in &s.tasks {
        println!(
            "{what}: {} {:.1} % of a CPU, {} migrations, per CPU {:?} ms",
            t.name,
            t.cpu_time_ns as f64 / 1e7 / secs,
            t.migrations,
            t.cpu_time_ns_by_cpu.iter().map(|n| n / MS).collect::<Vec<_>>()
        );
    }
    s
}

#[test]
fn periodic_balancing_rotates_three_hogs_over_two_cpus() {
    let tasks = ["a", "b", "c"].map(|n| hog(n, 0, "[0, 1]")).concat();
    let sim = run(&scenario("fair", 1, "1500ms", &tasks), &[]);
    let s = report(&sim, "three hogs (real: 65.4/66.0/65.4 %, 5/3/4 migrations)");
    for t in &s.tasks {
        assert!(t.migrations >= 1, "{} never migrated", t.name);
        let pct = t.cpu_time_ns as f64 / 1.5e7;
        assert!((pct - 66.7).abs() < 6.0, "{} ran {pct:.1} % of a CPU", t.name);
    }
    assert!(migrations(&sim, MigrateClass::Periodic) + migrations(&sim, MigrateClass::Active) >= 3);
}

#[test]
fn a_nice_0_hog_ends_up_alone_against_three_nice_5_hogs() {
    let tasks =
        [hog("n0", 0, "[0, 1]"), hog("n5a", 5, "[0, 1]"), hog("n5b", 5, "[0, 1]"), hog("n5c", 5, "[0, 1]")].concat();
    let sim = run(&scenario("fair", 1, "1500ms", &tasks), &[]);
    let s = report(&sim, "nice imbalance (real: nice-0 93 %)");
    let n0 = &s.tasks[0];
    let pct = n0.cpu_time_ns as f64 / 1.5e7;
    assert!(pct > 85.0, "the nice-0 hog ran {pct:.1} % of a CPU");
}

#[test]
fn pinned_tasks_never_migrate_and_run_as_without_balancing() {
    let tasks = [hog("a", 0, "[0]"), hog("b", 0, "[0]"), hog("c", 5, "[1]")].concat();
    let fair = run(&scenario("fair", 1, "300ms", &tasks), &[]);
    let stat = run(&scenario("static", 1, "300ms", &tasks), &[]);
    assert!(!fair.fair.smp().lb.enabled, "nothing can move: the balancer is skipped");
    let e = &fair.fair.log.events;
    assert_eq!((0..e.t.len()).filter(|&i| e.kind[i] == EventKind::Migrate as u8).count(), 0);
    assert_eq!((0..e.t.len()).filter(|&i| e.kind[i] == EventKind::Balance as u8).count(), 0);
    for t in 0..3 {
        assert_eq!(fair.cpu_time(t), stat.cpu_time(t), "task {t}");
    }
}

/// A sleeper pinned to CPU 1 (fork balancing leaves both hogs on CPU 0, next to it)
/// and two hogs: each time the sleeper blocks, CPU 1 goes newly idle next to two hogs.
fn newidle_tasks() -> String {
    [
        "[[tasks]]\nname = \"s\"\naffinity = [1]\nprogram = [{ loop = { body = [{ run = \"20ms\" }, { sleep = \"2ms\" }] } }]\n"
            .to_string(),
        hog("h1", 0, "[0, 1]"),
        hog("h2", 0, "[0, 1]"),
    ]
    .concat()
}

#[test]
fn a_cpu_going_idle_pulls_a_waiting_task_by_newidle_balancing() {
    let text = scenario("fair", 1, "400ms", &newidle_tasks());
    let sim = run(&text, &[]);
    report(&sim, "newidle");
    println!("newidle migrations with NI_RANDOM: {}", migrations(&sim, MigrateClass::Newidle));
    let off = run(&text, &[("NI_RANDOM", "false")]);
    let n = migrations(&off, MigrateClass::Newidle);
    println!("newidle migrations without NI_RANDOM: {n}");
    assert!(n >= 1, "without the dice, CPU 1 pulls a hog when the sleeper blocks");
    assert_ne!(sim.fair.log.digest(), off.fair.log.digest(), "NI_RANDOM changes the run");
    let again = run(&text, &[]);
    assert_eq!(sim.fair.log.digest(), again.fair.log.digest(), "same seed, same run");
    let digests: Vec<u64> =
        (2..6).map(|seed| run(&scenario("fair", seed, "400ms", &newidle_tasks()), &[]).fair.log.digest()).collect();
    println!("other seeds: {digests:x?}");
    assert!(digests.iter().any(|&d| d != sim.fair.log.digest()), "some other seed rolls other dice");
}

/// The CPUs' ticks of one jiffy are handled in CPU order, whichever CPU armed its tick first
/// (`EventQueue::pop_ticks_at`; measured order in `docs/kernel-6.18.44-findings.md`,
/// "Simultaneous ticks"). Here CPU 1 is busy from the start and CPU 0 only from 5 ms, so its
/// tick is armed second: before, CPU 1's tick came first at every later jiffy, and a balance
/// pass of CPU 0 always saw CPU 1's tick already handled.
#[test]
fn ticks_of_one_jiffy_run_in_cpu_order() {
    let tasks = format!(
        "{}{}[[tasks]]\nname = \"late\"\naffinity = [0]\nstart = \"5ms\"\nprogram = [{{ run = \"forever\" }}]\n",
        hog("a", 0, "[1]"),
        hog("b", 0, "[1]")
    );
    let sim = run(&scenario("fair", 1, "40ms", &tasks), &[]);
    let e = &sim.fair.log.events;
    let ticks: Vec<(u64, u16)> =
        (0..e.t.len()).filter(|&i| e.kind[i] == EventKind::Tick as u8).map(|i| (e.t[i], e.cpu[i])).collect();
    let both: Vec<u64> = ticks.windows(2).filter(|w| w[0].0 == w[1].0).map(|w| w[0].0).collect();
    assert!(both.len() >= 8, "{} jiffies with both CPUs ticking", both.len());
    for w in ticks.windows(2).filter(|w| w[0].0 == w[1].0) {
        assert_eq!((w[0].1, w[1].1), (0, 1), "ticks at {} ns", w[0].0);
    }
}

/// `detach_task()` of a task that DELAY_DEQUEUE keeps queued: the kernel's `dequeue_entity()`
/// ages its averages while `sched_delayed` is still set, so `se_runnable()` is 0 for the time
/// since its last update and its `runnable_avg` only decays. (The engine once un-delayed it
/// first and credited the whole delay as runnable, leaving its old CPU's root `runnable_avg`
/// short by that much once the entity's was taken out.)
#[test]
fn detach_task_ages_a_delayed_task_as_not_runnable() {
    // The sleeper may move (so PELT is tracked); the hogs keep both CPUs busy.
    let sleeper = "[[tasks]]\nname = \"s\"\naffinity = [0, 1]\n\
                   program = [{ loop = { body = [{ run = \"3ms\" }, { sleep = \"1ms\" }] } }]\n";
    let hogs = hog("a", 0, "[1]") + &hog("b", 0, "[1]") + &hog("c", 0, "[0]") + &hog("d", 0, "[0]");
    let text = scenario("fair", 1, "400ms", &(hogs + sleeper));
    let (_, mut sim) = schedlab_engine::load("balance.toml", &text, &[]).expect("valid scenario");
    sim.check_invariants = true;
    // The first moment the sleeper sits delayed on CPU 1 with a millisecond unaccounted.
    let s = sim.tasks.iter().position(|t| t.cfg.name == "s").expect("s") as u32;
    let mut found = false;
    for t in (1..4000).map(|i| i * 100_000) {
        sim.run_until(t);
        let e = &sim.fair.ents[s as usize];
        if e.sched_delayed && e.on_rq && sim.fair.clock_pelt() > e.avg.last_update_time + MS {
            found = true;
            break;
        }
    }
    assert!(found, "the sleeper was never left delayed for a millisecond");
    let before = sim.fair.ents[s as usize].avg.runnable_avg;
    let to = 1 - sim.fair.qs[sim.fair.ents[s as usize].cfs_rq as usize].cpu;
    sim.fair.move_queued_task(s, to, MigrateClass::Periodic);
    let after = sim.fair.ents[s as usize].avg.runnable_avg;
    println!("delayed sleeper moved: runnable_avg {before} -> {after}");
    assert!(after <= before, "a delayed task's runnable_avg grew from {before} to {after} at its move");
}

/// For each periodic pull of a hog: whether the hog was the one running on its source CPU up
/// to that jiffy (the one the source's own tick switches out), and how many pulls there were.
fn pulled_the_hog_that_ran(sim: &Simulation) -> (usize, usize) {
    let mut running: Vec<Option<u32>> = vec![None; sim.cfg.host.ncpus as usize];
    let (mut ran, mut pulls) = (0, 0);
    let mut switches_at_t: Vec<(u16, Option<u32>)> = Vec::new();
    let mut t_last = 0;
    for r in sim.fair.log.events.rows() {
        if r.t != t_last {
            // Switches at an instant apply after that instant's pulls are read.
            for (cpu, next) in switches_at_t.drain(..) {
                running[cpu as usize] = next;
            }
            t_last = r.t;
        }
        if r.kind == EventKind::Switch as u8 {
            switches_at_t.push((r.cpu, (r.task != schedlab_engine::obs::log::NO_TASK).then_some(r.task)));
        } else if r.kind == EventKind::Migrate as u8 && r.arg == MigrateClass::Periodic as u32 {
            pulls += 1;
            ran += (running[r.val as usize] == Some(r.task)) as usize;
        }
    }
    (ran, pulls)
}

/// `host.tick_order = "machine"`: a busy CPU acts on its tick's resched only after its own
/// SCHED softirq, so at a jiffy where the source has no pass due it has switched before the
/// destination detaches, and the candidate at the tail of its `cfs_tasks` is the hog that ran
/// up to the tick (cache-hot: it moves once `nr_balance_failed` has passed `cache_nice_tries`).
/// The machine's pulls are of that hog: 27 of the 28 in `traces/linux-6.18-smp-balance`
/// (`balance_timing.rs`). Under "cpu" a pass of CPU 0 runs before CPU 1's tick, so CPU 0 pulls
/// the hog that waited.
#[test]
fn the_machines_tick_order_pulls_the_hog_the_source_just_switched_out() {
    let tasks = ["a", "b", "c"].map(|n| hog(n, 0, "[0, 1]")).concat();
    let text = scenario("fair", 1, "3s", &tasks);
    let mut fractions = Vec::new();
    for order in ["cpu", "machine"] {
        let sim = run(&text, &[("tick_order", order)]);
        let (ran, pulls) = pulled_the_hog_that_ran(&sim);
        println!("tick_order={order}: {ran} of {pulls} periodic pulls took the hog that ran up to the jiffy");
        assert!(pulls >= 10, "{order}: {pulls} pulls");
        fractions.push(ran as f64 / pulls as f64);
    }
    assert!(fractions[1] >= 0.9, "machine: {:?}", fractions);
    assert!(fractions[0] < fractions[1], "{fractions:?}");
}

/// `host.tick_ahead`: the share of jiffies at which a CPU other than the timekeeper reads
/// `jiffies` one behind in `sched_balance_trigger()`, drawn per CPU and jiffy from the seed
/// (the machine: 14 of 123 busy passes due on the CPU that did not keep time, `balance_timing.rs`).
#[test]
fn tick_ahead_delays_the_passes_of_the_cpus_that_do_not_keep_time() {
    let mut lb = schedlab_engine::sched::balance::Balance::new(2, &[1, 1], 0, 7, 500_000);
    assert!((0..10_000).all(|j| !lb.tick_ahead(1, j)), "off by default");
    lb.tick_ahead_per_mille = 114;
    lb.timekeeper = 0;
    let ahead = (0..10_000).filter(|&j| lb.tick_ahead(1, j)).count();
    assert!((1_040..=1_240).contains(&ahead), "{ahead} of 10000 jiffies");
    assert!((0..10_000).all(|j| !lb.tick_ahead(0, j)), "the timekeeper is never ahead of itself");
    // In a run: three hogs on two CPUs take another course with each seed, and none without.
    let tasks = ["a", "b", "c"].map(|n| hog(n, 0, "[0, 1]")).concat();
    let text = scenario("fair", 1, "1500ms", &tasks);
    let digest = |v: &[(&str, &str)]| run(&text, v).fair.log.digest();
    assert_eq!(digest(&[("seed", "2")]), digest(&[("seed", "3")]));
    let seeded: std::collections::BTreeSet<u64> =
        ["2", "3", "4", "5"].iter().map(|s| digest(&[("tick_ahead", "11.4"), ("seed", s)])).collect();
    assert!(seeded.len() >= 3, "{} courses from four seeds", seeded.len());
}
