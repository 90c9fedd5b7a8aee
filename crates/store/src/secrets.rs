//! Credentials that must not become memories. [`scan`] finds text that looks like a private key,
//! a cloud or forge token, a `password=` pair or environment assignment, a password or PIN said
//! in prose, credentials in a URL, or a high-entropy string next to a key word. Every operation
//! that writes passes every field it writes through [`check_fields`] (refused with exit 4 unless
//! the caller passes `--allow-secret`) or [`check_note`] (reasons: no way out); names derived
//! from an allowed text come from its [`mask`]ed form; `verify` runs [`scan_workspace`].
//!
//! Findings never carry the secret itself: only the rule, the 1-based line and column, and a
//! redacted excerpt (a few leading characters and the length). Every rule is a regular
//! expression of the `regex` crate (linear time) or a single pass over the text, so scanning is
//! linear in the input, whatever it holds.

use std::borrow::Cow;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use crate::error::{AllowCommand, RuleError};
use crate::store::{fsx, markdown};
use crate::workspace::Workspace;

/// One place where the text looks like a credential.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SecretFinding {
    /// The rule that matched, e.g. `github-token`.
    pub rule: &'static str,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// A redacted excerpt: never the whole secret.
    pub excerpt: String,
}

/// A pattern rule: its name, its regex, and the capture group holding the secret (0: all).
struct Rule {
    name: &'static str,
    pattern: &'static str,
    /// Compiled the first time a text holds one of `needles`.
    re: std::sync::OnceLock<Regex>,
    /// Lower-case strings every match contains one of (compared with the lower-cased text):
    /// a text with none of them cannot match, and the rule is neither compiled nor run.
    needles: &'static [&'static str],
    group: usize,
    /// An extra test on the matched secret (e.g. needs a digit), given the word after it
    /// when the pattern captures one as group 2.
    check: Check,
}

/// A rule's test of the secret it matched and of the word after it, if captured.
type Check = fn(&str, Option<&str>) -> bool;

fn always(_: &str, _: Option<&str>) -> bool {
    true
}

/// A letter and a digit both occur: real keys have both, words do not.
fn mixed(s: &str, _: Option<&str>) -> bool {
    s.chars().any(|c| c.is_ascii_digit()) && s.chars().any(|c| c.is_ascii_alphabetic())
}

/// A value after `password:`: a digit, a symbol or mixed case, not a placeholder.
fn password_value(s: &str, _: Option<&str>) -> bool {
    let v = s.trim_matches(['"', '\'']);
    let placeholder = v.starts_with('<')
        || v.starts_with("${")
        || v.starts_with("{{")
        || v.strip_prefix('$').is_some_and(|name| {
            // A shell variable in capitals (`$DB_PASS`) names where the password is, not the
            // password; `$ecretVal` may be one.
            name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
                && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        || v.chars().all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || ["none", "null", "empty", "redacted", "changeme", "password", "secret"]
            .contains(&v.to_ascii_lowercase().as_str());
    if placeholder || v.chars().count() < 4 {
        return false;
    }
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let symbol = v.chars().any(|c| c.is_ascii_punctuation());
    let upper = v.chars().any(|c| c.is_uppercase());
    let lower = v.chars().any(|c| c.is_lowercase());
    digit || symbol || upper && lower
}

fn rule(
    name: &'static str,
    pattern: &'static str,
    needles: &'static [&'static str],
    group: usize,
    check: Check,
) -> Rule {
    Rule { name, pattern, re: std::sync::OnceLock::new(), needles, group, check }
}

impl Rule {
    fn re(&self) -> &Regex {
        // The patterns are constants of this file; a bad one fails the unit tests.
        self.re.get_or_init(|| Regex::new(self.pattern).expect("secret rule patterns are valid"))
    }
}

const PASSWORD_WORDS: &[&str] =
    &["password", "passwd", "passphrase", "pwd", "secret", "api", "access", "auth", "private"];

// Process-wide, read-only and the same for everyone: patterns compiled once, on first use.
static RULES: LazyLock<Vec<Rule>> = LazyLock::new(|| {
    vec![
        rule(
            "private-key",
            r"-----BEGIN (?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP |SSH2 ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----",
            &["-----begin"],
            0,
            always,
        ),
        rule(
            "aws-access-key-id",
            r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
            &["akia", "asia", "abia", "acca"],
            0,
            always,
        ),
        rule(
            "aws-secret-access-key",
            r#"(?i)\baws_?(?:secret_?access_?key|secret_?key|secret)\b["']?\s*[:=]\s*["']?([A-Za-z0-9/+=]{40})(?:[^A-Za-z0-9/+=]|$)"#,
            &["aws"],
            1,
            always,
        ),
        rule(
            "github-token",
            r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,255}\b",
            &["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
            0,
            always,
        ),
        rule("github-token", r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b", &["github_pat_"], 0, always),
        rule("gitlab-token", r"\bglpat-[A-Za-z0-9_\-]{20,}", &["glpat-"], 0, always),
        rule("slack-token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}", &["xox"], 0, mixed),
        rule("stripe-key", r"\b(?:sk|rk)_live_[A-Za-z0-9]{16,}\b", &["_live_"], 0, always),
        rule("google-api-key", r"\bAIza[0-9A-Za-z_\-]{35}", &["aiza"], 0, always),
        rule("anthropic-key", r"\bsk-ant-[A-Za-z0-9_\-]{20,}", &["sk-ant-"], 0, always),
        rule(
            "openai-key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
            &["sk-"],
            0,
            openai,
        ),
        rule(
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}",
            &["eyj"],
            0,
            always,
        ),
        rule(
            "url-credentials",
            r"\b[a-zA-Z][a-zA-Z0-9+.\-]{1,20}://[^\s/:@]{0,100}:([^\s/]{1,200})@[^\s/@]",
            &["://"],
            1,
            url_password,
        ),
        rule(
            "password-assignment",
            r#"(?i)(?:\b|_)(?:password|passwd|passphrase|pwd|secret|client_secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token|private[_-]?key)\b["']?[ \t]*=[ \t]*("[^"\r\n]{4,200}"|'[^'\r\n]{4,200}'|[^\s"',;]{4,200})"#,
            PASSWORD_WORDS,
            1,
            password_value,
        ),
        rule(
            "password-assignment",
            r#"(?i)(?:\b|_)(?:password|passwd|passphrase|pwd|client_secret|api[_-]?key|apikey|access[_-]?token|auth[_-]?token)\b["']?[ \t]*:[ \t]*("[^"\r\n]{4,200}"|'[^'\r\n]{4,200}'|[^\s"',;]{6,200})"#,
            PASSWORD_WORDS,
            1,
            password_value,
        ),
        rule(
            "password-phrase",
            r#"(?i)\b(?:password|passcode|passwd|passphrase)(?:[ \t]+(?:is|was)[ \t]*:?|[ \t]*[:=])[ \t]*("[^"\r\n]{1,200}"|'[^'\r\n]{1,200}'|“[^”\r\n]{1,200}”|[^\s"'“”]{1,200})(?:[ \t]+([A-Za-z]+))?"#,
            &["pass"],
            1,
            spoken_password,
        ),
        rule(
            "password-phrase",
            r#"(?i)\b(?:use|uses|used|using|set|chose|picked|with)[ \t]+("[^"\r\n]{1,200}"|'[^'\r\n]{1,200}'|[^\s"']{1,200})[ \t]+as[ \t]+(?:my|the|our|his|her|their|a)[ \t]+(?:[A-Za-z-]+[ \t]+)?(?:password|passcode|passphrase)\b(?:[ \t]+([A-Za-z]+))?"#,
            &["pass"],
            1,
            password_named_after,
        ),
        rule(
            "password-phrase",
            r"(?i)\b(?:pin|pin[ \t]+code|pin[ \t]+number)(?:[ \t]+(?:is|was))?[ \t]*[:=#]?[ \t]*(\d{4,12})\b",
            &["pin"],
            1,
            always,
        ),
        rule(
            "password-phrase",
            r#"(?:パスワード|暗証番号)[ \t]*(?:は|：|:|=)[ \t　]*([^\s　、。「」]{1,200})"#,
            &["パスワード", "暗証番号"],
            1,
            spoken_password,
        ),
        rule(
            "env-secret-assignment",
            r#"(?i)\b[a-z0-9_]*(?:password|passwd|pass|pwd|pw|secret|token)["']?[ \t]*=[ \t]*("[^"\r\n]{4,200}"|'[^'\r\n]{4,200}'|[^\s"',;]{4,200})"#,
            &["pass", "pwd", "pw", "secret", "token"],
            1,
            password_value,
        ),
        rule("huggingface-token", r"\bhf_[A-Za-z0-9]{30,64}\b", &["hf_"], 0, mixed),
        rule("npm-token", r"\bnpm_[A-Za-z0-9]{36}\b", &["npm_"], 0, mixed),
        rule("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", &["_v1_"], 0, always),
        rule("pypi-token", r"\bpypi-AgE[A-Za-z0-9_\-]{50,}", &["pypi-"], 0, always),
        rule(
            "command-line-password",
            r#"\b(?:mysql|mysqldump|mysqladmin|mysqlimport|mariadb|mariadb-dump)\b[^\r\n]{0,200}?[ \t]-p("[^"\r\n]{1,200}"|'[^'\r\n]{1,200}'|[^\s"']{1,200})"#,
            &["mysql", "mariadb"],
            1,
            password_value,
        ),
        rule(
            "command-line-password",
            r#"\bsshpass[ \t]+-p[ \t]*("[^"\r\n]{1,200}"|'[^'\r\n]{1,200}'|[^\s"']{1,200})"#,
            &["sshpass"],
            1,
            password_value,
        ),
        rule(
            "azure-account-key",
            r"(?i)\b(?:AccountKey|SharedAccessKey)[ \t]*=[ \t]*([A-Za-z0-9+/]{20,200}={0,2})",
            &["accountkey", "sharedaccesskey"],
            1,
            mixed,
        ),
        rule(
            "bearer-token",
            r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/\-]{20,}=*)",
            &["bearer"],
            1,
            bearer,
        ),
    ]
});

