//! Phase timings for profiling, compiled in only with the `timings` feature (the benchmark
//! scripts build with it; without it every function here is an empty one the compiler removes,
//! so an embedding program carries no global state for them). With it, they are off unless
//! the binary turns them on ([`enable`], with `COGMEM_TIMINGS=1` in the environment); then
//! [`mark`] records the milliseconds since [`enable`] under a label and the binary prints them
//! to stderr when the command ends. Benchmarks use it to say where a command spends its time;
//! nothing depends on it.
//!
//! The marks are process-wide on purpose: a benchmark build times one command of one process.

#[cfg(feature = "timings")]
mod on {
    use std::sync::Mutex;
    use std::sync::OnceLock;
    use std::time::Instant;

    static START: OnceLock<Instant> = OnceLock::new();
    static MARKS: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());

    pub(crate) fn enable() {
        let _ = START.set(Instant::now());
    }

    pub(crate) fn mark(label: &str) {
        if let Some(t) = START.get() {
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if let Ok(mut m) = MARKS.lock() {
                m.push((label.to_owned(), ms));
            }
        }
    }

    pub(crate) fn take() -> Vec<(String, f64)> {
        MARKS.lock().map(|mut m| std::mem::take(&mut *m)).unwrap_or_default()
    }
}

/// Whether timings are compiled in (the `timings` feature).
pub const COMPILED: bool = cfg!(feature = "timings");

/// Starts recording marks; the clock starts now. Nothing without the `timings` feature.
#[cfg(feature = "timings")]
pub fn enable() {
    on::enable();
}

/// Records a mark when timings are on (a no-op otherwise).
#[cfg(feature = "timings")]
pub fn mark(label: &str) {
    on::mark(label);
}

/// Takes the marks recorded so far: (label, milliseconds since [`enable`]).
#[cfg(feature = "timings")]
pub fn take() -> Vec<(String, f64)> {
    on::take()
}

/// Starts recording marks; nothing without the `timings` feature.
#[cfg(not(feature = "timings"))]
pub fn enable() {}

/// Records a mark; nothing without the `timings` feature.
#[cfg(not(feature = "timings"))]
pub fn mark(_label: &str) {}

/// Takes the marks recorded so far: always none without the `timings` feature.
#[cfg(not(feature = "timings"))]
pub fn take() -> Vec<(String, f64)> {
    Vec::new()
}
