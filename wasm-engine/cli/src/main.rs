//! `schedlab`: the native command line of the schedlab engine. `schedlab --help` lists the
//! commands and `schedlab <command> --help` a command's flags; the grammar is in `args.rs`.
//!
//! ```text
//! simulate, explain, variants     simulate.rs       a scenario's summary, the state at an instant
//! compare                         compare.rs        one scenario under several named variants
//! schema                          (engine)          the scenario JSON Schema
//! bench                           bench.rs          engine throughput, or one scenario's run time
//! gen aaron, bench-distribute     aaron.rs          the 384-CPU bandwidth scenario
//! gen wanpeng                     wanpeng.rs        a KVM scenario with Wanpeng Li's presets
//! wanpeng-table, bench-kvm        wanpeng_table.rs  his table over several layouts; the KVM benchmark
//! import, bench-import, gen trace import.rs         a trace's summary; importer throughput
//! diff, bench-diff                diff.rs           two traces compared (A/B); its throughput
//! replay                          replay.rs         shadow re-simulation of a trace
//! lessons                         lessons.rs        lessons checked step by step
//! ```
//! Bad input prints `schedlab: <what was expected>` (`<file>:<line>:<col>: ...` for a file)
//! on stderr and exits 2; `--help` prints to stdout and exits 0.

mod aaron;
mod args;
mod bench;
mod compare;
mod diff;
mod export;
mod import;
mod lessons;
mod replay;
mod replay_spread;
mod simulate;
mod wanpeng;
mod wanpeng_table;

use args::{Cli, Command, Gen};
use clap::Parser;
use std::process::ExitCode;

/// The wasm builds' allocator: dlmalloc over a memory that grows in large steps
/// (`schedlab-wasm-alloc`: each `memory.grow` is costly in V8).
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOC: schedlab_wasm_alloc::GrowingDlmalloc = schedlab_wasm_alloc::GrowingDlmalloc::new();

fn run(command: Command) -> Result<(), String> {
    match command {
        Command::Simulate(a) => out(&simulate::simulate(&a)?),
        Command::Explain(a) => out(&simulate::explain(&a)?),
        Command::State(a) => out(&simulate::state(&a)?),
        Command::Compare(a) => out(&compare::run(&a)?),
        Command::Variants => out(&simulate::variants()),
        Command::Schema => out(&schedlab_engine::scenario::json_schema_string()),
        Command::Bench(a) => bench::command(&a),
        Command::Gen(Gen::Aaron) => out(&aaron::scenario(384, 1100, 10_000, "1s")),
        Command::Gen(Gen::Wanpeng(a)) => out(&wanpeng::generate(&a)?),
        Command::Gen(Gen::Trace(a)) => import::print_synthetic(a.size.mb, a.seed),
        Command::Gen(Gen::BenchB(a)) => out(&bench::sleepers(a.seconds)),
        Command::BenchDistribute(a) => aaron::bench(384, 1100, 10_000, &format!("{}s", a.seconds)),
        Command::WanpengTable(a) => wanpeng_table::command(&a),
        Command::BenchKvm(a) => wanpeng_table::bench_command(&a),
        Command::Import(a) => out(&import::run(&a)?),
        Command::Replay(a) => out(&replay::run(&a)?),
        Command::BenchImport(a) if a.perfetto => export::bench(a.mb),
        Command::BenchImport(a) => import::bench(a.mb),
        Command::Export(a) => out(&export::run(&a)?),
        Command::Diff(a) => out(&diff::run(&a)?),
        Command::BenchDiff(a) => diff::bench(a.mb),
        Command::Lessons(a) => out(&lessons::run(&a.path)?),
    }
}

fn main() -> ExitCode {
    let command = match Cli::try_parse() {
        Ok(cli) => cli.command,
        Err(e) => return usage_error(&e),
    };
    match run(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("schedlab: {e}");
            ExitCode::from(2)
        }
    }
}

/// Help on stdout (exit 0); a command line clap refused as `schedlab: ...` on stderr (exit 2).
/// A value its parser refused reads `--flag "value": what was expected`.
fn usage_error(e: &clap::Error) -> ExitCode {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let context = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        // `schedlab` or `schedlab gen` alone: that command's help.
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => eprint!("schedlab: missing command\n\n{}", e.render()),
        ErrorKind::ValueValidation => {
            let flag = context(ContextKind::InvalidArg).and_then(|a| a.split_whitespace().next()).unwrap_or("");
            let value = context(ContextKind::InvalidValue).unwrap_or("");
            match std::error::Error::source(e) {
                Some(why) => eprintln!("schedlab: {flag} {value:?}: {why}"),
                None => eprint!("schedlab: {}", e.render()),
            }
        }
        _ => {
            let text = e.render().to_string();
            eprint!("schedlab: {}", text.strip_prefix("error: ").unwrap_or(&text));
        }
    }
    ExitCode::from(2)
}

/// Reads a scenario (or other input) file, naming it in the error.
fn read(file: &str) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("{file}: cannot read: {e}"))
}

/// Writes to stdout; a closed pipe (`schedlab ... | head`) ends the output quietly instead
/// of panicking like `print!` does.
fn out(s: &str) -> Result<(), String> {
    use std::io::Write;
    match std::io::stdout().lock().write_all(s.as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(format!("writing output: {e}")),
        _ => Ok(()),
    }
}
