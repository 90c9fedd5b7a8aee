//! A how-to said in one sentence, read as a procedure's title and steps: "how to clear the
//! cache: open settings, then storage, then tap clear" is *Clear the cache* with three steps,
//! "to renew the certificate you run certbot renew, then reload nginx" is *Renew the
//! certificate* with two, "バックアップの手順は、まずDBを止めて、次にスナップショットを取る" is
//! *バックアップの手順* with two. Text in any other shape is left to the caller (one step per
//! line).
//!
//! Invariant: pure; the steps are the text's own words, in order, cut only at the sequence
//! words ("then", "次に", …) and the title's own markers ("how to", "to … you", "の手順は").

/// A procedure read from one sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HowTo {
    /// What the procedure does, as a short title ("Clear the cache").
    pub title: String,
    /// The steps, in order.
    pub steps: Vec<String>,
}

/// Where a sequence of steps is cut, in English (matched in lower case) and Japanese.
const THEN: &[&str] = &[
    ", and then ",
    ", and finally ",
    ", finally ",
    ", then ",
    "; then ",
    "; ",
    " and then ",
    " then ",
    "、次に",
    "。次に",
    "、その後",
    "。その後",
    "、それから",
    "。それから",
    "、最後に",
    "。最後に",
];

/// Words that open a first step and say nothing of it.
const FIRST: &[&str] = &["first, ", "first ", "firstly, ", "firstly ", "まずは", "まず"];

/// Japanese nouns that close a procedure's name: "バックアップの手順は、…".
const JA_NAMES: &[&str] = &["の手順", "のやり方", "の方法", "の作り方", "の直し方", "の仕方"];

/// Reads a one-sentence how-to, or `None` when the text is not one (several lines, no title
/// marker, or fewer steps than its shape needs).
pub fn split(text: &str) -> Option<HowTo> {
    let text = text.trim().trim_end_matches(['.', '。', '!', '！']);
    if text.is_empty() || text.contains('\n') {
        return None;
    }
    let (title, body, least) = english(text).or_else(|| japanese(text))?;
    let steps = steps(body);
    let title = capitalised(title.trim().trim_end_matches([',', '、', ':', '：']).trim());
    (steps.len() >= least && !title.is_empty() && title.chars().count() <= 80)
        .then_some(HowTo { title, steps })
}

/// "how to X: …", "the steps to X: …", "to X(,) you …", "X: A, then B".
fn english(text: &str) -> Option<(&str, &str, usize)> {
    let lower = text.to_ascii_lowercase();
    // Lower-casing ASCII keeps byte offsets, so positions in `lower` are positions in `text`.
    for opener in ["how to ", "the steps to ", "steps to ", "the way to "] {
        if lower.starts_with(opener)
            && let Some(colon) = lower.find(':')
        {
            return Some((&text[opener.len()..colon], &text[colon + 1..], 1));
        }
    }
    if let Some(rest) = lower.strip_prefix("to ") {
        let at = rest.find(", you ").map(|i| (i, 6)).or_else(|| rest.find(" you ").map(|i| (i, 5)));
        if let Some((i, skip)) = at {
            let title = &text[3..3 + i];
            let mut body = &text[3 + i + skip..];
            for filler in ["need to ", "have to ", "should ", "must ", "just ", "can "] {
                if body.to_ascii_lowercase().starts_with(filler) {
                    body = &body[filler.len()..];
                }
            }
            return Some((title, body, 1));
        }
    }
    let colon = lower.find(": ")?;
    let title = &text[..colon];
    (title.split_whitespace().count() <= 8).then_some((title, &text[colon + 2..], 2))
}

/// "Xの手順は、…" (and のやり方, の方法, …), "Xを回すには、…".
fn japanese(text: &str) -> Option<(&str, &str, usize)> {
    for name in JA_NAMES {
        if let Some(i) = text.find(name) {
            let end = i + name.len();
            let rest = &text[end..];
            for sep in ["は、", "は：", "は:", "：", ":", "、", "は"] {
                if let Some(body) = rest.strip_prefix(sep) {
                    return Some((&text[..end], body, 2));
                }
            }
        }
    }
    // "…を回すには、…": the verb before には names the procedure.
    let i = text.find("には、")?;
    let body = &text[i + "には、".len()..];
    Some((&text[..i], body, 2))
}