/// A password said in prose (`my password is X`, `パスワードは X`): any length, but it must
/// look like a value (a digit, a symbol or mixed case), not a word (`is required`) nor a
/// placeholder (`<yours>`) nor a length (`is 12 characters`). A plain lower-case word counts
/// when it ends the clause and does not describe the password ([`is_plain_password`]).
fn spoken_password(s: &str, next: Option<&str>) -> bool {
    if next.is_some_and(|w| UNIT_WORDS.contains(&w.to_ascii_lowercase().as_str())) {
        return false;
    }
    // Sentence punctuation after a bare value is not part of it; inside quotes it is.
    let bare = s.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '。', '、']);
    let v = bare.trim_matches(['"', '\'', '“', '”']);
    let placeholder = v.is_empty()
        || v.starts_with('<')
        || v.starts_with("${")
        || v.starts_with("{{")
        || v.strip_prefix('$').is_some_and(|name| {
            // A shell variable in capitals (`$DB_PASS`) names where the password is, not the
            // password; `$ecretVal` may be one.
            name.starts_with(|c: char| c.is_ascii_uppercase() || c == '_')
                && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
        || v.chars().all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || ["none", "null", "empty", "redacted", "changeme"]
            .contains(&v.to_ascii_lowercase().as_str());
    if placeholder || DESCRIBING_WORDS.contains(&v.to_ascii_lowercase().as_str()) {
        return false;
    }
    let digit = v.chars().any(|c| c.is_ascii_digit());
    let symbol = v.chars().any(|c| c.is_ascii_punctuation());
    let upper = v.chars().any(|c| c.is_uppercase());
    let lower = v.chars().any(|c| c.is_lowercase());
    if digit || symbol || upper && lower {
        return true;
    }
    let ends_clause = bare.len() < s.len()
        || next.is_none_or(|w| CLAUSE_WORDS.contains(&w.to_ascii_lowercase().as_str()));
    ends_clause && is_plain_password(v)
}

/// A value said after `X as my password` (`I use hunterhunter as my password`): as
/// [`spoken_password`], unless a noun follows (`as my password manager`).
fn password_named_after(s: &str, next: Option<&str>) -> bool {
    next.is_none_or(|w| CLAUSE_WORDS.contains(&w.to_ascii_lowercase().as_str()))
        && spoken_password(s, None)
}

/// A plain lower-case word of six or more letters that is not a stop word nor looks like an
/// adjective or participle (`required`, `expiring`, `unbreakable`): said after `password is`
/// and ending the clause, it is the password (`my password is hunterhunter`).
fn is_plain_password(v: &str) -> bool {
    let lower = v.to_lowercase();
    v.chars().count() >= 6
        && v.chars().all(char::is_alphabetic)
        && !cogmem_text::stopword::is_english(&lower, cogmem_text::stopword::Tier::Topic)
        && !DESCRIBING_SUFFIXES.iter().any(|x| lower.ends_with(x))
}

/// Words that say what a password is like, not what it is (`the password is correct`).
const DESCRIBING_WORDS: [&str; 24] = [
    "correct",
    "incorrect",
    "wrong",
    "invalid",
    "secure",
    "insecure",
    "strong",
    "weak",
    "simple",
    "complex",
    "different",
    "unknown",
    "missing",
    "blank",
    "temporary",
    "forgotten",
    "broken",
    "sensitive",
    "case-sensitive",
    "private",
    "personal",
    "secret",
    "somewhere",
    "there",
];

/// Endings of adjectives and participles (`changed`, `working`, `unbreakable`).
const DESCRIBING_SUFFIXES: [&str; 9] =
    ["ed", "ing", "ble", "ive", "ful", "less", "ous", "ly", "en"];

/// Words that may follow a password said in prose and end its clause (`… is hunterhunter
/// for the wifi`); any other word after a plain word makes it part of a sentence.
const CLAUSE_WORDS: [&str; 10] =
    ["for", "and", "but", "so", "now", "btw", "then", "ok", "okay", "too"];

/// Words after a value that make it a length or a count (`password is 12 characters`), not
/// a password; a rule captures the next word as group 2.
const UNIT_WORDS: [&str; 12] = [
    "characters",
    "character",
    "chars",
    "char",
    "digits",
    "digit",
    "letters",
    "long",
    "minimum",
    "maximum",
    "days",
    "months",
];

fn openai(s: &str, next: Option<&str>) -> bool {
    !s.starts_with("sk-ant-") && mixed(s, next)
}

fn url_password(s: &str, _: Option<&str>) -> bool {
    // `https://user:${TOKEN}@host`, `:****@` or `user:password@host` hold no credential.
    let placeholder_word = ["password", "pass", "passwd", "pwd", "secret", "token", "pw"]
        .contains(&s.to_ascii_lowercase().as_str());
    !(s.starts_with("${")
        || s.starts_with('<')
        || s.chars().all(|c| c == '*' || c == 'x')
        || placeholder_word)
}

fn bearer(s: &str, next: Option<&str>) -> bool {
    mixed(s, next) && entropy(s) >= 3.0
}

/// Words that make a nearby high-entropy string suspicious.
const KEY_WORDS: [&str; 9] =
    ["token", "secret", "key", "password", "passwd", "credential", "apikey", "auth", "bearer"];

/// Words that make a 40-hex string a commit id rather than a secret.
const GIT_WORDS: [&str; 7] = ["commit", "sha", "git", "merge", "revision", "rev", "hash"];

/// The minimum length of a high-entropy token.
pub(crate) const ENTROPY_MIN_LEN: usize = 20;
/// Shannon entropy (bits per character) at or above which a mixed token is suspicious.
pub(crate) const ENTROPY_THRESHOLD: f64 = 3.5;
/// The same for a token of hex digits only (at most 4 bits per character).
pub(crate) const HEX_ENTROPY_THRESHOLD: f64 = 3.0;

/// Shannon entropy of a string, in bits per character.
pub(crate) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for b in s.bytes() {
        counts[usize::from(b)] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = f64::from(c) / n;
            -p * p.log2()
        })
        .sum()
}

static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[A-Za-z0-9+/=_\-]{20,}").expect("token pattern is valid"));

static UUID: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
        .expect("uuid pattern is valid")
});

