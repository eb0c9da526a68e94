//! The CPU-averages dump (`tools/capture/schedlab-cpu-avg.bt`, `import::cpu_avg`), which the
//! command line and the browser read from the user: per line, an error stays inside the line; a
//! parsed sample's settled averages never exceed its averages; the whole text parses to samples
//! in time order or to an error at `FILE:LINE:COLUMN`.
//! Seeds: the header and slices of the `traces/linux-6.18-smp-cpuavg` dumps.
#![no_main]
use libfuzzer_sys::fuzz_target;
use schedlab_engine::import::cpu_avg::{parse, parse_line};
use schedlab_fuzz::{assert_in_line, text_lines};

fuzz_target!(|data: &[u8]| {
    for line in text_lines(data) {
        match parse_line(line) {
            Ok(s) => {
                let [load, runnable, util] = s.settled();
                assert!(load <= s.load_avg && runnable <= s.runnable_avg && util <= s.util_avg, "{s:?}");
            }
            Err(l) => assert_in_line(l.at, line, "CPU-averages sample"),
        }
    }
    if let Ok(text) = std::str::from_utf8(data) {
        match parse("d.txt", text) {
            Ok(samples) => assert!(samples.windows(2).all(|w| (w[0].ts_ns, w[0].cpu) <= (w[1].ts_ns, w[1].cpu))),
            Err(e) => assert!(e.starts_with("d.txt:"), "{e}"),
        }
    }
});
