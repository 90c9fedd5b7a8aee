//! Where a query's words occur in a text, for adapters that show matches (the web view's
//! search page): the same analyzer as the index ([`super::analyzer`]), so a match shown is a
//! match searched — stemming (`walks` shows under `walking`) and CJK character pairs included.
//! Pure: no I/O. It returns plain pieces of the text; escaping them is the renderer's job.

use std::collections::BTreeSet;

use tantivy::tokenizer::TokenStream;

use super::analyzer;

/// Splits `text` into consecutive pieces `(piece, is_match)` that together are exactly `text`:
/// the runs whose analyzed words are among `query`'s, and the text between them.
///
/// Overlapping and touching matches (CJK pairs overlap) are merged into one piece. A query with
/// no words gives the whole text as one piece that does not match.
pub fn highlight(text: &str, query: &str) -> Vec<(String, bool)> {
    let wanted: BTreeSet<String> = analyzer::terms(query).into_iter().collect();
    let mut ranges: Vec<(usize, usize)> = Vec::new();
    if !wanted.is_empty() {
        let mut a = analyzer::analyzer();
        let mut stream = a.token_stream(text);
        while let Some(t) = stream.next() {
            if !wanted.contains(&t.text) {
                continue;
            }
            match ranges.last_mut() {
                Some(last) if t.offset_from <= last.1 => last.1 = last.1.max(t.offset_to),
                _ => ranges.push((t.offset_from, t.offset_to)),
            }
        }
    }
    let mut out = Vec::new();
    let mut at = 0;
    for (from, to) in ranges {
        if from > at {
            out.push((text[at..from].to_owned(), false));
        }
        out.push((text[from..to].to_owned(), true));
        at = to;
    }
    if at < text.len() || out.is_empty() {
        out.push((text[at..].to_owned(), false));
    }
    out
}

/// The lines of `text` a reader wants in a list of hits: without the metadata comments
/// (`<!-- … -->` lines) and headings of an entity or procedure file, and without bullet markers.
pub fn readable(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty()
            || line.starts_with('#')
            || line.starts_with("<!--") && line.ends_with("-->")
        {
            continue;
        }
        let (bullet, line) = match line.strip_prefix("- ") {
            Some(rest) => (true, rest),
            None => (false, line),
        };
        if !out.is_empty() {
            out.push_str(if bullet { " · " } else { " " });
        }
        out.push_str(line);
    }
    if out.is_empty() { text.to_owned() } else { out }
}

/// Like [`highlight`] on `text` made one line (metadata comments, headings and bullet markers
/// left out), cut to about `width` characters around the first match (the start when nothing
/// matches), with `…` where text was left out: the short form a list of hits shows.
pub fn excerpt(text: &str, query: &str, width: usize) -> Vec<(String, bool)> {
    let one = cogmem_text::markdown::one_line(&readable(text));
    let pieces = highlight(&one, query);
    let chars = |p: &(String, bool)| p.0.chars().count();
    let total: usize = pieces.iter().map(chars).sum();
    if total <= width {
        return pieces;
    }
    let before: usize = pieces.iter().take_while(|p| !p.1).map(chars).sum();
    // Start a quarter of the width before the first match, so it shows with what leads to it.
    let start = before.saturating_sub(width / 4).min(total - width);
    let end = start + width;
    let mut out = Vec::new();
    if start > 0 {
        out.push(("…".to_owned(), false));
    }
    let mut at = 0;
    for (piece, hit) in pieces {
        let n = piece.chars().count();
        let (from, to) = (start.max(at), end.min(at + n));
        if from < to {
            out.push((piece.chars().skip(from - at).take(to - from).collect(), hit));
        }
        at += n;
    }
    if end < total {
        out.push(("…".to_owned(), false));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str, query: &str) -> String {
        highlight(text, query)
            .into_iter()
            .map(|(p, hit)| if hit { format!("[{p}]") } else { p })
            .collect()
    }

    #[test]
    fn marks_query_words_and_keeps_the_text_whole() {
        let cases = [
            ("Alice walks to Lisbon", "walking lisbon", "Alice [walks] to [Lisbon]"),
            ("no match here", "zebra", "no match here"),
            ("the cat", "the", "the cat"), // stop words are not searched, so not marked
            ("東京都に住む", "京都", "東[京都]に住む"),
            ("東京都に住む", "東京都", "[東京都]に住む"),
            ("<script>alert(1)</script>", "script", "<[script]>alert(1)</[script]>"),
            ("", "x", ""),
            ("text", "", "text"),
        ];
        for (text, query, want) in cases {
            assert_eq!(marked(text, query), want, "text: {text:?} query: {query:?}");
            let whole: String = highlight(text, query).into_iter().map(|(p, _)| p).collect();
            assert_eq!(whole, text, "text: {text:?}");
        }
    }

    #[test]
    fn an_excerpt_leaves_out_an_entity_files_metadata_and_headings() {
        let file = "# person--grace\n<!-- Type: person | Created: 2027-01-06 -->\n\n## Summary\n\n\
                    ## Facts\n\n- Grace reviews Atlas releases\n- Grace works at Initech\n\n\
                    ## Relations\n\n- works-on: [[project--atlas]]\n";
        let got: String = excerpt(file, "atlas", 200).into_iter().map(|p| p.0).collect();
        assert_eq!(
            got,
            "Grace reviews Atlas releases · Grace works at Initech · works-on: [[project--atlas]]"
        );
        // Only headings and comments: the text as it is.
        let bare: String = excerpt("# only a title", "x", 40).into_iter().map(|p| p.0).collect();
        assert_eq!(bare, "# only a title");
    }

    #[test]
    fn cuts_an_excerpt_around_the_first_match() {
        let text = format!("{} Lisbon {}", "a ".repeat(100), "b ".repeat(100));
        let got: String = excerpt(&text, "lisbon", 40)
            .into_iter()
            .map(|(p, hit)| if hit { format!("[{p}]") } else { p })
            .collect();
        assert_eq!(got, "…a a a a a [Lisbon] b b b b b b b b b b b b…");
        let short: Vec<(String, bool)> = excerpt("short\ntext", "x", 40);
        assert_eq!(short, [("short text".to_owned(), false)]);
    }
}