/// A cheap test every text a rule can match passes: it holds a PEM header, a URL with an `@`,
/// one of the words the key-word rules need, or a run of 14 or more token characters (every
/// token rule's shortest match, prefix included, is at least that long). False positives only
/// cost the full scan.
fn may_hold_secret(text: &str) -> bool {
    const WORDS: [&str; 18] = [
        "pass",
        "mysql",
        "mariadb",
        "pin",
        "pw",
        "パスワード",
        "暗証番号",
        "pwd",
        "secret",
        "api",
        "access",
        "auth",
        "private",
        "token",
        "bearer",
        "key",
        "credential",
        "-----begin",
    ];
    let lower = text.to_ascii_lowercase();
    if WORDS.iter().any(|w| lower.contains(w)) || lower.contains("://") && lower.contains('@') {
        return true;
    }
    let mut run = 0;
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/' | b'=' | b'.') {
            run += 1;
            if run >= 14 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// Tells whether `word` occurs in `hay` (lower-case) as the start of a word.
fn has_word(hay: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        hay.match_indices(w).any(|(i, _)| {
            i == 0 || !hay[..i].chars().next_back().is_some_and(|c| c.is_ascii_alphabetic())
        })
    })
}

/// What stands right before a token that is published, not secret: a digest's algorithm and an
/// SSH public key's type (lower case, as the line is compared).
const PUBLIC_PREFIXES: [&str; 11] = [
    "sha1:",
    "sha224:",
    "sha256:",
    "sha384:",
    "sha512:",
    "md5:",
    "ssh-ed25519 ",
    "ssh-rsa ",
    "ssh-dss ",
    "ecdsa-sha2-nistp256 ",
    "sk-ssh-ed25519@openssh.com ",
];

/// Adds each high-entropy token near a key word in `line` to `out` (`offset` is the line's
/// byte offset in the text).
fn entropy_findings(line: &str, offset: usize, out: &mut Vec<(usize, usize, &'static str)>) {
    let lower = line.to_ascii_lowercase();
    if !has_word(&lower, &KEY_WORDS) {
        return;
    }
    for m in TOKEN.find_iter(line) {
        let whole = m.as_str().trim_end_matches('=');
        if whole.len() < ENTROPY_MIN_LEN || UUID.is_match(whole) {
            continue;
        }
        // The key word must come shortly before the token, or be part of it.
        let before_start = floor_char(line, m.start().saturating_sub(48));
        let before = &lower[before_start..m.start()];
        let (start, tok) = if has_word(before, &KEY_WORDS) {
            // A digest named by its algorithm (`sha256:…`, an image or a file checksum) and a
            // public key after its type (`ssh-ed25519 AAAA…`) are published, not secret.
            if PUBLIC_PREFIXES.iter().any(|p| before.ends_with(p)) {
                continue;
            }
            (m.start(), whole)
        } else if let Some(at) = after_key_word(whole) {
            // A key word inside the token (`api_key_…`, an entity id `tool--prod-api-key-…`,
            // which the graph index shows as `prod api key …`): the part after it is judged on
            // its own, so a name made of words and a secret is not exempt as a name.
            (m.start() + at, &whole[at..])
        } else {
            continue;
        };
        if tok.len() < ENTROPY_MIN_LEN || UUID.is_match(tok) || !is_high_entropy(tok, &lower) {
            continue;
        }
        out.push((offset + start, m.end() - start, "high-entropy-string"));
    }
}

/// The byte offset in `tok` of the first part, between `-`, `_` or `/`, that follows a part
/// starting with a key word and starts with none itself (`api_key_Zx8Q…`, `auth-token-Zx8Q…`
/// → `Zx8Q…`).
fn after_key_word(tok: &str) -> Option<usize> {
    let is_sep = |c: char| matches!(c, '-' | '_' | '/');
    let mut after_key = false;
    let mut at = 0;
    loop {
        let part_end = tok[at..].find(is_sep).map_or(tok.len(), |e| at + e);
        let part = tok[at..part_end].to_ascii_lowercase();
        let is_key = KEY_WORDS.iter().any(|w| part.starts_with(w));
        if after_key && !is_key {
            return Some(at);
        }
        after_key = is_key;
        at = tok[part_end..].find(|c: char| !is_sep(c)).map(|n| part_end + n)?;
    }
}

/// Whether `tok`, a token of a line that holds a key word (`line`, lower case), looks random
/// enough to be a secret: a hex string of 32+ characters (not a commit id on a line about
/// git), or letters and digits mixed with no shape of a name, at high entropy.
fn is_high_entropy(tok: &str, line: &str) -> bool {
    if tok.chars().all(|c| c.is_ascii_hexdigit()) {
        return !(tok.len() == 40 && has_word(line, &GIT_WORDS) || tok.len() < 32)
            && entropy(tok) >= HEX_ENTROPY_THRESHOLD;
    }
    let upper = tok.chars().any(|c| c.is_ascii_uppercase());
    let lower = tok.chars().any(|c| c.is_ascii_lowercase());
    let digit = tok.chars().any(|c| c.is_ascii_digit());
    let classes = usize::from(upper) + usize::from(lower) + usize::from(digit);
    // Words joined by `_` or `-`, camelCase names, `event--review-2024` are not random.
    classes >= 2
        && (digit || tok.contains(['+', '/']))
        && !identifier_like(tok)
        && entropy(tok) >= ENTROPY_THRESHOLD
}

/// Kebab, snake or path names (`event--nebula-review-2024`, `API_KEY_V2`,
/// `entities/tool--auth0-sign-off`, `1password/ops-vault3`): every part between `-`, `_` and
/// `/` is a word in one case optionally followed by digits (`auth0`, `v2`) or, a word of four
/// letters or more, preceded by them (`1password`, `3dprint`; not `4fz9`), a number, or at
/// most three characters.
fn identifier_like(tok: &str) -> bool {
    let wordish = |seg: &str, lower: bool| {
        let tail = seg.trim_end_matches(|c: char| c.is_ascii_digit());
        let letters = tail.trim_start_matches(|c: char| c.is_ascii_digit());
        let led = letters.len() < tail.len();
        !letters.is_empty()
            && (!led || letters.len() >= 4)
            && letters
                .chars()
                .all(|c| if lower { c.is_ascii_lowercase() } else { c.is_ascii_uppercase() })
    };
    tok.contains(['-', '_', '/'])
        && tok.split(['-', '_', '/']).all(|seg| {
            seg.len() <= 3
                || seg.chars().all(|c| c.is_ascii_digit())
                || wordish(seg, true)
                || wordish(seg, false)
        })
}

fn floor_char(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Redacts a secret for display: a few leading characters and the length.
pub(crate) fn redact(secret: &str) -> String {
    let n = secret.chars().count();
    let keep = match n {
        0..=7 => 0,
        8..=19 => 2,
        _ => 4,
    };
    let head: String = secret.chars().take(keep).collect();
    format!("{head}… ({n} chars)")
}

/// Characters that render as nothing and can hide inside a token.
fn is_invisible(c: char) -> bool {
    matches!(c, '\u{200B}'..='\u{200D}' | '\u{2060}' | '\u{FEFF}')
}

/// The Latin letter a Cyrillic or Greek look-alike stands for.
fn latin_of(c: char) -> Option<char> {
    Some(match c {
        'А' | 'Α' => 'A',
        'В' | 'Β' => 'B',
        'С' | 'Ϲ' => 'C',
        'Е' | 'Ε' => 'E',
        'Н' | 'Η' => 'H',
        'І' | 'Ι' => 'I',
        'Ј' => 'J',
        'К' | 'Κ' => 'K',
        'М' | 'Μ' => 'M',
        'Ν' => 'N',
        'О' | 'Ο' => 'O',
        'Р' | 'Ρ' => 'P',
        'Ѕ' => 'S',
        'Т' | 'Τ' => 'T',
        'Х' | 'Χ' => 'X',
        'Υ' | 'Ү' => 'Y',
        'Ζ' => 'Z',
        'а' | 'α' => 'a',
        'с' | 'ϲ' => 'c',
        'ԁ' => 'd',
        'е' => 'e',
        'һ' => 'h',
        'і' => 'i',
        'ј' => 'j',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'ѕ' => 's',
        'ν' => 'v',
        'х' => 'x',
        'у' => 'y',
        _ => return None,
    })
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+' | '/' | '=')
}

/// The shortest token fragment before a line break that `normalize` joins to the next line.
const JOIN_MIN_FRAGMENT: usize = 8;

/// A run of the normalised text and the bytes of the original it came from. A `same` run
/// maps byte for byte; any other run is one folded letter, all of whose bytes map to the whole
/// original character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Segment {
    /// Start in the normalised text.
    norm: usize,
    /// Start in the original text.
    orig: usize,
    /// Length in the normalised text.
    norm_len: usize,
    /// Length in the original text.
    orig_len: usize,
    same: bool,
}

/// Appends a run to a position map, merging it into the run before when both map byte for
/// byte and follow each other in both texts.
fn push_segment(map: &mut Vec<Segment>, seg: Segment) {
    if seg.norm_len == 0 {
        return;
    }
    if let Some(last) = map.last_mut()
        && seg.same
        && last.same
        && last.norm + last.norm_len == seg.norm
        && last.orig + last.orig_len == seg.orig
    {
        last.norm_len += seg.norm_len;
        last.orig_len += seg.orig_len;
        return;
    }
    map.push(seg);
}

/// The text the rules see, and where its bytes came from.
struct Normalized<'a> {
    text: Cow<'a, str>,
    /// Runs of `text` and where they came from, in order, covering it; empty when `text` is
    /// the original unchanged. One run per stretch between changes, so its size is
    /// proportional to the changed places, not to the text.
    map: Vec<Segment>,
    /// Byte offsets in `text` where a line break was removed.
    joins: Vec<usize>,
}

