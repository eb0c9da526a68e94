//! The bpftrace EEVDF-state dump (`S`/`G` lines, both dialects): the whole-import properties of
//! `schedlab_fuzz`; per line, errors inside the line, a parsed sample carrying its line number and
//! printing back (schedlab-eevdf.bt dialect) to itself, V and eligibility computable; and the
//! clock check of the dump against a few fixed switches (`import/clock.rs`).
//! Seeds: slices of the 6.18.44 captures' `eevdf-state.txt` and of `traces/capture-example`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::eevdf::{is_banner, looks_like_sample, parse_header, parse_sample};
use schedlab_fuzz::{assert_in_line, check_clocks_against_small_trace, eevdf_round_trip, import_and_check, text_lines};

fuzz_target!(|data: &[u8]| {
    import_and_check(data);
    check_clocks_against_small_trace(data);
    for (i, line) in text_lines(data).into_iter().enumerate() {
        let _ = (is_banner(line), looks_like_sample(line), parse_header(line));
        match parse_sample(line, i as u64 + 1) {
            Ok(s) => {
                assert_eq!(s.line, i as u64 + 1);
                eevdf_round_trip(&s);
                // V and eligibility never panic, whatever the numbers.
                let q = s.entity.cfs_rq();
                let _ = (q.avg_vruntime(), q.eligible(s.entity.se().vruntime), s.entity.se().vlag());
            }
            Err(l) => assert_in_line(l.at, line, "EEVDF sample"),
        }
    }
});
