//! Build script of the `cogmem` package. It does one thing, and only when asked: with the
//! `fast-start` feature on Linux, the `cogmem` binary is linked as a position-dependent
//! executable (`-no-pie`), which saves the dynamic loader relocating and copying about a
//! megabyte of the binary at every start (about 1 ms of every command on the machine measured;
//! docs/benchmarks.md). The price is address-space randomisation of the binary's own code, so
//! the default build keeps it (docs/decisions.md, "fast-start").

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux");
    if linux && std::env::var_os("CARGO_FEATURE_FAST_START").is_some() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