impl Normalized<'_> {
    /// The run holding byte `p` of the text (`map` is not empty).
    fn segment(&self, p: usize) -> &Segment {
        let i = self.map.partition_point(|s| s.norm <= p);
        &self.map[i.saturating_sub(1)]
    }

    /// The byte range of the original text that `len` bytes at `start` came from.
    fn origin(&self, start: usize, len: usize) -> (usize, usize) {
        if self.map.is_empty() {
            return (start, start + len);
        }
        let first = self.segment(start);
        let from = if first.same { first.orig + (start - first.norm) } else { first.orig };
        let last_byte = start + len - 1;
        let last = self.segment(last_byte);
        let to = if last.same {
            last.orig + (last_byte - last.norm) + 1
        } else {
            last.orig + last.orig_len
        };
        (from, to)
    }

    /// Appends to `out` the runs that map `range` of this text, placed at `at` in a text made
    /// from pieces of this one.
    fn map_range(&self, range: std::ops::Range<usize>, at: usize, out: &mut Vec<Segment>) {
        if range.is_empty() {
            return;
        }
        if self.map.is_empty() {
            let len = range.len();
            push_segment(
                out,
                Segment { norm: at, orig: range.start, norm_len: len, orig_len: len, same: true },
            );
            return;
        }
        let first = self.map.partition_point(|s| s.norm + s.norm_len <= range.start);
        for s in self.map[first..].iter().take_while(|s| s.norm < range.end) {
            if s.same {
                let lo = s.norm.max(range.start);
                let hi = (s.norm + s.norm_len).min(range.end);
                let orig = s.orig + (lo - s.norm);
                let seg = Segment {
                    norm: at + (lo - range.start),
                    orig,
                    norm_len: hi - lo,
                    orig_len: hi - lo,
                    same: true,
                };
                push_segment(out, seg);
            } else {
                // A folded letter is one ASCII byte: a range never cuts it.
                push_segment(out, Segment { norm: at + (s.norm - range.start), ..*s });
            }
        }
    }
}

/// Drops zero-width characters and folds Cyrillic and Greek look-alikes to Latin letters in
/// words that also hold a Latin letter or digit (`АKIA…`). Text with neither is borrowed as it
/// is, with no position map; otherwise only the words holding such a character are rebuilt
/// character by character, and the rest is copied in slices.
fn normalize(text: &str) -> Normalized<'_> {
    normalize_with(text, false)
}

/// [`normalize`], with each zero-width character made a space instead of dropped when
/// `invisible_as_space`: one that joins a key word to a token (`key\u{200B}AKIA…`) then no
/// longer hides the token's start, as dropping it does.
fn normalize_with(text: &str, invisible_as_space: bool) -> Normalized<'_> {
    let suspicious = |c: char| is_invisible(c) || latin_of(c).is_some();
    // Byte ranges of the whitespace-separated words that hold a suspicious character.
    let mut words: Vec<(usize, usize)> = Vec::new();
    for (i, _) in text.char_indices().filter(|&(_, c)| suspicious(c)) {
        if words.last().is_some_and(|&(_, end)| i < end) {
            continue;
        }
        let start = text[..i]
            .rfind(char::is_whitespace)
            .map_or(0, |w| w + text[w..].chars().next().map_or(1, char::len_utf8));
        let end = text[i..].find(char::is_whitespace).map_or(text.len(), |e| i + e);
        words.push((start, end));
    }
    if words.is_empty() {
        return Normalized { text: Cow::Borrowed(text), map: Vec::new(), joins: Vec::new() };
    }
    let mut out = String::with_capacity(text.len());
    let mut map: Vec<Segment> = Vec::with_capacity(2 * words.len() + 1);
    let same = |out: &mut String, map: &mut Vec<Segment>, from: usize, to: usize| {
        let seg = Segment {
            norm: out.len(),
            orig: from,
            norm_len: to - from,
            orig_len: to - from,
            same: true,
        };
        out.push_str(&text[from..to]);
        push_segment(map, seg);
    };
    let mut kept = 0;
    for (start, end) in words {
        same(&mut out, &mut map, kept, start);
        let word = &text[start..end];
        let fold = word.chars().any(|c| c.is_ascii_alphanumeric())
            && word.chars().any(|c| latin_of(c).is_some());
        for (i, c) in word.char_indices() {
            let at = start + i;
            // One character of the original written as `to`: a folded run of its own.
            let mut fold_to = |to: char| {
                let seg = Segment {
                    norm: out.len(),
                    orig: at,
                    norm_len: 1,
                    orig_len: c.len_utf8(),
                    same: false,
                };
                out.push(to);
                push_segment(&mut map, seg);
            };
            if is_invisible(c) {
                if invisible_as_space {
                    fold_to(' ');
                }
                continue;
            }
            match latin_of(c).filter(|_| fold) {
                Some(l) => fold_to(l),
                None => same(&mut out, &mut map, at, at + c.len_utf8()),
            }
        }
        kept = end;
    }
    same(&mut out, &mut map, kept, text.len());
    Normalized { text: Cow::Owned(out), map, joins: Vec::new() }
}

/// Joins the tokens of `plain` (text [`as_written`], every line break an LF) that are split
/// over a line break: a line ending in a token fragment of [`JOIN_MIN_FRAGMENT`] or more
/// characters and any blanks, the next line starting with token characters after any
/// indentation. `None` when no break is joined, which is most text: the scan then runs the
/// rules once.
fn join_split_tokens<'a>(plain: &Normalized<'a>) -> Option<Normalized<'a>> {
    // Token characters and line breaks are ASCII, so the bytes can be read one by one.
    let b = plain.text.as_bytes();
    let mut cuts: Vec<(usize, usize)> = Vec::new(); // byte ranges of `plain` left out
    let mut fragment = 0; // token characters just before this byte, on this line
    let mut i = 0;
    while i < b.len() {
        if fragment >= JOIN_MIN_FRAGMENT && !is_token_char(char::from(b[i])) {
            // Blanks that end a line are no part of it: a paragraph's writer trims them
            // (`markdown::paragraph_line`), and the file holds the token split by the break
            // alone.
            let rest = &plain.text[i..];
            let blanks = rest.len()
                - rest.trim_start_matches(|c: char| c != '\n' && c.is_whitespace()).len();
            let mut k = i + blanks;
            if b.get(k) == Some(&b'\n') {
                k += 1;
                while matches!(b.get(k), Some(b' ' | b'\t')) {
                    k += 1;
                }
                // A line that starts with a date starts a record of its own (the audit log's
                // lines, a dated list): "…the deploy token quarterly" and the next line's
                // "2026-12-05T09:00:00Z" are no token split in two.
                // Nor does a list item ("- next point"): a marker is no token's rest.
                let is_item = matches!(b.get(k), Some(b'-' | b'+'))
                    && matches!(b.get(k + 1), Some(b' ' | b'\t'));
                if b.get(k).is_some_and(|&n| is_token_char(char::from(n)))
                    && !starts_with_date(&b[k..])
                    && !is_item
                {
                    cuts.push((i, k));
                    i = k;
                    continue;
                }
            }
        }
        fragment = if is_token_char(char::from(b[i])) { fragment + 1 } else { 0 };
        i += 1;
    }
    if cuts.is_empty() {
        return None;
    }
    let mut text = String::with_capacity(b.len());
    let mut map = Vec::with_capacity(cuts.len() + plain.map.len() + 1);
    let mut joins = Vec::with_capacity(cuts.len());
    let mut kept = 0;
    for (cut, end) in cuts.into_iter().chain(std::iter::once((b.len(), b.len()))) {
        plain.map_range(kept..cut, text.len(), &mut map);
        text.push_str(&plain.text[kept..cut]);
        if cut < b.len() {
            joins.push(text.len());
        }
        kept = end;
    }
    Some(Normalized { text: Cow::Owned(text), map, joins })
}

