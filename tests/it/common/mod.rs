//! The sealed test environment: a temp folder, a clean environment, a clock that ticks one
//! second per command, and helpers that check the invariants every mutating command must keep.

#![allow(dead_code, reason = "each test module uses a different part of the helpers")]

pub mod golden;
pub mod web;
pub mod webdriver;

use std::cell::Cell;
use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The first time a test environment's clock shows.
pub const START: i64 = 1_796_115_600; // 2026-12-01T09:00:00Z

pub struct TestEnv {
    _dir: tempfile::TempDir,
    /// The temp folder (also HOME).
    pub home: PathBuf,
    /// The workspace root.
    pub root: PathBuf,
    now: Cell<i64>,
    extra_env: Vec<(String, String)>,
}

/// The result of one command, with output normalised.
#[derive(Debug)]
pub struct Output {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Output {
    #[track_caller]
    pub fn success(self) -> Self {
        assert_eq!(self.code, 0, "command failed:\n{self}");
        self
    }

    #[track_caller]
    pub fn code(self, want: i32) -> Self {
        assert_eq!(self.code, want, "unexpected exit code:\n{self}");
        self
    }
}

impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {}\n--- stdout ---\n{}--- stderr ---\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

impl TestEnv {
    /// An empty temp folder; the workspace will be `<tmp>/ws`.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().canonicalize().expect("canonical temp dir");
        let root = home.join("ws");
        Self { _dir: dir, home, root, now: Cell::new(START), extra_env: Vec::new() }
    }

    /// A temp folder with a freshly initialised workspace.
    pub fn initialized() -> Self {
        let env = Self::new();
        env.run(["init", "ws"]).current_dir_home().success();
        env
    }

