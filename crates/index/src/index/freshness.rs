//! Search freshness served by `cogmem watch`, so a read need not stat every memory file
//! (like git's fsmonitor with a cookie file).
//!
//! While `cogmem watch` runs it holds an exclusive lock on `.cogmem/watch/lock`, names itself
//! in `.cogmem/watch/state` (a generation: pid, start time and boot), and appends to
//! `.cogmem/watch/changed`, as each file-system event arrives, one line per memory file or decay
//! file touched (its path), `~` when another file of the working tree was touched (what `status` walks: not
//! `.git/` nor `.cogmem/`; one `~` for a run of them), `*` when anything may have changed (a
//! lost event, a folder created, moved or removed), and `cookie NAME` when a file `NAME`
//! appears in `.cogmem/watch/cookies/`.
//!
//! A read that wants to trust the watcher creates a cookie and waits for its line: the watcher
//! gets one inotify instance's events in the order they happened, so every edit finished
//! before the cookie was created is in `changed` before the cookie's line. The manifest
//! records (`#watch GENERATION OFFSET`) up to where in `changed` it is known complete; the read
//! then stats only the paths listed after that offset. No watcher, another generation, a
//! cookie not answered in time, or anything unexpected: the read scans every file, as it
//! would without a watcher. See docs/decisions.md for the whole argument.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use cogmem_store::store::fsx::{self, IoError};
use cogmem_store::workspace::{LockSide, Workspace, wait_for_lock};

/// Held (exclusively) by the running watcher.
pub(crate) const LOCK: &str = ".cogmem/watch/lock";
/// The running watcher's generation.
pub(crate) const STATE: &str = ".cogmem/watch/state";
/// What changed, one line per event, append-only.
pub(crate) const CHANGED: &str = ".cogmem/watch/changed";
/// Where readers create their cookies.
pub(crate) const COOKIES: &str = ".cogmem/watch/cookies";
/// Written when a read server could not serve this workspace (its mtime says when), so the
/// hooks do not start another on every prompt ([`crate::index::freshness`] users).
pub const UNSERVABLE: &str = ".cogmem/watch/unservable";

/// One line of `changed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line<'a> {
    /// A memory file or a decay file (relative to the root) that an event touched.
    Path(&'a str),
    /// Another file of the working tree was touched (`status` cares, searches do not).
    Other,
    /// Anything may have changed.
    All,
    /// A reader's cookie was seen.
    Cookie(&'a str),
}

impl Line<'_> {
    /// The line as written to `changed`, newline included.
    pub(crate) fn to_text(&self) -> String {
        match self {
            Line::Path(p) => format!("{p}\n"),
            Line::Other => "~\n".to_owned(),
            Line::All => "*\n".to_owned(),
            Line::Cookie(name) => format!("cookie {name}\n"),
        }
    }
}

/// Parses one line (without its newline). A line that is none of the three (empty, or a path
/// that cannot be a memory file) is `None`: the reader then trusts nothing.
pub(crate) fn parse_line(line: &str) -> Option<Line<'_>> {
    if line == "*" {
        return Some(Line::All);
    }
    if line == "~" {
        return Some(Line::Other);
    }
    if let Some(name) = line.strip_prefix("cookie ") {
        return (!name.is_empty()).then_some(Line::Cookie(name));
    }
    is_named(line).then_some(Line::Path(line))
}

/// Whether the watcher names a path (relative to the root) in `changed` rather than writing a
/// `~`: a memory file or a decay file.
pub fn is_named(rel: &str) -> bool {
    super::is_memory_file(rel) || cogmem_store::workspace::layout::is_decay_file(rel)
}

/// The complete lines (those ended by a newline) at the start of `bytes`, and how many bytes
/// they take. A last line without its newline is being appended: it is left for later.
pub(crate) fn complete_lines(bytes: &[u8]) -> (Vec<&str>, usize) {
    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    match std::str::from_utf8(&bytes[..end]) {
        Ok(t) => (t.lines().collect(), end),
        // Not UTF-8, so not a line the watcher wrote: a line nobody understands (a doubt).
        Err(_) => (vec![""], end),
    }
}