/// Whether `b` starts with a date written `YYYY-MM-DD`.
fn starts_with_date(b: &[u8]) -> bool {
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10)
}

/// (byte offset, byte length, rule) of each secret the rules find in `text`, unordered.
fn rule_hits(text: &str) -> Vec<(usize, usize, &'static str)> {
    let mut hits: Vec<(usize, usize, &'static str)> = Vec::new();
    // Most memories hold nothing any rule could match; they skip compiling the rules (about
    // 15 ms per process, most of what `remember` would otherwise spend on this check).
    if !may_hold_secret(text) {
        return hits;
    }
    let lower = text.to_ascii_lowercase();
    for r in RULES.iter().filter(|r| r.needles.iter().any(|n| lower.contains(n))) {
        for caps in r.re().captures_iter(text) {
            let Some(m) = caps.get(r.group) else { continue };
            let next = if r.group == 1 { caps.get(2).map(|w| w.as_str()) } else { None };
            if (r.check)(m.as_str(), next) {
                hits.push((m.start(), m.end() - m.start(), r.name));
            }
        }
    }
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        entropy_findings(line, offset, &mut hits);
        offset += line.len();
    }
    hits
}

/// One secret found, before it is turned into a [`SecretFinding`]: the byte range of the
/// original text it stands in, its rule, and the secret as the rules saw it.
struct Hit {
    start: usize,
    end: usize,
    rule: &'static str,
    secret: String,
}

/// The secrets of `text`, one per place, in order of position.
fn hits(text: &str) -> Vec<Hit> {
    let plain = normalize(text);
    let joined = join_split_tokens(&plain);
    let spaced = text.chars().any(is_invisible).then(|| normalize_with(text, true));
    let mut hits: Vec<Hit> = Vec::new();
    for (norm, only_joins) in
        [(Some(&plain), false), (joined.as_ref(), true), (spaced.as_ref(), false)]
    {
        let Some(norm) = norm else { continue };
        for (start, len, rule) in rule_hits(&norm.text) {
            // The joined text only adds what spans a join; the rest the plain text found.
            if only_joins && !norm.joins.iter().any(|&j| start < j && j < start + len) {
                continue;
            }
            let (from, to) = norm.origin(start, len);
            let secret = norm.text[start..start + len].to_owned();
            hits.push(Hit { start: from, end: to, rule, secret });
        }
    }
    hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end)));
    // One finding per place: a token matched by a specific rule and the entropy rule, or a
    // JWT inside a bearer header, is reported once, by the first (longest) rule.
    let mut covered_to = 0;
    hits.retain(|h| {
        let keep = h.start >= covered_to;
        if keep {
            covered_to = h.end;
        }
        keep
    });
    hits
}

/// The text as a file holds it once written: every line break an LF and control characters
/// replaced, by the writers' own [`markdown::plain_breaks`]. The scanner reads this form, so a
/// CR, NEL or U+2028 inside a token, which the writers make a line break, is joined as a line
/// break is, and what `check` lets through `verify` does not flag.
fn as_written(text: &str) -> Cow<'_, str> {
    markdown::plain_breaks(text)
}

/// Finds everything in `text` that looks like a credential, in order of position.
///
/// The rules run on the text as it is written (line breaks of every kind an LF) and then
/// normalised (`normalize`), so a zero-width space, a look-alike letter or a line break inside
/// a token does not hide it; positions are those of the original text, with CR, CRLF, NEL,
/// U+2028 and U+2029 each counted as one line break.
pub fn scan(text: &str) -> Vec<SecretFinding> {
    scan_written(&as_written(text)).into_iter().map(|(f, _)| f).collect()
}

/// [`scan`] of a text [`as_written`], each finding with the last line its secret reaches (a
/// token split over a line break reaches the next).
fn scan_written(text: &str) -> Vec<(SecretFinding, usize)> {
    let mut out = Vec::new();
    let mut line = 1;
    let mut line_start = 0;
    let mut cursor = 0;
    for Hit { start, end, rule, secret } in hits(text) {
        // Advance the line counter to `start`.
        for (i, b) in text.as_bytes()[cursor..start].iter().enumerate() {
            if *b == b'\n' {
                line += 1;
                line_start = cursor + i + 1;
            }
        }
        cursor = start;
        let column = text[line_start..start].chars().count() + 1;
        let excerpt = if rule == "private-key" { secret } else { redact(&secret) };
        let last = line + text.as_bytes()[start..end].iter().filter(|&&b| b == b'\n').count();
        out.push((SecretFinding { rule, line, column, excerpt }, last));
    }
    out
}

/// Finds what looks like a credential in the lines of `new` that `old` (the file before an
/// edit) does not hold: a finding counts when a line its secret reaches is new or changed, so a
/// token completed by an appended line is found too, and a secret already committed is not
/// reported again.
pub fn scan_added(old: &str, new: &str) -> Vec<SecretFinding> {
    let new = as_written(new);
    let found = scan_written(&new);
    if found.is_empty() {
        return Vec::new();
    }
    let old = as_written(old);
    let had: std::collections::HashSet<&str> = old.lines().collect();
    let lines: Vec<&str> = new.lines().collect();
    let is_new = |n: usize| lines.get(n - 1).is_none_or(|l| !had.contains(l));
    found.into_iter().filter(|(f, last)| (f.line..=*last).any(is_new)).map(|(f, _)| f).collect()
}

/// What stands in for a secret in [`mask`]ed text.
pub const MASK: &str = "[secret]";

/// Returns `text` with every suspected secret replaced by [`MASK`]: what titles, file names,
/// ids and tags are derived from, so that a secret written with `--allow-secret` never becomes
/// a name (issue 16). Text with no secret is borrowed unchanged; masked text has its line
/// breaks as written (every kind an LF).
pub fn mask(text: &str) -> Cow<'_, str> {
    let written = as_written(text);
    let hits = hits(&written);
    if hits.is_empty() {
        return Cow::Borrowed(text);
    }
    let text = &*written;
    let mut out = String::with_capacity(text.len());
    let mut kept = 0;
    for h in hits {
        out.push_str(&text[kept..h.start]);
        out.push_str(MASK);
        kept = h.end;
    }
    out.push_str(&text[kept..]);
    Cow::Owned(out)
}

/// Tells whether `name` (an id, tag, title or slug derived from `text`) holds one of the
/// secrets of `text`, compared as lower-case letters and digits only, so that a slug
/// (`tool--hunter2hunter2`) still matches the secret it was made from.
pub fn is_derived_from_secret(name: &str, text: &str) -> bool {
    let fold = |s: &str| -> String {
        s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
    };
    let name = fold(name);
    hits(&as_written(text)).iter().any(|h| {
        let secret = fold(&h.secret);
        secret.len() >= 4 && name.contains(&secret)
    })
}

/// The refusal of `what` for finding `f`, which `--allow-secret` lets through when
/// `allowable` (a reason or a note has no way out).
pub fn refusal(what: &str, f: SecretFinding, allowable: bool) -> RuleError {
    secret_error(what, f, allowable, None)
}

/// The refusal of `what` for finding `f`, which only `command` lets through (no MCP tool can:
/// `cogmem sync --allow-secret` for an agent's sync of hand edits).
pub fn refusal_allowed_by(what: &str, f: SecretFinding, command: AllowCommand) -> RuleError {
    secret_error(what, f, true, Some(command))
}

fn secret_error(
    what: &str,
    f: SecretFinding,
    allowable: bool,
    allow_command: Option<AllowCommand>,
) -> RuleError {
    RuleError::Secret {
        what: what.to_owned(),
        rule: f.rule,
        line: f.line,
        column: f.column,
        excerpt: f.excerpt,
        allowable,
        allow_command,
    }
}

/// Refuses `text` when it looks like a credential, unless `allow` is set. `what` names the text
/// in the error (`the text`, `line 3 of the import`…); line numbers are the text's own.
pub fn check(text: &str, what: &str, allow: bool) -> Result<(), RuleError> {
    check_fields([(what, text)], allow)
}

