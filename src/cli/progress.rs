//! Progress bars for long work (issue 20): the binary's [`Progress`] sink, drawn on stderr with
//! indicatif. The operations only count (`cogmem::progress`); this decides whether and how it
//! shows.
//!
//! A bar is drawn only when stderr is a terminal, not with `-q` or `--json`, and only once a
//! phase has run for half a second (`COGMEM_PROGRESS_DELAY_MS`), so that a quick command prints
//! nothing extra. It shows the count, the total, the rate and the time left (a spinner, the
//! count and the rate when the total is not known), is coloured only where diagnostics are
//! (`--color`, `NO_COLOR`), and is erased when the phase ends, before the command's own summary.

use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use cogmem::progress::{Phase, Progress, Sink};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

/// How long a phase runs before its bar appears, unless `COGMEM_PROGRESS_DELAY_MS` says.
pub const DEFAULT_DELAY: Duration = Duration::from_millis(500);

/// How often a shown bar is redrawn when no unit ends (the rate and the time left move on).
const TICK: Duration = Duration::from_millis(200);

/// The sink for this run: a bar on stderr when it is a terminal and the output is for a person
/// (not `quiet`, not `json`); `None` (nothing drawn) otherwise.
pub fn sink(quiet: bool, json: bool, color: bool, delay: Duration) -> Option<Sink> {
    let wanted = !quiet && !json && std::io::stderr().is_terminal();
    // cogmem's colour rule (`--color`, NO_COLOR), not console's own guess, colours the bar.
    console::set_colors_enabled_stderr(color);
    wanted.then(|| Arc::new(Bar::new(color, delay)) as Sink)
}

/// A progress sink drawing one indicatif bar at a time on stderr.
pub struct Bar {
    color: bool,
    delay: Duration,
    running: Arc<Mutex<Option<Running>>>,
}

/// The phase on the screen (or about to be): its bar and whether it is shown yet.
struct Running {
    phase: Phase,
    bar: ProgressBar,
    shown: bool,
}

impl Bar {
    /// A sink whose bars are coloured when `color`, and appear after `delay`.
    pub fn new(color: bool, delay: Duration) -> Self {
        Self { color, delay, running: Arc::new(Mutex::new(None)) }
    }

    fn style(&self, known_total: bool) -> ProgressStyle {
        // The bar takes what the counts leave of the line: one line on any width, no wrapping.
        let bar = if self.color { "{wide_bar:.cyan/blue}" } else { "{wide_bar}" };
        let template = if known_total {
            format!("[{bar}] {{human_pos}}/{{human_len}} {{msg}} ({{rate}}, {{eta}} left)")
        } else {
            // One step of unknown size: what it does and for how long it has been at it.
            "{spinner} {msg} ({elapsed})".to_owned()
        };
        ProgressStyle::with_template(&template)
            .expect("the templates are valid")
            .progress_chars("=> ")
            .tick_chars("|/-\\ ")
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{:.0}/s", s.per_sec());
            })
    }
}

/// Locks the running phase, going on after a panic elsewhere: a bar is never worth a second one.
fn lock(running: &Mutex<Option<Running>>) -> MutexGuard<'_, Option<Running>> {
    running.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Running {
    /// Shows the bar on stderr, drawn at once (the next unit may be far off, or the last), and
    /// keeps it moving.
    fn show(&mut self) {
        if !self.shown {
            self.shown = true;
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.bar.force_draw();
            self.bar.enable_steady_tick(TICK);
        }
    }
}

impl Progress for Bar {
    fn start(&self, phase: Phase, total: Option<u64>, unit: &str) {
        let mut running = lock(&self.running);
        if let Some(old) = running.take() {
            old.bar.finish_and_clear();
        }
        if total == Some(0) {
            return; // nothing to count: no bar
        }
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
        // The style is set while the target is stderr, so that stderr's colour setting applies;
        // the bar stays hidden until the phase has run for `delay`.
        bar.set_style(self.style(total.is_some()));
        bar.set_draw_target(ProgressDrawTarget::hidden());
        bar.set_message(unit.to_owned()); // hidden first: a new message draws the bar
        let mut now = Running { phase, bar, shown: false };
        if self.delay.is_zero() {
            now.show();
        } else {
            // A phase whose first unit alone takes long (a history walk) still shows its bar.
            let (delay, shared) = (self.delay, Arc::clone(&self.running));
            std::thread::spawn(move || {
                std::thread::sleep(delay);
                if let Some(r) = lock(&shared).as_mut().filter(|r| r.phase == phase) {
                    r.show();
                }
            });
        }
        *running = Some(now);
    }

    fn inc(&self, phase: Phase, n: u64) {
        if let Some(r) = lock(&self.running).as_ref().filter(|r| r.phase == phase) {
            r.bar.inc(n);
        }
    }

    fn finish(&self, phase: Phase) {
        let mut running = lock(&self.running);
        if running.as_ref().is_some_and(|r| r.phase == phase)
            && let Some(r) = running.take()
        {
            r.bar.finish_and_clear();
        }
    }
}
