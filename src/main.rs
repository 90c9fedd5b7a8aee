//! The `cogmem` binary: a thin shell over the library. Everything that parses arguments, reads
//! the environment or prints lives in `cli/`, which only the binary compiles.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main(std::env::args_os())
}