/// Refuses the first of `fields`, `(what, text)` pairs such as `("the tags", "a,b")`, that
/// looks like a credential, unless `allow` is set (`--allow-secret`). Every operation that
/// writes passes every field it writes here (text, title, tags, ids, relations…), once, before
/// it takes the lock.
pub fn check_fields<W: AsRef<str>, T: AsRef<str>>(
    fields: impl IntoIterator<Item = (W, T)>,
    allow: bool,
) -> Result<(), RuleError> {
    if allow {
        return Ok(());
    }
    for (what, text) in fields {
        if let Some(f) = scan(text.as_ref()).into_iter().next() {
            return Err(refusal(what.as_ref(), f, true));
        }
    }
    Ok(())
}

/// Refuses a note that has no `--allow-secret` (a reason given to `reflect decide`,
/// `pending reject`…) when it looks like a credential: a reason never needs one.
pub fn check_note(text: &str, what: &str) -> Result<(), RuleError> {
    match scan(text).into_iter().next() {
        None => Ok(()),
        Some(f) => Err(refusal(what, f, false)),
    }
}

/// Refuses a JSONL import any line of which looks like a credential, unless `allow` is set;
/// the error names the import's line.
pub fn check_import(input: &str, allow: bool) -> Result<(), RuleError> {
    if allow {
        return Ok(());
    }
    match scan(input).into_iter().next() {
        None => Ok(()),
        Some(f) => Err(refusal(&format!("line {} of the import", f.line), f, true)),
    }
}

/// Refuses line `n` (1-based) of the JSONL import `file`, read on its own as a streaming import
/// reads it, when it looks like a credential, unless `allow` is set; the error names the line
/// and the file.
pub fn check_import_line(line: &str, file: &str, n: usize, allow: bool) -> Result<(), RuleError> {
    if allow {
        return Ok(());
    }
    match scan(line).into_iter().next() {
        None => Ok(()),
        Some(f) => {
            let f = SecretFinding { line: n, ..f };
            Err(refusal(&format!("line {n} of {file}"), f, true))
        }
    }
}

/// Files of the workspace that [`scan_workspace`] reads: every regular file outside `.git` and
/// the derived `.cogmem` folder, symbolic links not followed.
fn workspace_files(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !(e.file_name() == ".git" || e.file_name() == ".cogmem")
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(root).ok()?;
            Some(rel.to_str()?.replace('\\', "/"))
        })
        .collect();
    out.sort();
    out
}