    /// Sets an extra environment variable for later commands.
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.extra_env.push((key.into(), value.into()));
    }

    /// Returns the time the next command will see, as RFC 3339.
    pub fn peek_now(&self) -> String {
        chrono::DateTime::from_timestamp(self.now.get(), 0)
            .unwrap()
            .format("%Y-%m-%dT%H:%M:%SZ")
            .to_string()
    }

    /// Moves the clock to a later time (RFC 3339); it keeps ticking a second per command.
    pub fn set_now(&self, rfc3339: &str) {
        let t = chrono::DateTime::parse_from_rfc3339(rfc3339).unwrap().timestamp();
        assert!(t >= self.now.get(), "the clock only moves forward");
        self.now.set(t);
    }

    fn tick(&self) -> String {
        let t = self.peek_now();
        self.now.set(self.now.get() + 1);
        t
    }

    /// Builds a command for the real binary, run in the workspace folder.
    pub fn cmd<I, S>(&self, args: I) -> Cmd<'_>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let dir = if self.root.is_dir() { self.root.clone() } else { self.home.clone() };
        let mut c = sealed_command(&self.home, &dir, &self.tick());
        c.args(args);
        for (k, v) in &self.extra_env {
            c.env(k, v);
        }
        Cmd { env: self, cmd: c, stdin: None }
    }

    /// Runs the binary in the workspace (or the temp folder before init).
    #[must_use = "check the output"]
    pub fn run<I, S>(&self, args: I) -> Cmd<'_>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.cmd(args)
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Waits until no process works on the search index in the background (the update a
    /// write hands over, a merge): before a test deletes `.cogmem/` from under them.
    pub fn wait_for_index(&self) {
        for lock in [".cogmem/index.lock", ".cogmem/index-merge.lock"] {
            if let Ok(f) = std::fs::File::open(self.path(lock)) {
                let _ = f.lock();
            }
        }
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.path(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// Appends `text` to the file at `rel`, in place: same inode, so its folder's stamp stays.
    pub fn append(&self, rel: &str, text: &str) {
        std::fs::OpenOptions::new()
            .append(true)
            .open(self.path(rel))
            .and_then(|mut f| std::io::Write::write_all(&mut f, text.as_bytes()))
            .unwrap();
    }

    /// A git command in the workspace, sealed from the machine's settings, as a person with a
    /// fixed name and address.
    pub fn git_command(&self, args: &[&str]) -> Command {
        let mut c = Command::new("git");
        c.args(args)
            .current_dir(&self.root)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("HOME", &self.home)
            .env("GIT_AUTHOR_NAME", "tester")
            .env("GIT_AUTHOR_EMAIL", "tester@example.com")
            .env("GIT_COMMITTER_NAME", "tester")
            .env("GIT_COMMITTER_EMAIL", "tester@example.com");
        c
    }

    /// Runs git in the workspace and returns stdout.
    pub fn git(&self, args: &[&str]) -> String {
        let out = self.git_command(args).output().expect("git runs");
        assert!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    /// How many packs `.git/objects/pack` holds.
    pub fn packs(&self) -> usize {
        std::fs::read_dir(self.path(".git/objects/pack")).map_or(0, |d| {
            d.filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "pack"))
                .count()
        })
    }

    /// Commits everything by hand, as a person would.
    pub fn git_commit_all(&self, msg: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "-m", msg]);
    }

    pub fn commit_count(&self) -> usize {
        self.git(&["rev-list", "--count", "HEAD"]).trim().parse().unwrap()
    }

    pub fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"]).trim().to_owned()
    }

    /// `git status --porcelain` output (empty when clean).
    pub fn git_status(&self) -> String {
        self.git(&["status", "--porcelain", "--untracked-files=all"])
    }

    #[track_caller]
    pub fn assert_clean_tree(&self) {
        let s = self.git_status();
        assert!(s.is_empty(), "working tree is not clean:\n{s}");
    }

    /// Imports `n` messages by Ann (`note number I about topicI`, source `mI`, one a minute
    /// from 2026-11-01 10:00), enough past 1,000 to split the decay entries into shards.
    pub fn import_messages(&self, n: usize) {
        let mut transcript = String::new();
        for i in 0..n {
            let ts = format!("2026-11-{:02}T10:{:02}:00Z", 1 + i / 60, i % 60);
            let text = format!("note number {i} about topic{i}");
            transcript.push_str(&jsonl_message(&ts, "Ann", &text, &format!("m{i}")));
        }
        self.write("../talk.jsonl", &transcript);
        self.run(["import", "../talk.jsonl"]).success();
    }

    /// The one decay id in `decay-scores.json` that starts with `prefix` (a core bullet's
    /// `core:SECTION:`, whose hash a test does not spell out).
    #[track_caller]
    pub fn decay_key(&self, prefix: &str) -> String {
        let d: serde_json::Value =
            serde_json::from_str(&self.read("memory/meta/decay-scores.json")).unwrap();
        let keys: Vec<String> = d["entries"]
            .as_object()
            .unwrap()
            .keys()
            .filter(|k| k.starts_with(prefix))
            .cloned()
            .collect();
        assert_eq!(keys.len(), 1, "one decay id starting {prefix}: {keys:?}");
        keys[0].clone()
    }

    /// The id of the bullet of `## Facts` or `## Relations` of `entity`'s card whose line holds
    /// `needle`: `entity:ENTITY:SECTION:` and the git blob hash of its text (the hash a test's
    /// output shows as `[HASH]`).
    #[track_caller]
    pub fn bullet_id(&self, entity: &str, needle: &str) -> String {
        let card = self.read(&format!("memory/graph/entities/{entity}.md"));
        let mut section = "";
        for line in card.lines() {
            if let Some(h) = line.strip_prefix("## ") {
                section = h.trim();
            }
            let Some(text) = line.trim_start().strip_prefix("- ") else { continue };
            let slug = match section {
                "Facts" => "facts",
                "Relations" => "relations",
                _ => continue,
            };
            if text.contains(needle) {
                let one: Vec<&str> = text.split_whitespace().collect();
                let hash = git2::Oid::hash_object(git2::ObjectType::Blob, one.join(" ").as_bytes())
                    .unwrap();
                return format!("entity:{entity}:{slug}:{}", &hash.to_string()[..8]);
            }
        }
        panic!("no bullet of {entity} holds {needle:?}:\n{card}")
    }

    /// Audit lines (not headers) in the whole log: its sealed segments, then audit.log.
    pub fn audit_lines(&self) -> Vec<String> {
        let mut files: Vec<String> = std::fs::read_dir(self.path("memory/meta/audit"))
            .map(|d| {
                d.map(|e| format!("memory/meta/audit/{}", e.unwrap().file_name().to_string_lossy()))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        files.push("memory/meta/audit.log".to_owned());
        files
            .iter()
            .flat_map(|f| {
                self.read(f)
                    .lines()
                    .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
                    .map(str::to_owned)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// A fingerprint of every file outside `.git` and `.cogmem`: paths and contents.
    pub fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for e in walkdir::WalkDir::new(&self.root).sort_by_file_name() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(&self.root).unwrap().to_string_lossy().into_owned();
            if rel.starts_with(".git")
                && !rel.starts_with(".gitignore")
                && !rel.starts_with(".gitattributes")
                || rel.starts_with(".cogmem")
            {
                continue;
            }
            if e.file_type().is_file() {
                out.push((rel, std::fs::read(e.path()).unwrap()));
            }
        }
        out
    }

    /// Runs a mutating command and checks the invariants: exit 0, exactly one new commit, one
    /// audit line per changed file (plus an ALERT per critical file), a clean tree.
    #[track_caller]
    pub fn mutate<I, S>(&self, args: I) -> Output
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let before = self.commit_count();
        let lines_before = self.audit_lines().len();
        let out = self.run(args).output().success();
        self.assert_one_change(before, lines_before, &out);
        out
    }

    /// Runs a library call that must change the workspace, and checks the same invariants as
    /// [`TestEnv::mutate`]: exactly one new commit, one audit line per changed file, a clean
    /// tree. Returns what the call returned.
    #[track_caller]
    pub fn changes<T: std::fmt::Debug>(&self, f: impl FnOnce() -> T) -> T {
        let before = self.commit_count();
        let lines_before = self.audit_lines().len();
        let result = f();
        self.assert_one_change(before, lines_before, &format!("{result:#?}"));
        result
    }

    /// Checks that exactly one commit was made since `before` commits and `lines_before` audit
    /// lines, with one audit line per changed file (plus ALERT and DECAY lines), and a clean
    /// tree; `what` describes the command for the failure message.
    #[track_caller]
    pub fn assert_one_change(
        &self,
        before: usize,
        lines_before: usize,
        what: &dyn std::fmt::Display,
    ) {
        let out = what;
        assert_eq!(self.commit_count(), before + 1, "exactly one new commit:\n{out}");
        let changed: Vec<String> = self
            // `-z`: a path outside ASCII comes as it is, not quoted with octal escapes.
            .git(&["diff-tree", "-z", "--no-commit-id", "--name-only", "-r", "HEAD"])
            .split('\0')
            .filter(|l| !l.is_empty() && *l != "memory/meta/audit.log")
            .map(str::to_owned)
            .collect();
        let new_lines: Vec<String> = self.audit_lines()[lines_before..].to_vec();
        let non_alert: Vec<&String> = new_lines
            .iter()
            .filter(|l| !l.contains(" | ALERT | ") && !l.contains(" | DECAY | "))
            .collect();
        assert_eq!(
            non_alert.len(),
            changed.len(),
            "one audit line per changed file: {new_lines:#?} vs {changed:#?}"
        );
        for file in &changed {
            assert!(
                non_alert.iter().any(|l| l.split(" | ").nth(2) == Some(file)),
                "no audit line for {file}"
            );
        }
        self.assert_clean_tree();
    }
}

/// One line of a JSONL transcript for `import --format jsonl`: a message's time, speaker,
/// text and id (escaped as JSON), ended by a newline.
pub fn jsonl_message(ts: &str, speaker: &str, text: &str, id: &str) -> String {
    let line = serde_json::json!({"timestamp": ts, "speaker": speaker, "text": text, "id": id});
    format!("{line}\n")
}

/// A command for the real binary in `dir`, sealed from the machine's settings (no git
/// configuration, no colour, HOME in the test's folder) with the clock at `now`. `TestEnv::cmd`
/// uses it; tests that run commands from several threads at once call it directly, since a
/// `TestEnv`'s clock is not shared between threads.
pub fn sealed_command(home: &Path, dir: &Path, now: &str) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_cogmem"));
    c.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("NO_COLOR", "1")
        .env("COGMEM_ACTOR", "test-agent")
        .env("COGMEM_NOW", now)
        // A hook starts no read server unless a test asks for one: it would serve the later
        // reads of the test, and what they look at would depend on when it is ready.
        .env("COGMEM_HOOK_SERVE_MINUTES", "0")
        .current_dir(dir);
    c
}