/// Cuts a body at inline numbers ("1. bump 2. tag 3. push") when it starts with `1.` or `1)`.
fn numbered(body: &str) -> Option<Vec<String>> {
    let body = body.trim();
    let mark = ['.', ')'].into_iter().find(|m| body.starts_with(&format!("1{m} ")))?;
    let mut out = Vec::new();
    let mut rest = &body[3..];
    for n in 2.. {
        let next = format!(" {n}{mark} ");
        match rest.find(&next) {
            Some(i) => {
                out.push(rest[..i].to_owned());
                rest = &rest[i + next.len()..];
            }
            None => break,
        }
    }
    out.push(rest.to_owned());
    Some(out)
}

/// Cuts a body at inline numbers or at the sequence words, dropping "first"/"まず" and
/// trailing punctuation.
fn steps(body: &str) -> Vec<String> {
    let mut parts = numbered(body).unwrap_or_else(|| vec![body.to_owned()]);
    for sep in THEN {
        parts = parts
            .into_iter()
            .flat_map(|p| {
                let lower = p.to_ascii_lowercase();
                let mut out = Vec::new();
                let mut from = 0;
                while let Some(i) = lower[from..].find(sep) {
                    out.push(p[from..from + i].to_owned());
                    from += i + sep.len();
                }
                out.push(p[from..].to_owned());
                out
            })
            .collect();
    }
    parts
        .into_iter()
        .map(|p| {
            let mut t = p.trim().trim_start_matches(['、', '，']).trim();
            for word in FIRST {
                if t.to_ascii_lowercase().starts_with(word) {
                    t = t[word.len()..].trim_start_matches(['、', ',', ' ']);
                }
            }
            t.trim_end_matches(['.', '。', ',', '、', ';']).trim().to_owned()
        })
        .filter(|s| !s.is_empty())
        .collect()
}

/// The text with its first letter in upper case (titles read as headings).
fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn got(text: &str) -> Option<(String, Vec<String>)> {
        split(text).map(|h| (h.title, h.steps))
    }

    #[test]
    fn one_sentence_how_tos() {
        let cases: &[(&str, &str, &[&str])] = &[
            (
                "how to clear the cache: open settings, then storage, then tap clear",
                "Clear the cache",
                &["open settings", "storage", "tap clear"],
            ),
            (
                "to renew the certificate you run certbot renew, then reload nginx",
                "Renew the certificate",
                &["run certbot renew", "reload nginx"],
            ),
            (
                "To undo the last commit, you just run git reset --soft HEAD~1.",
                "Undo the last commit",
                &["run git reset --soft HEAD~1"],
            ),
            (
                "how to release: 1. bump the version 2. tag 3. push",
                "Release",
                &["bump the version", "tag", "push"],
            ),
            (
                "Release: bump the version; tag it; then push",
                "Release",
                &["bump the version", "tag it", "push"],
            ),
            (
                "バックアップの手順は、まずDBを止めて、次にスナップショットを取る。",
                "バックアップの手順",
                &["DBを止めて", "スナップショットを取る"],
            ),
            (
                "ローカルで結合テストを回すには、先にDBを起動して、それからmake test-int",
                "ローカルで結合テストを回す",
                &["先にDBを起動して", "make test-int"],
            ),
        ];
        for (text, title, steps) in cases {
            let want = Some(((*title).to_owned(), steps.iter().map(|s| (*s).to_owned()).collect()));
            assert_eq!(got(text), want, "text: {text:?}");
        }
    }

    #[test]
    fn other_shapes_are_left_to_the_caller() {
        for text in [
            "",
            "1. bump\n2. tag",
            "Deploys go out on Fridays",
            "how to clear the cache",
            "バックアップは毎日とる",
            // Shapes that need two steps to count as a how-to.
            "note: the printer is on floor 2",
            "バックアップの手順は大事",
        ] {
            assert_eq!(got(text), None, "text: {text:?}");
        }
    }

    #[test]
    fn never_panics_on_odd_input() {
        for text in
            ["to you ", "how to :", ": ", "の手順は", "するには", "to  you x", "é: a then b"]
        {
            let _ = split(text);
        }
    }
}