/// What a reader learnt from the watcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Since {
    /// Only these memory files (maybe) changed since the offset.
    Paths {
        /// The files, sorted, each once.
        paths: Vec<String>,
        /// Whether other files of the working tree (maybe) changed too.
        others: bool,
        /// The offset in `changed` the lines were read up to.
        end: u64,
    },
    /// Anything may have changed: scan every file.
    Everything {
        /// The offset in `changed` the lines were read up to.
        end: u64,
    },
    /// The watcher cannot be trusted now (no answer in time, another generation, …).
    Doubt,
}

/// What the lines read from `changed` say, given that the reader's cookie is among them.
pub(crate) fn summarize(lines: &[&str], end: u64) -> Since {
    let mut paths: Vec<String> = Vec::new();
    let mut others = false;
    for line in lines {
        match parse_line(line) {
            Some(Line::Path(p)) => paths.push(p.to_owned()),
            Some(Line::Other) => others = true,
            Some(Line::Cookie(_)) => {}
            Some(Line::All) | None => return Since::Everything { end },
        }
    }
    paths.sort();
    paths.dedup();
    Since::Paths { paths, others, end }
}

/// How a generation starts when its watcher writes decay files' paths in `changed` (watchers
/// before it wrote a `~` for them).
const DECAY_NAMED: &str = "2.";

/// Whether the watcher of `generation` names the decay files it sees change (else a `~` may
/// stand for one).
pub(crate) fn names_decay_files(generation: &str) -> bool {
    generation.starts_with(DECAY_NAMED)
}

/// The generation of the watcher serving this workspace, if one holds the watch lock and has
/// said it serves (its state file). The lock file is not created when missing: a read stays
/// read-only.
pub(crate) fn live_generation(ws: &Workspace, boot: Option<&str>) -> Option<String> {
    let file = OpenOptions::new().read(true).open(ws.abs(LOCK)).ok()?;
    match file.try_lock() {
        // Nobody holds it: no watcher (the lock is freed as `file` is dropped).
        Ok(()) => return None,
        Err(TryLockError::WouldBlock) => {}
        Err(TryLockError::Error(_)) => return None,
    }
    let generation = read_state(ws)?;
    // Never across boots: a generation names the boot it was made in.
    match boot {
        Some(b) if !generation.ends_with(&format!("-{b}")) => None,
        _ => Some(generation),
    }
}

/// Whether a running `cogmem watch` serves freshness to this workspace's reads now.
pub fn serving(ws: &Workspace) -> bool {
    live_generation(ws, super::dir::boot_id().as_deref()).is_some()
}

fn read_state(ws: &Workspace) -> Option<String> {
    let text = ws.read_text_if_exists(STATE).ok()??;
    let g = text.trim();
    (!g.is_empty() && !g.contains(char::is_whitespace)).then(|| g.to_owned())
}

/// The length of `changed` now: what a full scan that starts after this call is complete up to.
pub(crate) fn changed_len(ws: &Workspace) -> Option<u64> {
    std::fs::metadata(ws.abs(CHANGED)).ok().map(|m| m.len())
}

