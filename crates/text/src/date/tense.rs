//! The tense of the clause a weekday is said in, which decides which Friday "on Friday" is:
//! "I met Bob on Tuesday" is the Tuesday just past, "the standup is on Tuesday" the coming one.
//!
//! A small word test, not a parser: a clause is past when it holds a past form (`met`, `was`,
//! `didn't`, a verb in `-ed`) and no present or future one (`is`, `will`, `'m`, `can`, `going`);
//! present or future when it holds one of those and no past form, or neither (a note such as
//! "standup on Tuesday" is a plan); mixed when it holds both ("I said I will call on Friday"),
//! and then no date is written, since a wrong date is worse than none. A past form right after
//! `be`, `get` and their forms is a participle ("the room is booked", "we're getting married"),
//! not a past. Invariant: pure; English only (Japanese says its week: `先週の金曜日`).

/// What the words around a weekday say about when it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tense {
    /// Said of the past: the most recent such day.
    Past,
    /// Said of the present or the future, or with no verb at all: the coming such day.
    Coming,
    /// Both: no date.
    Mixed,
}

/// Irregular simple pasts (and past negations) that are not also present forms.
const PAST: &[&str] = &[
    "was",
    "were",
    "did",
    "had",
    "wasn't",
    "weren't",
    "didn't",
    "hadn't",
    "went",
    "met",
    "paid",
    "saw",
    "said",
    "told",
    "came",
    "got",
    "gave",
    "made",
    "took",
    "left",
    "bought",
    "brought",
    "sent",
    "ate",
    "drank",
    "wrote",
    "spoke",
    "found",
    "lost",
    "ran",
    "sold",
    "thought",
    "felt",
    "kept",
    "began",
    "broke",
    "chose",
    "flew",
    "forgot",
    "heard",
    "knew",
    "spent",
    "won",
    "wore",
    "sat",
    "stood",
    "slept",
    "drove",
    "rode",
    "fell",
    "caught",
    "taught",
    "fought",
    "held",
    "built",
    "became",
    "swam",
    "sang",
    "rang",
    "threw",
    "grew",
    "drew",
    "hid",
    "led",
    "fed",
    "meant",
    "laid",
    "lent",
    "dealt",
    "sought",
    "struck",
    "woke",
    "shook",
    "understood",
    "gone",
    "done",
    "seen",
    "been",
];

/// Words in `-ed` that are no past: nouns, adjectives and verbs whose stem ends so.
const NOT_PAST_ED: &[&str] = &[
    "need", "needed", "seed", "feed", "weed", "deed", "heed", "reed", "greed", "speed", "breed",
    "bleed", "shred", "embed", "hundred", "sacred", "naked", "wicked", "kindred", "indeed",
    "proceed", "succeed", "exceed", "shed", "sled", "red", "bed", "wed", "ted", "ned", "fred",
];

/// Present and future forms: auxiliaries, modals and `going` (to).
const COMING: &[&str] = &[
    "is",
    "are",
    "am",
    "i'm",
    "you're",
    "we're",
    "they're",
    "it's",
    "he's",
    "she's",
    "that's",
    "there's",
    "isn't",
    "aren't",
    "will",
    "i'll",
    "you'll",
    "we'll",
    "they'll",
    "he'll",
    "she'll",
    "it'll",
    "shall",
    "won't",
    "gonna",
    "going",
    "can",
    "can't",
    "cannot",
    "must",
    "should",
    "shouldn't",
    "would",
    "wouldn't",
    "i'd",
    "we'd",
    "may",
    "might",
    "do",
    "does",
    "don't",
    "doesn't",
    "let's",
    "plan",
    "plans",
    "want",
    "wants",
];

/// After these a past form is a participle: "is booked", "getting married".
const BE_OR_GET: &[&str] = &[
    "is", "are", "am", "i'm", "you're", "we're", "they're", "it's", "he's", "she's", "be", "being",
    "been", "get", "gets", "getting", "isn't", "aren't", "not", "already",
];

fn is_past(word: &str) -> bool {
    PAST.contains(&word)
        || (word.len() >= 4 && word.ends_with("ed") && !NOT_PAST_ED.contains(&word))
}

