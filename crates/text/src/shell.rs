//! Words written for a POSIX shell: the ids and paths in the commands that hints print (`run
//! `cogmem restore 'episode:…'``) and that `setup` writes into agent hosts' hook settings. Ids
//! and paths are hostile input, so a word comes out as exactly one shell word, and never as
//! raw control characters on someone's terminal.

use std::fmt::Write as _;

/// Returns `word` as one shell word: unchanged when it is made only of characters no shell
/// treats specially (letters, digits and `/._-+:,@`), else in single quotes (a `'` inside
/// written `'\''`), or, when it holds control characters, in `$'…'` with escapes (bash, zsh
/// and POSIX.1-2024 shells read these).
pub fn quote(word: &str) -> String {
    if !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_alphanumeric() || b"/._-+:,@".contains(&b))
    {
        return word.to_owned();
    }
    if !word.chars().any(char::is_control) {
        return format!("'{}'", word.replace('\'', r"'\''"));
    }
    let mut out = String::from("$'");
    for c in word.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            c if c.is_control() => {
                let mut buf = [0; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    let _ = write!(out, "\\x{b:02x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_a_shell_would_read_otherwise() {
        let cases = [
            ("episode:2026-02-02:14:30", "episode:2026-02-02:14:30"),
            ("entity:person--kenji", "entity:person--kenji"),
            ("/home/a b/ws", "'/home/a b/ws'"),
            ("it's", r"'it'\''s'"),
            ("$(rm -rf ~)", "'$(rm -rf ~)'"),
            ("a\nb", r"$'a\nb'"),
            ("a\x1b[31mb'", r"$'a\x1b[31mb\''"),
            ("", "''"),
            ("東京", "'東京'"),
        ];
        for (word, want) in cases {
            assert_eq!(quote(word), want, "word: {word:?}");
        }
    }
}