/// The cookie round trip: creates a cookie, waits until the watcher of `generation` has
/// written its line to `changed`, and returns what `changed` says from `offset` on.
pub(crate) fn changes_since(ws: &Workspace, generation: &str, offset: u64) -> Since {
    let Ok(mut file) = File::open(ws.abs(CHANGED)) else { return Since::Doubt };
    if file.metadata().map_or(true, |m| m.len() < offset)
        || file.seek(SeekFrom::Start(offset)).is_err()
    {
        return Since::Doubt;
    }
    // A name no other reader uses: the process, the time, and a try number; creating the file
    // is what proves it unique (another thread of this process may have taken the same time).
    let mut made = None;
    for attempt in 0..8 {
        let name = format!(
            "{}-{}-{attempt}",
            std::process::id(),
            SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos()),
        );
        let cookie = ws.abs(COOKIES).join(&name);
        if fsx::check_no_link(&cookie, "create").is_err() {
            break; // a linked state folder is written through by nobody: scan instead
        }
        // Not `create_dir_all`: a cookie folder that is missing is not watched.
        match OpenOptions::new().write(true).create_new(true).open(&cookie) {
            Ok(_) => {
                made = Some((name, cookie));
                break;
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(_) => break,
        }
    }
    let Some((name, cookie)) = made else { return Since::Doubt };
    let want = Line::Cookie(&name).to_text();
    let want = want.trim_end();
    // How long to wait is the program's choice (`WorkspaceOptions::watch_wait`, 50 ms unless
    // set); after it, the read scans every file instead.
    let wait = ws.options().watch_wait;
    let started = Instant::now();
    let mut buf: Vec<u8> = Vec::new();
    let mut checked = 0; // bytes of `buf` already searched for the cookie
    let found = loop {
        if file.read_to_end(&mut buf).is_err() {
            break false;
        }
        let (lines, end) = complete_lines(&buf[checked..]);
        if lines.contains(&want) {
            break true;
        }
        checked += end;
        if started.elapsed() >= wait {
            break false;
        }
        std::thread::sleep(Duration::from_micros(50));
    };
    let _ = fsx::remove_file(&cookie);
    // The cookie was answered by the watcher that wrote the state: still the one recorded.
    if !found || read_state(ws).as_deref() != Some(generation) {
        return Since::Doubt;
    }
    let (lines, end) = complete_lines(&buf);
    summarize(&lines, offset + end as u64)
}

/// Where a watcher is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The watch is being set up: cookies are not answered.
    Starting,
    /// Cookies are answered.
    Serving,
    /// The watch may have gone stale and is being set up again: each cookie is answered after a
    /// `*`, so the reader scans every file.
    Paused,
    /// A line could not be written, or the watch stopped: cookies are never answered again.
    Broken,
}

/// The watcher's side: the lock, the generation, and `changed` open for appending.
#[derive(Debug)]
pub struct Server {
    root: PathBuf,
    generation: String,
    changed: File,
    phase: Phase,
    /// Whether the last line written was a `~` (a run of them says no more than one).
    other_last: bool,
    /// When a reader's cookie last came (or the watch began): how long reads have not asked.
    last_read: Instant,
    _lock: File,
}

