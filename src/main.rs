//! The `cogmem` binary: a thin shell over the library. Everything that parses arguments, reads
//! the environment or prints lives in `cli/`, which only the binary compiles.

mod cli;

fn main() -> std::process::ExitCode {
    // COGMEM_TIMINGS=1: where the time went, phase by phase, on stderr (for benchmarks).
    let timings = std::env::var_os("COGMEM_TIMINGS").is_some_and(|v| v != "0" && !v.is_empty());
    if timings {
        cogmem::timing::enable();
    }
    let code = cli::main(std::env::args_os());
    if timings {
        cogmem::timing::mark("end");
        for (label, ms) in cogmem::timing::take() {
            eprintln!("timing: {ms:8.2} ms  {label}");
        }
    }
    code
}
