//! "Why this pick" wording (`obs::why`): for known decisions of bundled scenarios, the words
//! name the winner, the rule that decided (buddy and who set it, protection with its vprot
//! margin, earliest eligible deadline), the eligible and ineligible entities with their lags
//! and deadlines relative to V, and the level of the hierarchy — with the right numbers.

mod common;

use schedlab_engine::lesson::facts::{level_path, pick_row};
use schedlab_engine::obs::cursor::pick;
use schedlab_engine::obs::explain::{decision_levels, explain, node_name};
use schedlab_engine::obs::log::flag;
use schedlab_engine::obs::why::{candidates, pick_words};
use schedlab_engine::sim::Simulation;

fn run(scenario: &str, variants: &[(&str, &str)]) -> Simulation {
    let mut sim = common::load(&common::repo_root().join("scenarios").join(format!("{scenario}.toml")), variants);
    sim.run();
    sim
}

fn name_of(sim: &Simulation) -> impl Fn(u32) -> String + '_ {
    move |n| {
        node_name(n, &|t| sim.tasks.get(t as usize).map(|x| x.cfg.name.clone()), &|g| {
            sim.fair.tgs.get(g as usize).map(|x| x.path.clone())
        })
    }
}

/// The decision at or before `t_ns` on `cpu`: per level, (cgroup path of the queue, words).
fn decision(sim: &Simulation, cpu: u32, t_ns: u64) -> Vec<(String, String)> {
    let i = pick_row(sim, cpu, t_ns, None).expect("a pick");
    let name = name_of(sim);
    decision_levels(sim, i)
        .into_iter()
        .map(|j| (level_path(sim, sim.fair.log.picks.task[j]), pick_words(&sim.fair.log, j, &name, &sim.fair.feat)))
        .collect()
}

fn has(words: &str, part: &str) {
    assert!(words.contains(part), "missing {part:?} in:\n{words}");
}

#[test]
fn protection_and_a_skipped_yield_to_buddy_at_the_root() {
    // Prateek's first topology: A yields to B at 4.2 ms; at the root [/CG0] is protected and
    // [/CG1], the buddy, is not eligible.
    let sim = run("yield/prateek-topology-1", &[]);
    let d = decision(&sim, 0, 4_250_000);
    assert_eq!(d.iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(), ["/", "/CG0"]);
    let root = &d[0].1;
    has(root, "[/CG0] kept the CPU: it was running, eligible (lag +1.700 ms) and still protected, its vruntime 300 µs short of vprot (RUN_TO_PARITY");
    has(root, "Without the protection [/CG0] would still have won: its deadline V−1.400 ms is the earliest among the eligible.");
    has(root, "Not eligible (lag < 0): [/CG1] (lag −1.700 ms, deadline V+2.400 ms).");
    has(root, "[/CG1] was the next buddy, set by a yield_to() towards it, but it was not eligible here (lag −1.700 ms), so the hint was skipped");
    has(&d[1].1, "A was the only entity queued here, so nothing was compared.");
    // The numbers, from the candidate columns: equal weights, so the lags cancel; the
    // protected margin is vprot − vruntime.
    let i = decision_levels(&sim, pick_row(&sim, 0, 4_250_000, None).unwrap())[0];
    let cs = candidates(&sim.fair.log, i, &name_of(&sim));
    assert_eq!(cs.iter().map(|c| c.lag).collect::<Vec<_>>(), [1_700_000, -1_700_000]);
    assert_eq!(cs[0].prot_left, 300_000);
    assert!(cs[0].flags & flag::PROTECTED != 0 && cs[1].flags & flag::BUDDY != 0);
}

#[test]
fn an_eligible_buddy_wins_and_the_deadline_winner_is_named() {
    let sim = run("lessons/yield-to-buddy", &[]);
    let d = decision(&sim, 0, 16_450_000);
    let w = &d[0].1;
    has(w, "B was picked as the next buddy, set by a yield_to() towards it.");
    has(w, "and B was: lag +66.666 µs.");
    has(w, "By deadline alone A would have been picked (V−166.666 µs against B's V+633.334 µs).");
    has(w, "Eligible (lag ≥ 0, vruntime ≤ V): A (lag +866.666 µs, deadline V−166.666 µs), B (lag +66.666 µs, deadline V+633.334 µs).");
    has(w, "Not eligible (lag < 0): C (lag −933.334 µs, deadline V+1.633 ms).");
    // Without PICK_BUDDY the same moment is a plain deadline comparison and says so.
    let sim = run("lessons/yield-to-buddy", &[("PICK_BUDDY", "false")]);
    let w = &decision(&sim, 0, 16_450_000)[0].1;
    has(w, "A kept the CPU: it was running and eligible (lag +866.666 µs), and its deadline V−166.666 µs is earlier than that of every eligible queued entity (the best, B, has V+633.334 µs).");
    has(w, "B was the next buddy, set by a yield_to() towards it, but PICK_BUDDY is off, so the hint was ignored.");
}