/// The tense of `words` (lower case, `’` read as `'`).
fn of_words(words: &[String]) -> Option<Tense> {
    let (mut past, mut coming) = (false, false);
    for (i, w) in words.iter().enumerate() {
        if COMING.contains(&w.as_str()) {
            coming = true;
        } else if is_past(w) && !(i > 0 && BE_OR_GET.contains(&words[i - 1].as_str())) {
            past = true;
        }
    }
    match (past, coming) {
        (true, true) => Some(Tense::Mixed),
        (true, false) => Some(Tense::Past),
        (false, true) => Some(Tense::Coming),
        (false, false) => None,
    }
}

fn words_of(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '\'' || c == '’'))
        .map(|w| w.trim_matches(['\'', '’']).replace('’', "'").to_ascii_lowercase())
        .filter(|w| !w.is_empty())
        .collect()
}

/// The tense of the clause around the byte range `at` of `text` (an expression found there).
///
/// The clause runs to the nearest `,`, `;`, `:`, `and`, `but` or `then` on either side, inside
/// the sentence; when it has no verb form of either kind, the whole sentence decides.
pub(crate) fn around(text: &str, at: std::ops::Range<usize>) -> Tense {
    let sentence_ends = ['.', '!', '?', '\n'];
    let start = text[..at.start].rfind(sentence_ends).map_or(0, |i| i + 1);
    let end = text[at.end..].find(sentence_ends).map_or(text.len(), |i| at.end + i);
    let (before, after) = (words_of(&text[start..at.start]), words_of(&text[at.end..end]));
    let clause_marks = [',', ';', ':'];
    let is_joint = |w: &String| matches!(w.as_str(), "and" | "but" | "then");
    let clause_start = text[start..at.start].rfind(clause_marks).map_or(start, |i| start + i + 1);
    let clause_end = text[at.end..end].find(clause_marks).map_or(end, |i| at.end + i);
    let mut clause = words_of(&text[clause_start..at.start]);
    if let Some(j) = clause.iter().rposition(is_joint) {
        clause.drain(..=j);
    }
    let mut tail = words_of(&text[at.end..clause_end]);
    if let Some(j) = tail.iter().position(is_joint) {
        tail.truncate(j);
    }
    clause.extend(tail);
    if let Some(t) = of_words(&clause) {
        return t;
    }
    let mut sentence = before;
    sentence.extend(after);
    of_words(&sentence).unwrap_or(Tense::Coming)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_tense_around_a_weekday() {
        let cases = [
            ("User met Bob on Tuesday", Tense::Past),
            ("I met Bob on Tuesday", Tense::Past),
            ("We paid the deposit on Wednesday", Tense::Past),
            ("Alice called on Thursday", Tense::Past),
            ("we didn’t go on Monday", Tense::Past),
            ("it was cold on Monday", Tense::Past),
            ("the standup is on Tuesday", Tense::Coming),
            ("standup on Tuesday", Tense::Coming),
            ("Alice starts on Monday", Tense::Coming),
            ("we'll freeze the API on Friday", Tense::Coming),
            ("I'm getting married on Saturday", Tense::Coming),
            ("the room is booked on Friday", Tense::Coming),
            ("I need to call on Friday", Tense::Coming),
            ("I said I will call on Friday", Tense::Mixed),
            ("I met Bob, we will meet again on Friday", Tense::Coming),
            ("I met Bob on Tuesday and will see him on Friday", Tense::Past),
            ("We paid, as agreed, the deposit on Wednesday", Tense::Past),
        ];
        for (input, want) in cases {
            let at = input.find("on ").expect("each case has one weekday");
            let day = input[at + 3..].split(|c: char| !c.is_alphabetic()).next().unwrap();
            let end = at + 3 + day.len();
            assert_eq!(around(input, at..end), want, "input: {input:?}");
        }
        let text = "I met Bob on Tuesday and will see him on Friday";
        let at = text.rfind("on ").unwrap();
        assert_eq!(around(text, at..text.len()), Tense::Coming);
    }
}