/// Scans every text file of the workspace; returns `(relative path, finding)` pairs, by path.
///
/// Files that are not UTF-8, over the workspace file size limit, or symbolic links are skipped
/// (`verify` reports those on their own).
pub fn scan_workspace(ws: &Workspace) -> Vec<(String, SecretFinding)> {
    let limit = ws.settings().limits.file_bytes;
    let mut out = Vec::new();
    for rel in workspace_files(ws.root()) {
        let abs = ws.root().join(&rel);
        let Ok(bytes) = fsx::read(&abs, limit) else { continue };
        let Ok(text) = String::from_utf8(bytes) else { continue };
        for f in scan(&text) {
            out.push((rel.clone(), f));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_compiles_and_its_needles_are_lower_case() {
        for r in RULES.iter() {
            let _ = r.re();
            assert!(!r.needles.is_empty(), "{}", r.name);
            for n in r.needles {
                assert_eq!(*n, n.to_ascii_lowercase(), "{}", r.name);
            }
        }
    }

    fn rules(text: &str) -> Vec<&'static str> {
        scan(text).into_iter().map(|f| f.rule).collect()
    }

    /// Fake credentials, assembled at run time so that no scanner flags this source file.
    fn fake(prefix: &str, body: &str) -> String {
        format!("{prefix}{body}")
    }

    #[test]
    fn true_positives() {
        let gh = fake("ghp_", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4");
        let table: Vec<(String, &str)> = vec![
            ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n".into(), "private-key"),
            ("-----BEGIN OPENSSH PRIVATE KEY-----".into(), "private-key"),
            ("-----BEGIN PRIVATE KEY-----".into(), "private-key"),
            (format!("id {}", fake("AKIA", "IOSFODNN7EXAMPLE")), "aws-access-key-id"),
            (
                format!(
                    "aws_secret_access_key = {}",
                    fake("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY")
                ),
                "aws-secret-access-key",
            ),
            (format!("token {gh} for CI"), "github-token"),
            (fake("github_pat_", "11ABCDEFG0123456789_abcdefghijklmnopqrstuv"), "github-token"),
            (fake("gho_", "16C7e42F292c6912E7710c838347Ae178B4a"), "github-token"),
            (fake("glpat-", "xYz12AbC34dEf56GhI78jK"), "gitlab-token"),
            (fake("xoxb-", "123456789012-1234567890123-AbCdEfGhIjKlMnOp"), "slack-token"),
            (fake("sk_live_", "4eC39HqLyjWDarjtT1zdp7dc"), "stripe-key"),
            (fake("AIza", "SyD-1234567890abcdefghijklmnopqrstu"), "google-api-key"),
            (fake("sk-ant-", "api03-AbCdEf123456GhIjKl789012MnOp"), "anthropic-key"),
            (fake("sk-proj-", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34"), "openai-key"),
            (
                fake(
                    "eyJhbGciOiJIUzI1NiJ9.",
                    "eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                ),
                "jwt",
            ),
            ("password=hunter2".into(), "password-assignment"),
            ("DB_PASSWORD=\"s3cr3t-Value\"".into(), "password-assignment"),
            ("passwd: Tr0ub4dor&3".into(), "password-assignment"),
            ("secret=abcd1234".into(), "password-assignment"),
            ("api_key = 'zq81kdhs7'".into(), "password-assignment"),
            ("https://alice:Sup3rS3cret@db.example.com/x".into(), "url-credentials"),
            ("Authorization: Bearer abcDEF123456ghiJKL789mnoPQR".into(), "bearer-token"),
            ("my password is hunter2".into(), "password-phrase"),
            ("the passcode was Tr0ub4dor&3.".into(), "password-phrase"),
            ("password: x9".into(), "password-phrase"),
            ("my password is \"a b!\"".into(), "password-phrase"),
            ("PIN 4821".into(), "password-phrase"),
            ("the pin code is 004821".into(), "password-phrase"),
            ("パスワードは Hunter2です".into(), "password-phrase"),
            ("暗証番号は4821".into(), "password-phrase"),
            // A plain word ending the clause after `password is`, or named `as my password`.
            ("remember that my password is hunterhunter".into(), "password-phrase"),
            ("the wifi password is correcthorse for the guests".into(), "password-phrase"),
            ("my passcode was bluebird.".into(), "password-phrase"),
            ("I use hunterhunter as my password".into(), "password-phrase"),
            ("we picked Tr0ub4dor as the wifi password.".into(), "password-phrase"),
            ("redis://user:p@ss!w0rd@host".into(), "url-credentials"),
            ("postgresql://u:p%40ss@db/x".into(), "url-credentials"),
            ("redis://:s3cr#t@cache:6379/0".into(), "url-credentials"),
            ("PGPASSWORD=Zq9xLmw".into(), "env-secret-assignment"),
            ("pw=hunter2".into(), "env-secret-assignment"),
            ("export db_pass=Tr0ub4dor".into(), "env-secret-assignment"),
            ("SLACK_BOT_TOKEN=abc123XYZ".into(), "env-secret-assignment"),
            ("MYSQL_ROOT_PASSWORD=r00t-pw".into(), "password-assignment"),
            ("WEBHOOK_SECRET=whsec_9a8b7c".into(), "password-assignment"),
            (fake("hf_", "AbCdEfGhIjKlMnOpQrStUvWxYz12345678"), "huggingface-token"),
            (
                format!("use {} for publish", fake("npm_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8")),
                "npm-token",
            ),
            (fake("dop_v1_", &"0123456789abcdef".repeat(4)), "digitalocean-token"),
            (
                fake("pypi-AgEIcHlwaS5vcmc", "CJDQ2NGU1ZTE4LTY5ZjEtNGFkNS05YjQ2LTk4OGJmM2Q4OGJmZQ"),
                "pypi-token",
            ),
            ("mysql -u root -pS3cret! shop".into(), "command-line-password"),
            ("mysqldump -h db -u app -p'hunter2' app > x.sql".into(), "command-line-password"),
            ("sshpass -p Tr0ub4dor ssh pi@raspberry".into(), "command-line-password"),
            ("password=$ecretVal9".into(), "password-assignment"),
            (
                format!(
                    "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={}",
                    fake(
                        "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsu",
                        "Fq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
                    )
                ),
                "azure-account-key",
            ),
            ("the deploy token is Zx8Qw2Lk9Pm4Rt6Yh1Nb3Vc5".into(), "high-entropy-string"),
            ("license key 4fz9-k2mq-8xw3-p7vd-q2n6-h5tb".into(), "high-entropy-string"),
            (
                "api key: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
                "high-entropy-string",
            ),
        ];
        for (text, want) in &table {
            let got = rules(text);
            assert_eq!(got.first().copied(), Some(*want), "{text:?} gave {got:?}");
            assert!(may_hold_secret(text), "the prefilter lets {text:?} through");
        }
        // Ordinary memories skip the rules altogether.
        for text in ["Alice prefers tea over coffee", "Standup moved to 09:30 on Thursdays"] {
            assert!(!may_hold_secret(text), "{text:?}");
        }
    }

    #[test]
    fn false_positives() {
        let table = [
            "Alice prefers tea over coffee, and her password manager is 1Password.",
            "The secret to good bread is patience.",
            "Remember the key decision: we chose Postgres over MySQL in 2026.",
            "the key decision: pin image to sha256:9b2c4e1f7a3d5b8c0e6f2a4d8b1c3e5f7a9d0b2c4e6f8a1c3e5d7b9f0a2c4e6f",
            "my public key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIG7xq2Rk8Wm3ZpQ9vT4uYb6Ns1Lc0Jh5Fd2Ea7Kw9Ru",
            "the deploy key is ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQDx7Zk2Pq9Wm4Rt6Yv8Ub1Nc3Ld5Jh7Fg9Ea2Kw",
            "Fixed in commit 3f2a9c1e4b5d6a7f8e9d0c1b2a3f4e5d6c7b8a9f, see the key change there",
            "git commit 9fceb02d0ae598e95dc970b74767f19372d61af8 holds the token refactor",
            "request id 550e8400-e29b-41d4-a716-446655440000 failed with an auth error",
            "The meeting is on 2026-11-30T18:01:21Z about the API key rotation policy.",
            "Docs at https://docs.example.com/guide/tokens/refresh_token_rotation?page=2",
            "password: see the team vault",
            "Set password=<your password> and secret=${SECRET} in the env file.",
            "token handling lives in src/auth/token_refresh_handler_module",
            "Use the SSH key in ~/.ssh/id_ed25519 for the build server",
            "The sk-learn library and the scikit-learn key points",
            "keyboard shortcuts: Ctrl+Shift+P opens the command palette",
            "ticket ABCD-1234 mentions the credential rotation schedule",
            "the deploy key is in 1password/ops-vault3",
            "the api key lives in 3dprint-farm/keys-2024",
            "日本語のテキスト、パスワードを忘れないで",
            "| concept--slow-password | relates-to | event--nebula-review-2024 | 0.8 |",
            "rotate the API key per API_KEY_ROTATION_POLICY_2024_Q3 and PASSWORD_MIN_LENGTH_12",
            "connect with scheme://user:password@host as documented",
            "| event--keystone-workshop-2026 | event | entities/event--keystone-workshop-2026.md |",
            "| tool--auth0-sign-off | tool | auth0 sign off | entities/tool--auth0-sign-off.md |",
            "I forgot my password again",
            "the PIN pad is broken",
            "password policy is 12 characters",
            "the password is 12 characters long",
            "my password is required and the passcode was wrong.",
            "the password is: 8+ chars",
            "pin 2 on the header, and a pin is 3mm wide",
            "パスワードは忘れました",
            "bypass=true and compass=north, max_tokens=4096",
            "call hf_hub_download for the model",
            "run mysql -p and type it at the prompt; mysql -u root -p shop, then -P 3306",
            "mysql -u app -p<password> and sshpass -p $SSHPASS ssh host",
            "npm_config_cache and npm_lifecycle_event are set by npm run",
            "the do_v1_api path and dop_v1_ tokens are DigitalOcean's",
            "Use AccountKey=<your key> in the connection string",
            "Open http://localhost:8080/admin and ssh://git@example.com:22/repo",
            "redis://cache:6379/0 is the broker",
            "my password is correct, and the passcode is different",
            "the password is written on the fridge",
            "my password is somewhere in the drawer",
            "the password is expired again",
            "the password is the same as last year",
            "my password is case-sensitive",
            "I use 1Password as my password manager",
            "she used it as the password hint",
        ];
        for text in table {
            let got = scan(text);
            assert!(got.is_empty(), "{text:?} gave {got:?}");
        }
    }

    #[test]
    fn findings_name_line_and_column_and_never_echo_the_secret() {
        let gh = fake("ghp_", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4");
        let text = format!("first line\nmy token: {gh}\n");
        let f = scan(&text);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].line, f[0].column), (2, 11));
        assert!(!f[0].excerpt.contains(&gh[6..]), "{}", f[0].excerpt);
        assert_eq!(f[0].excerpt, "ghp_… (40 chars)");
        let err = check(&text, "the text", false).unwrap_err().to_string();
        assert!(err.contains("github-token") && err.contains("line 2, column 11"), "{err}");
        assert!(!err.contains(&gh), "{err}");
        assert!(check(&text, "the text", true).is_ok());
    }

    #[test]
    fn hidden_and_split_tokens_are_found_where_they_stand() {
        let key = fake("AKIA", "IOSFODNN7EXAMPLE");
        let gh = fake("ghp_", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4");
        let cases: Vec<(String, &str, (usize, usize))> = vec![
            // A zero-width space, joiner, word joiner or BOM inside the token.
            (format!("id {}\u{200B}{}", &key[..4], &key[4..]), "aws-access-key-id", (1, 4)),
            (
                format!("x\nid {}\u{2060}{}\u{FEFF}", &key[..9], &key[9..]),
                "aws-access-key-id",
                (2, 4),
            ),
            (format!("{}\u{200D}{}", &gh[..10], &gh[10..]), "github-token", (1, 1)),
            // A zero-width space joining a key word to the token (dropped, it hid the start).
            (format!("my key\u{200B}{key}"), "aws-access-key-id", (1, 8)),
            // Cyrillic А and Greek Κ for the Latin letters.
            (format!("id \u{0410}{}", &key[1..]), "aws-access-key-id", (1, 4)),
            (format!("id AKI\u{0391}{}", &key[4..]), "aws-access-key-id", (1, 4)),
            (format!("id A\u{039A}IA{}", &key[4..]), "aws-access-key-id", (1, 4)),
            // Split over two lines, with or without indentation or a carriage return.
            (format!("first\nid {}\n{} done", &key[..10], &key[10..]), "aws-access-key-id", (2, 4)),
            (format!("token {}\r\n    {}", &gh[..20], &gh[20..]), "github-token", (1, 7)),
            // Every line break a writer makes an LF (`markdown::plain_breaks`), and blanks at
            // a line's end, which a paragraph's writer trims.
            (format!("token {}\r{}", &gh[..20], &gh[20..]), "github-token", (1, 7)),
            (format!("x\rtoken {}\u{2028}{}", &gh[..20], &gh[20..]), "github-token", (2, 7)),
            (format!("token {}\u{85}{}", &gh[..20], &gh[20..]), "github-token", (1, 7)),
            (format!("token {}\u{2029}  {}", &gh[..20], &gh[20..]), "github-token", (1, 7)),
            (format!("token {} \t\n{}", &gh[..20], &gh[20..]), "github-token", (1, 7)),
            (format!("token {}\u{3000}\r\n{}", &gh[..20], &gh[20..]), "github-token", (1, 7)),
            // All three at once, after other look-alikes and zero-width characters.
            (
                format!(
                    "Мария\u{200B} sаid:\nid \u{0410}{}\u{200B}\n{} done",
                    &key[1..9],
                    &key[9..]
                ),
                "aws-access-key-id",
                (2, 4),
            ),
        ];
        for (text, rule, at) in &cases {
            let f = scan(text);
            assert_eq!(f.len(), 1, "{text:?} gave {f:?}");
            assert_eq!((f[0].rule, f[0].line, f[0].column), (*rule, at.0, at.1), "{text:?}");
            assert!(!f[0].excerpt.contains(&key[4..]) && !f[0].excerpt.contains(&gh[4..]));
            let err = check(text, "the text", false).unwrap_err().to_string();
            assert!(!err.contains(&key[6..]) && !err.contains(&gh[6..]), "{err}");
        }
        // Prose keeps passing: Cyrillic words are not folded, wrapped lines are not joined
        // into anything.
        for text in [
            "Привет, Мария! Встреча в среду.",
            "Κάλυψη του API στο σύστημα",
            "the configuration\nfile holds no password",
            "see docs/architecture\nfor the token flow",
            "\u{FEFF}Alice prefers tea\u{200B} over coffee",
            // The audit log: a summary's last word and the next line's time are two records.
            "2026-12-05T09:00:00Z | user:me | remember | MEMORY.md | Rotate the deploy token quarterly\n2026-12-05T09:00:01Z | user:me | remember | memory/episodes/2026-12-05.md | one more note\n",
            "the procedure /etc/passwd\n2026-12-05T09:00:01Z | x",
        ] {
            assert!(scan(text).is_empty(), "{text:?} gave {:?}", scan(text));
        }
        // A list item's marker is no token's rest: 19 characters are too short for a secret,
        // and with the next line's `-` they were long enough.
        let text = format!("- token {}\n- tea", &gh[..19]);
        assert!(scan(&text).is_empty(), "{text:?} gave {:?}", scan(&text));
    }

    #[test]
    fn a_key_word_inside_a_name_makes_its_random_part_a_secret() {
        let hex = fake("3a7bd3e2360a3d29", "eea436fcfb7e44c735d117c4");
        let b64 = fake("Zx8Qw2Lk9Pm4", "Rt6Yh1Nb3Vc5");
        for (text, column) in [
            (format!("tool--prod-api-key-{hex}"), 20),
            (format!("see tool--prod-api-key-{hex}-notes"), 24),
            (format!("API_KEY_{b64}"), 9),
            (format!("entities/tool--auth-token-{b64}.md"), 27),
        ] {
            let f = scan(&text);
            assert_eq!(f.len(), 1, "{text:?} gave {f:?}");
            assert_eq!((f[0].rule, f[0].column), ("high-entropy-string", column), "{text:?}");
        }
        // Names made of words, a key word with no random part after it, and a commit id on a
        // line about git stay names.
        for text in [
            "tool--api-key-rotation-2024".to_owned(),
            "project--auth0-sign-off-q3-2026".to_owned(),
            "AUTH_TOKEN_EXPIRY_SECONDS_DEFAULT".to_owned(),
            "apiKeyRotationPolicy2024".to_owned(),
            "concept--keyboard-layouts-for-developers".to_owned(),
            "event--token-bucket-rate-limit-review-2025-11-30".to_owned(),
            format!("the git commit key-{hex}"),
            format!("tool--{hex}"),
        ] {
            assert!(scan(&text).is_empty(), "{text:?} gave {:?}", scan(&text));
        }
    }

    #[test]
    fn masking_hides_every_secret_and_keeps_the_rest() {
        let gh = fake("ghp_", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4");
        let text = format!("my password is hunter2hunter2 and the token {gh} too");
        assert_eq!(mask(&text), "my password is [secret] and the token [secret] too");
        assert!(matches!(mask("Alice prefers tea"), Cow::Borrowed(_)));
        // Positions come back through the look-alike, the zero-width space and the line break.
        let key = fake("AKIA", "IOSFODNN7EXAMPLE");
        let hidden = format!("sаid \u{200B}id \u{0410}{}\n{} done", &key[1..9], &key[9..]);
        assert_eq!(mask(&hidden), "sаid \u{200B}id [secret] done");
        // A carriage return inside the token is a line break, as it is written.
        let split = format!("n4: {}\r{}\r(done)", &gh[..20], &gh[20..]);
        assert_eq!(mask(&split), "n4: [secret]\n(done)");
        assert!(is_derived_from_secret(&gh.to_lowercase(), &split));
        assert!(is_derived_from_secret("tool--hunter2hunter2", &text));
        assert!(is_derived_from_secret(&gh.to_lowercase(), &text));
        assert!(!is_derived_from_secret("person--user", &text));
    }

    #[test]
    fn only_what_an_edit_adds_is_reported() {
        let key = fake("AKIA", "IOSFODNN7EXAMPLE");
        let gh = fake("ghp_", "aB3dE5gH7jK9mN1pQ3rS5tU7vW9xY1zA2bC4");
        let old = format!("# Notes\n- deploy key {key}\n- see {}\n", &gh[..20]);
        let cases: Vec<(String, Vec<(&str, usize)>)> = vec![
            (old.clone(), vec![]),
            (format!("{old}- tea\n"), vec![]),
            // A new line; the committed key's line is not reported again.
            (format!("{old}- id {key}\n"), vec![("aws-access-key-id", 4)]),
            // The rest of a token on a new line, and a carriage return as a line break.
            (format!("{old}{}\n", &gh[20..]), vec![("github-token", 3)]),
            (old.replace("\n- see", "\r\r- see"), vec![]),
            // A changed line, moved: a line old does not hold.
            (format!("- deploy key {key} (prod)\n"), vec![("aws-access-key-id", 1)]),
        ];
        for (new, want) in cases {
            let got: Vec<(&str, usize)> =
                scan_added(&old, &new).into_iter().map(|f| (f.rule, f.line)).collect();
            assert_eq!(got, want, "new: {new:?}");
        }
        assert_eq!(scan_added("", &old).len(), 1, "a new file: every line is new");
    }

    #[test]
    fn a_note_has_no_way_out_and_fields_are_named() {
        let err = check_note("password=Hunter2!x", "the reason").unwrap_err();
        assert!(matches!(err, RuleError::Secret { allowable: false, .. }), "{err:?}");
        assert!(err.hint().is_some_and(|h| h.contains("the reason") && !h.contains("allow")));
        let err = check_fields([("the text", "fine"), ("the tags", "pw=hunter2")], false);
        assert!(err.unwrap_err().to_string().starts_with("the tags looks like a secret"));
        assert!(check_fields([("the tags", "pw=hunter2")], true).is_ok());
    }

    #[test]
    fn entropy_is_bits_per_character() {
        assert!(entropy("") == 0.0);
        assert!((entropy("aaaa") - 0.0).abs() < 1e-9);
        assert!((entropy("abcd") - 2.0).abs() < 1e-9);
    }

    /// Prints the scanner's speed on 1 MiB of prose and 1 MiB of key-word-dense text:
    /// `cargo test --lib secrets::tests::scan_throughput -- --ignored --nocapture`.
    #[test]
    #[ignore = "a measurement, not a check"]
    fn scan_throughput() {
        use std::io::Write as _;
        let prose = "Alice prefers green tea over coffee; the key decision was Postgres. "
            .repeat(1 << 14)[..1 << 20]
            .to_owned();
        let dense = "token=abc key: Zx8Qw2Lk9Pm4Rt6Yh1Nb3Vc5 secret password ghp_ AKIA sk- "
            .repeat(1 << 14)[..1 << 20]
            .to_owned();
        let lines =
            "{\"timestamp\":\"2026-12-01T09:00:00Z\",\"speaker\":\"Ann\",\"text\":\"we met\"}\n"
                .repeat(1 << 14)[..1 << 20]
                .to_owned();
        // One look-alike letter (a Cyrillic `е`) in a word of ordinary prose: the text must be
        // normalised, and positions mapped back.
        let homoglyph = format!("Alice prеfers tea. {}", &prose[..(1 << 20) - 20]);
        for (name, text) in [
            ("prose", &prose),
            ("key-word dense", &dense),
            ("JSONL lines", &lines),
            ("prose, one homoglyph", &homoglyph),
        ] {
            let start = std::time::Instant::now();
            let n = scan(text).len();
            let took = start.elapsed();
            let start = std::time::Instant::now();
            let normalized = normalize(text).text.len();
            let _ = writeln!(
                std::io::stdout().lock(),
                "normalize {name}: {:.1} ms ({normalized} bytes)",
                start.elapsed().as_secs_f64() * 1000.0
            );
            let _ = writeln!(
                std::io::stdout().lock(),
                "scan {name}: 1 MiB in {:.1} ms ({:.1} MiB/s), {n} findings",
                took.as_secs_f64() * 1000.0,
                1.0 / took.as_secs_f64()
            );
        }
    }

    #[test]
    fn scanning_is_fast_on_large_hostile_input() {
        let big = "password=".repeat(20_000) + &"A".repeat(100_000) + &"key ".repeat(20_000);
        let f = scan(&big);
        assert!(f.len() <= big.len());
    }
}
