//! Phase timings for profiling. Off unless the binary turns them on ([`enable`], with
//! `COGMEM_TIMINGS=1` in the environment); then [`mark`] records the milliseconds since
//! [`enable`] under a label and the binary prints them to stderr when the command ends.
//! Benchmarks use it to say where a command spends its time; nothing depends on it.

use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::Instant;

static START: OnceLock<Instant> = OnceLock::new();
static MARKS: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());

/// Starts recording marks; the clock starts now.
pub fn enable() {
    let _ = START.set(Instant::now());
}

/// Records a mark when timings are on (a no-op otherwise).
pub fn mark(label: &str) {
    if let Some(t) = START.get() {
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if let Ok(mut m) = MARKS.lock() {
            m.push((label.to_owned(), ms));
        }
    }
}

/// Takes the marks recorded so far: (label, milliseconds since [`enable`]).
pub fn take() -> Vec<(String, f64)> {
    MARKS.lock().map(|mut m| std::mem::take(&mut *m)).unwrap_or_default()
}