/// Reads a long-lived child's stdout and stderr line by line on two threads, as `stdout: …` and
/// `stderr: …` lines on the channel returned.
pub fn lines_of(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead as _;
    let (tx, lines) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().expect("stderr piped");
    let tx_err = tx.clone();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = tx_err.send(format!("stderr: {line}"));
        }
    });
    let stdout = child.stdout.take().expect("stdout piped");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(format!("stdout: {line}"));
        }
    });
    lines
}

/// `script -qec LINE /dev/null` (util-linux) in the workspace: the shell command line `LINE` run
/// with a pseudo-terminal as its stdin, stdout and stderr, and the sealed environment of every
/// test command (the clock at the next tick is not taken). What the terminal showed is
/// `script`'s own stdout.
pub fn on_terminal(env: &TestEnv, line: &str) -> Command {
    let sealed = sealed_command(&env.home, &env.root, &env.peek_now());
    let mut c = Command::new("script");
    c.args(["-qec", line, "/dev/null"])
        .env_clear()
        .envs(sealed.get_envs().filter_map(|(k, v)| v.map(|v| (k.to_owned(), v.to_owned()))))
        .current_dir(&env.root);
    c
}

pub struct Cmd<'a> {
    env: &'a TestEnv,
    cmd: Command,
    stdin: Option<Vec<u8>>,
}