impl Server {
    /// Takes the watch lock (waiting a little: a reader may be probing it) and starts a new
    /// `changed` file; `None` when another watcher holds the lock. Nothing is served until
    /// [`Server::begin`].
    pub fn start(ws: &Workspace) -> crate::Result<Option<Self>> {
        let lock_path = ws.abs(LOCK);
        let lock = fsx::open_lock_file(&lock_path)?;
        let taken = wait_for_lock(&lock, LockSide::Write, Duration::from_secs(2))
            .map_err(|e| IoError::new(&lock_path, "lock", e))?;
        if !taken {
            return Ok(None);
        }
        // The last watcher's state goes first, so no reader takes the new `changed` for its.
        fsx::remove_file(&ws.abs(STATE))?;
        let changed_path = ws.abs(CHANGED);
        // Not through a link (a file outside would be emptied), as every append.
        let changed = fsx::open_append(&changed_path)?;
        changed.set_len(0).map_err(|e| IoError::new(&changed_path, "empty", e))?;
        let cookies = ws.abs(COOKIES);
        // Its files are removed below: never those of a folder it links to.
        fsx::check_no_link(&cookies, "clear")?;
        fsx::create_dir_all(&cookies)?;
        if let Ok(listing) = std::fs::read_dir(&cookies) {
            for e in listing.flatten() {
                let _ = fsx::remove_file(&e.path());
            }
        }
        let boot = super::dir::boot_id().unwrap_or_else(|| "-".to_owned());
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos());
        let generation = format!("{DECAY_NAMED}{}-{nanos}-{boot}", std::process::id());
        Ok(Some(Self {
            root: ws.root().to_owned(),
            generation,
            changed,
            phase: Phase::Starting,
            other_last: false,
            last_read: Instant::now(),
            _lock: lock,
        }))
    }

    /// The watch is set up: says so in the state file, and answers cookies from now on. Not
    /// when a folder holding memory files is a symbolic link: events in it may be reported
    /// under another path, so the watcher serves nothing (reads stat every file).
    pub fn begin(&mut self) -> crate::Result<()> {
        if self.phase != Phase::Starting {
            return Ok(());
        }
        if linked_folders(&self.root) {
            self.stop();
            return Ok(());
        }
        let state = format!("{}\n", self.generation);
        fsx::write_derived(&self.root.join(STATE), state.as_bytes(), true)?;
        self.phase = Phase::Serving;
        Ok(())
    }

    /// The watch may have gone stale (a folder holding memory files was created, moved or
    /// removed): until [`Server::resume`], each cookie comes after a `*`.
    pub fn pause(&mut self) {
        self.write(&Line::All);
        if self.phase == Phase::Serving {
            self.phase = Phase::Paused;
        }
    }

    /// The watch is set up anew: after a `*` (what the old watch missed is covered by it),
    /// cookies are answered plainly again.
    pub fn resume(&mut self) {
        self.write(&Line::All);
        if linked_folders(&self.root) {
            self.stop();
        } else if self.phase == Phase::Paused {
            self.phase = Phase::Serving;
        }
    }

    /// Records the lines for one event (cookies only when serving).
    pub fn record(&mut self, lines: &[Line<'_>]) {
        for line in lines {
            if matches!(line, Line::Cookie(_)) {
                self.last_read = Instant::now();
            }
            match (line, self.phase) {
                (Line::Cookie(_), Phase::Starting | Phase::Broken) => {}
                (Line::Cookie(_), Phase::Paused) => {
                    self.write(&Line::All);
                    self.write(line);
                }
                _ => self.write(line),
            }
        }
    }

    fn write(&mut self, line: &Line<'_>) {
        if self.phase == Phase::Broken || (self.other_last && *line == Line::Other) {
            return;
        }
        self.other_last = *line == Line::Other;
        // One write per line, without waiting for the disk: the watch is never trusted across
        // a restart of the system. A line that cannot be written ends the service for good.
        if self.changed.write_all(line.to_text().as_bytes()).is_err() {
            self.stop();
        }
    }

    /// Whether it stopped serving for good ([`Server::stop`]): a store folder is a link, or a
    /// line could not be written.
    pub fn is_stopped(&self) -> bool {
        self.phase == Phase::Broken
    }

    /// How long since a read last asked (its cookie came), or since the watch began.
    pub fn unasked_for(&self) -> Duration {
        self.last_read.elapsed()
    }

    /// Stops serving for good: the state file goes (the lock is freed as the server is
    /// dropped).
    pub fn stop(&mut self) {
        self.phase = Phase::Broken;
        let _ = fsx::remove_file(&self.root.join(STATE));
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Whether a store folder, or a folder above one, is a symbolic link.
fn linked_folders(root: &std::path::Path) -> bool {
    cogmem_store::store::units::DIRS.iter().any(|(d, _, _)| {
        std::path::Path::new(d)
            .ancestors()
            .filter(|a| !a.as_os_str().is_empty())
            .any(|a| std::fs::symlink_metadata(root.join(a)).is_ok_and(|m| m.is_symlink()))
    })
}

/// Whether `rel` is a store folder or a folder above one (`memory`, `memory/graph`): an event
/// on it may move, create or remove memory files without an event for each.
pub fn is_store_folder_or_above(rel: &str) -> bool {
    cogmem_store::store::units::DIRS
        .iter()
        .any(|(d, _, _)| *d == rel || d.strip_prefix(rel).is_some_and(|r| r.starts_with('/')))
}

/// The cookie named by a path relative to the root, if it is one.
pub fn cookie_name(rel: &str) -> Option<&str> {
    let name = rel.strip_prefix(COOKIES)?.strip_prefix('/')?;
    (!name.is_empty() && !name.contains(['/', '\n', '\r'])).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_parse() {
        assert_eq!(parse_line("*"), Some(Line::All));
        assert_eq!(parse_line("cookie 12-34-0"), Some(Line::Cookie("12-34-0")));
        assert_eq!(parse_line("MEMORY.md"), Some(Line::Path("MEMORY.md")));
        assert_eq!(
            parse_line("memory/vault/garden.md"),
            Some(Line::Path("memory/vault/garden.md"))
        );
        assert_eq!(parse_line("memory/vault/sub/garden.md"), None);
        assert_eq!(parse_line(""), None);
        assert_eq!(parse_line("cookie "), None);
        assert_eq!(parse_line("~"), Some(Line::Other));
        for line in [Line::All, Line::Other, Line::Cookie("x"), Line::Path("memory/episodes/a.md")]
        {
            let text = line.to_text();
            assert_eq!(parse_line(text.strip_suffix('\n').unwrap()), Some(line));
        }
    }

    #[test]
    fn only_complete_lines_are_read() {
        let (lines, end) = complete_lines(b"MEMORY.md\ncookie a\nmemory/vau");
        assert_eq!(lines, ["MEMORY.md", "cookie a"]);
        assert_eq!(end, 19);
        assert_eq!(complete_lines(b"memory/vau"), (vec![], 0));
        assert_eq!(complete_lines(b""), (vec![], 0));
    }

    #[test]
    fn a_star_or_a_strange_line_means_everything() {
        let paths = |v: &[&str]| summarize(v, 7);
        assert_eq!(
            paths(&["memory/vault/b.md", "cookie x", "memory/vault/a.md", "memory/vault/b.md"]),
            Since::Paths {
                paths: vec!["memory/vault/a.md".into(), "memory/vault/b.md".into()],
                others: false,
                end: 7
            }
        );
        assert_eq!(paths(&["memory/vault/a.md", "*", "cookie x"]), Since::Everything { end: 7 });
        assert_eq!(paths(&["notes.txt"]), Since::Everything { end: 7 });
        assert_eq!(paths(&[]), Since::Paths { paths: vec![], others: false, end: 7 });
        assert_eq!(
            paths(&["~", "cookie x", "memory/vault/a.md"]),
            Since::Paths { paths: vec!["memory/vault/a.md".into()], others: true, end: 7 }
        );
        // A decay file is named like a memory file (issue 20); a file beside them is not one.
        assert_eq!(
            paths(&["memory/meta/decay/0ab.json", "memory/meta/decay-scores.json"]),
            Since::Paths {
                paths: vec![
                    "memory/meta/decay-scores.json".into(),
                    "memory/meta/decay/0ab.json".into()
                ],
                others: false,
                end: 7
            }
        );
        assert_eq!(paths(&["memory/meta/decay/0ab.json.tmp"]), Since::Everything { end: 7 });
    }

    #[test]
    fn store_folders_and_cookies_are_told() {
        for rel in ["memory", "memory/graph", "memory/graph/entities", "memory/vault"] {
            assert!(is_store_folder_or_above(rel), "{rel}");
        }
        for rel in ["", "mem", "memory/meta", "memory/vault/a.md", "memory/graphs"] {
            assert!(!is_store_folder_or_above(rel), "{rel}");
        }
        assert_eq!(cookie_name(".cogmem/watch/cookies/1-2-3"), Some("1-2-3"));
        assert_eq!(cookie_name(".cogmem/watch/cookies"), None);
        assert_eq!(cookie_name(".cogmem/watch/cookiesX/a"), None);
    }
}