#[test]
fn buddy_sources_sleep_and_wakeup() {
    // A task of /a sleeps while A1 stays queued: /a becomes the root's buddy.
    let sim = run("lessons/cgroup-levels", &[]);
    let d = decision(&sim, 0, 4_020_000);
    assert_eq!(d[0].0, "/");
    has(&d[0].1, "[/a] was picked as the next buddy, set by dequeue_entities() when a task of this group went to sleep while others stayed queued in it.");
    has(&d[0].1, "and [/a] was: lag +500 µs.");
    assert_eq!(d[1].0, "/a");
    has(&d[1].1, "A1 was the only entity queued here");
    // A buddy alone on its queue is named briefly.
    let sim = run("yield/prateek-topology-1", &[("yield_to", "debooster_v2")]);
    let d = decision(&sim, 0, 6_450_000);
    assert_eq!(
        d[1],
        (
            "/CG1".to_string(),
            "B was the only entity queued here (it was also the next buddy, set by a yield_to() towards it)."
                .to_string()
        )
    );
    // NEXT_BUDDY (on in 6.19, off in 6.18): the wakee becomes the buddy.
    let sim = run("gallery/sleeper-vs-hog", &[("NEXT_BUDDY", "true")]);
    let w = &decision(&sim, 0, 5_060_000)[0].1;
    has(w, "periodic was picked as the next buddy, set by its wakeup with NEXT_BUDDY on.");
}

#[test]
fn a_running_entity_that_loses_is_explained() {
    // PREEMPT_SHORT: L's wakeup cancels A's protection; A is still eligible.
    let sim = run("lessons/parity-short", &[]);
    let w = &decision(&sim, 0, 11_100_000)[0].1;
    has(w, "L had the earliest virtual deadline among the eligible entities: V+300 µs.");
    has(w, "A, the running entity, was eligible but no longer protected");
    // E's placement with its saved lag makes the running H1 ineligible.
    let sim = run("lessons/lag-placement", &[]);
    let w = &decision(&sim, 0, 12_400_000)[0].1;
    has(w, "H1, the running entity, was no longer eligible (lag −258.333 µs), so it could not stay.");
    has(w, "E (lag +466.666 µs, deadline V+233.334 µs)");
}

#[test]
fn eligibility_delayed_entities_and_redone_picks() {
    let sim = run("lessons/eevdf-basics", &[]);
    let w = &decision(&sim, 0, 9_500_000)[0].1;
    has(w, "C had the earliest virtual deadline among the eligible entities: V+1.329 ms.");
    has(w, "A had the earliest deadline of all (V+832.607 µs) but was not eligible");
    let sim = run("lessons/parity-short", &[]);
    let w = &decision(&sim, 0, 11_500_000)[0].1;
    has(w, "L (lag −133.334 µs, deadline V+233.334 µs, asleep but still queued (delayed dequeue))");
    let sim = run("lessons/delayed-dequeue", &[]);
    let w = &decision(&sim, 0, 16_000_000)[0].1;
    has(w, "S, the running entity, had just gone to sleep; not being eligible (lag −250 µs), it stays queued until its lag is paid back (delayed dequeue).");
    let w = &decision(&sim, 0, 20_100_000)[0].1;
    has(w, "First, S had won this pick while asleep: delayed dequeue had kept it queued with negative lag, so it was dequeued for good and the pick was redone.");
    has(w, "H was the only entity queued here");
    let sim = run("gallery/yield-vs-hog", &[]);
    let w = &decision(&sim, 0, 4_035_000)[0].1;
    has(w, "yielder kept the CPU: it was running and eligible (lag +1.120 ms), and no queued entity was eligible.");
}

#[test]
fn explain_and_the_cursor_json_carry_the_same_words() {
    let mut sim = common::load(&common::repo_root().join("scenarios/yield/prateek-topology-1.toml"), &[]);
    sim.run_until(4_250_000);
    let (json, text) = explain(&sim);
    has(&text, "pick at t=4200000 on the root cfs_rq: [/CG0]. [/CG0] kept the CPU");
    has(&text, "pick at t=4200000 on the cfs_rq of /CG0: A. A was the only entity queued here");
    let root = &json["cpus"][0]["last_pick"][0];
    assert_eq!(root["buddy_src"], "yield_to");
    assert_eq!(root["reason"], "protected");
    has(root["why"].as_str().unwrap(), "its vruntime 300 µs short of vprot");
    // The web inspector's JSON (pick_json) says the same.
    let names: Vec<String> = sim.tasks.iter().map(|t| t.cfg.name.clone()).collect();
    let groups: Vec<String> = sim.fair.tgs.iter().map(|g| g.path.clone()).collect();
    let i = decision_levels(&sim, pick_row(&sim, 0, 4_250_000, None).unwrap())[0];
    let p = serde_json::to_value(pick(&sim.fair.log, &names, &groups, &sim.fair.feat, i)).unwrap();
    assert_eq!(p["why"], root["why"]);
    assert_eq!(p["buddy_src"], "yield_to");
    assert_eq!(p["reason"], "protected");
    assert_eq!(p["name"], "[/CG0]");
}