impl Cmd<'_> {
    pub fn current_dir_home(mut self) -> Self {
        self.cmd.current_dir(&self.env.home);
        self
    }

    pub fn current_dir(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }

    pub fn env(mut self, k: &str, v: impl AsRef<OsStr>) -> Self {
        self.cmd.env(k, v);
        self
    }

    pub fn env_remove(mut self, k: &str) -> Self {
        self.cmd.env_remove(k);
        self
    }

    /// Returns the prepared command, for a test that runs it as a long-lived child.
    pub fn into_command(self) -> Command {
        self.cmd
    }

    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    #[must_use = "check the output"]
    pub fn output(mut self) -> Output {
        self.cmd.stdin(if self.stdin.is_some() { Stdio::piped() } else { Stdio::null() });
        self.cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = self.cmd.spawn().expect("cogmem binary runs");
        if let Some(bytes) = self.stdin.take() {
            let mut stdin = child.stdin.take().unwrap();
            // The command may stop reading early (over-long input); that is not a test failure.
            let _ = stdin.write_all(&bytes);
        }
        let out = child.wait_with_output().unwrap();
        let norm = |b: &[u8]| normalize(&String::from_utf8_lossy(b), &self.env.home);
        Output {
            code: out.status.code().unwrap_or(-1),
            stdout: norm(&out.stdout),
            stderr: norm(&out.stderr),
        }
    }

    #[track_caller]
    pub fn success(self) -> Output {
        self.output().success()
    }
}

/// Replaces the temp folder with `[TMP]` and commit ids with `[HASH]`.
pub fn normalize(text: &str, home: &Path) -> String {
    let text = text.replace(&home.display().to_string(), "[TMP]");
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    let flush = |run: &mut String, out: &mut String| {
        // An 8-digit id can be all digits: after "commit ", or opening one of `status`'s
        // indented "recent commits" lines, it is still an id.
        if run.len() == 40
            || run.len() == 8
                && (run.chars().any(|c| c.is_ascii_alphabetic())
                    && run.chars().any(|c| c.is_ascii_digit())
                    || out.ends_with("commit ")
                    || out.ends_with("\n  "))
        {
            out.push_str("[HASH]");
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in text.chars() {
        if c.is_ascii_hexdigit() && !c.is_ascii_uppercase() {
            run.push(c);
        } else {
            if !run.is_empty() && c.is_alphanumeric() {
                out.push_str(&run);
                run.clear();
                out.push(c);
                continue;
            }
            flush(&mut run, &mut out);
            out.push(c);
        }
    }
    flush(&mut run, &mut out);
    out
}

/// A clock fixed at an RFC 3339 time, for library tests.
pub fn clock(rfc3339: &str) -> cogmem::FixedClock {
    cogmem::FixedClock::parse(rfc3339).expect("an RFC 3339 time")
}

/// Polls `cond` until it holds or `timeout` passes; returns whether it held. Tests wait for
/// something another process does this way, never with a fixed sleep (style.md, Testing 6).
pub fn wait_until(timeout: std::time::Duration, mut cond: impl FnMut() -> bool) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if cond() {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

impl TestEnv {
    /// Lays out the workspace through the library (`ops::init`, no binary) at `START`, and
    /// opens it.
    pub fn lib_init(&self) -> cogmem::Workspace {
        let report = cogmem::ops::init::init(&self.root, &clock("2026-12-01T09:00:00Z"))
            .expect("init succeeds");
        assert!(report.commit.is_some(), "{report:#?}");
        cogmem::Workspace::open(&self.root).expect("the new workspace opens")
    }
}
