//! Finding the people a text names by their role to the user, in English ("my sister Hana",
//! "Dr. Suzuki is my dentist", "our CTO") and Japanese ("妹のハナ", "上司の田中さん",
//! "鈴木先生は私の歯医者です"), with the honorifics left out of their names. Bounded patterns
//! around the role words of [`super`]; no I/O.

use super::{
    EN_ROLE_ADJECTIVES, JA_HONORIFICS, Role, en_role_prefix, is_honorific, ja_role_at,
    strip_ja_honorific,
};

/// A name in the text, with its byte range; `titled` when an honorific went before or after
/// it ("Dr. Suzuki", "田中さん"), which makes it someone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The name as written, honorific left out.
    pub text: String,
    /// Byte offset of its start.
    pub start: usize,
    /// Byte offset of its end.
    pub end: usize,
    /// Whether an honorific went with it.
    pub titled: bool,
}

/// Someone the text names by their role to the user: "my sister Hana", "Dr. Suzuki is my
/// dentist", "our CTO", "妹のハナ", "上司の田中さん"; `name` is `None` when the text gives no
/// name ("my dentist moved").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// The role.
    pub role: &'static Role,
    /// The person's name, if the text gives it.
    pub name: Option<Span>,
    /// Byte offset where the role word ends.
    pub end: usize,
}

/// Finds the people `content` names by their role to the user, in English and Japanese, in
/// text order. `is_name_word` tells whether a capitalised English word can be part of a name
/// (it is not "The", "Monday", …).
pub fn mentions(content: &str, is_name_word: &dyn Fn(&str) -> bool) -> Vec<Mention> {
    let mut out = en_mentions(content, is_name_word);
    out.extend(ja_mentions(content));
    out
}

/// Words after a role that say the role itself is the subject ("my sister lives …"), so a
/// role without a name is still someone; any other word makes the role a modifier ("my doctor
/// appointment", "my student loan").
#[rustfmt::skip]
const EN_SUBJECT_VERBS: &[&str] = &[
    "is", "was", "has", "had", "will", "would", "can", "could", "should", "must", "and", "who",
    "just", "always", "never", "also", "still", "said", "says", "told", "tells", "thinks", "wants",
    "likes", "loves", "hates", "prefers", "lives", "works", "moved", "called", "named",
    "recommended", "suggested", "asked", "gave", "got", "bought", "visited", "does", "did",
];

fn en_mentions(content: &str, is_name_word: &dyn Fn(&str) -> bool) -> Vec<Mention> {
    let lower = content.to_ascii_lowercase(); // same byte offsets as `content`
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(i) = find_possessive(&lower, from) {
        let (at, len) = i;
        from = at + len;
        let mut q = at + len;
        if let Some(adj) = EN_ROLE_ADJECTIVES
            .iter()
            .find(|a| lower[q..].starts_with(*a) && lower[q + a.len()..].starts_with(' '))
            && en_role_prefix(&lower[q..]).is_none()
        {
            q += adj.len() + 1;
        }
        let Some((role, rlen)) = en_role_prefix(&lower[q..]) else { continue };
        let role_end = q + rlen;
        from = role_end;
        let name = name_after(content, &lower, role_end, is_name_word, true)
            .or_else(|| name_before(content, &lower, at, is_name_word))
            .or_else(|| name_after(content, &lower, role_end, is_name_word, false));
        if name.is_none() && !is_role_subject(&lower[role_end..]) {
            continue;
        }
        out.push(Mention { role, name, end: role_end });
    }
    out
}

/// The next "my " or "our " at a word start, from byte `from`: (offset, length).
fn find_possessive(lower: &str, from: usize) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for w in ["my ", "our "] {
        let mut f = from;
        while let Some(i) = lower[f..].find(w) {
            let at = f + i;
            if lower[..at].chars().next_back().is_none_or(|c| !c.is_alphanumeric() && c != '\'') {
                if best.is_none_or(|(b, _)| at < b) {
                    best = Some((at, w.len()));
                }
                break;
            }
            f = at + w.len();
        }
    }
    best
}

fn is_role_subject(rest: &str) -> bool {
    let rest = rest.trim_start_matches(['\'', '’']);
    if rest.starts_with('s') && !rest[1..].starts_with(|c: char| c.is_alphanumeric()) {
        return true; // my sister's …
    }
    let rest = rest.trim_start();
    let word: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '\'').collect();
    word.is_empty()
        || EN_SUBJECT_VERBS.contains(&word.as_str())
        || word.ends_with("ed") && word.len() > 3
}

/// The name right after a role: "my sister Hana", "my sister, Hana", "my sister's name is
/// Hana", "my dentist is called Dr. Suzuki"; with `close` false, also "my dentist is Dr.
/// Suzuki".
fn name_after(
    content: &str,
    lower: &str,
    role_end: usize,
    is_name_word: &dyn Fn(&str) -> bool,
    close: bool,
) -> Option<Span> {
    let rest = &lower[role_end..];
    let connectors: &[&str] = if close {
        &[
            "'s name is ",
            "’s name is ",
            "'s name's ",
            " is called ",
            " is named ",
            " was called ",
            ", called ",
            ", named ",
            " called ",
            " named ",
            ", ",
            " (",
            " ",
        ]
    } else {
        &[" is ", " was "]
    };
    let c = connectors.iter().find(|c| rest.starts_with(**c))?;
    let span = capitalised_run(content, role_end + c.len(), is_name_word)?;
    // "my sister Hana" but not "my manager Slack-messaged me": the name is a whole word run.
    Some(span)
}

/// The name right before "is my ROLE" / ", my ROLE" / "(my ROLE)".
fn name_before(
    content: &str,
    lower: &str,
    at: usize,
    is_name_word: &dyn Fn(&str) -> bool,
) -> Option<Span> {
    let pre = &lower[..at];
    let c = [" is ", " was ", ", ", " ("].into_iter().find(|c| pre.ends_with(c))?;
    capitalised_run_before(content, at - c.len(), is_name_word)
}

/// The run of capitalised words that starts at byte `at` (after any honorific), if any.
fn capitalised_run(content: &str, at: usize, is_name_word: &dyn Fn(&str) -> bool) -> Option<Span> {
    let mut titled = false;
    let mut start = None;
    let mut end = at;
    let mut pos = at;
    for word in content[at..].split_inclusive(' ') {
        let w_start = pos;
        pos += word.len();
        let core = word.trim_end_matches(' ');
        let bare = core.trim_end_matches([',', '.', ';', ':', '!', '?', ')']);
        let bare = bare.strip_suffix("'s").or_else(|| bare.strip_suffix("’s")).unwrap_or(bare);
        if start.is_none() && is_honorific(core.trim_end_matches(',')) {
            titled = true;
            continue;
        }
        if bare.chars().next().is_some_and(char::is_uppercase) && is_name_word(bare) {
            start.get_or_insert(w_start);
            end = w_start + bare.len();
            if bare.len() != core.len() {
                break; // punctuation or a possessive ends the name
            }
        } else {
            break;
        }
    }
    let start = start?;
    Some(Span { text: content[start..end].to_owned(), start, end, titled })
}

/// The run of capitalised words that ends at byte `end`, with a leading honorific left out.
fn capitalised_run_before(
    content: &str,
    end: usize,
    is_name_word: &dyn Fn(&str) -> bool,
) -> Option<Span> {
    let mut start = end;
    let mut titled = false;
    for word in content[..end].rsplit(' ') {
        if word.is_empty() {
            break;
        }
        if is_honorific(word) {
            titled = true;
            break;
        }
        if word.chars().next().is_some_and(char::is_uppercase)
            && is_name_word(word)
            && word.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '\'')
        {
            start -= word.len() + usize::from(start != end);
        } else {
            break;
        }
    }
    (start < end).then(|| Span { text: content[start..end].to_owned(), start, end, titled })
}

fn is_kanji(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x3005)
}

fn is_katakana(c: char) -> bool {
    matches!(c as u32, 0x30A1..=0x30FA | 0x30FC)
}

/// Particles and marks that may follow a Japanese role word: it stands alone there.
#[rustfmt::skip]
const JA_AFTER: &[&str] = &[
    "の", "は", "が", "も", "と", "に", "を", "で", "へ", "や", "から", "、", "。", "！", "？", " ", "　", "です",
    "だ",
];

/// Katakana words that follow "の" or "は" often and are not names.
#[rustfmt::skip]
const JA_NOT_NAMES: &[&str] = &[
    "ケーキ", "プレゼント", "パソコン", "スマホ", "メール", "カメラ", "ペット", "エンジニア", "デザイナー", "マネージャー", "プログラマー",
    "アパート", "マンション", "レストラン", "カフェ", "パーティー", "ピアノ", "ギター", "テニス", "サッカー", "ゲーム", "チーム", "プロジェクト",
    "ミーティング", "アイデア", "アドバイス", "クラス", "レッスン", "ホテル", "ドイツ", "アメリカ", "フランス", "イギリス", "ロンドン", "パリ",
    "ニューヨーク", "オフィス", "ビル", "ジム",
];

fn ja_mentions(content: &str) -> Vec<Mention> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < content.len() {
        let Some(c) = content[i..].chars().next() else { break };
        let prev = content[..i].chars().next_back();
        let starts_word = prev.is_none_or(|p| !is_kanji(p) && !is_katakana(p));
        let role = if starts_word { ja_role_at(content, i) } else { None };
        let Some(role) = role else {
            i += c.len_utf8();
            continue;
        };
        let end = i + role.word.len();
        let rest = &content[end..];
        i = end;
        if !(rest.is_empty() || JA_AFTER.iter().any(|p| rest.starts_with(p))) {
            continue; // part of a longer word: 母国, 父親似
        }
        let name = ["の名前は", "の名前が", "の名は"]
            .iter()
            .find_map(|c| rest.strip_prefix(c).map(|r| (end + c.len(), r)))
            .and_then(|(at, _)| ja_name_at(content, at, true))
            .or_else(|| {
                rest.strip_prefix("の").and_then(|_| ja_name_at(content, end + "の".len(), false))
            })
            .or_else(|| {
                rest.strip_prefix("は")
                    .and_then(|_| ja_name_at(content, end + "は".len(), false))
                    .filter(|n| ja_ends_sentence(&content[n.end..]))
            })
            .or_else(|| {
                ja_ends_sentence(rest)
                    .then(|| ja_name_before(content, i - role.word.len()))
                    .flatten()
            });
        out.push(Mention { role, name, end });
    }
    out
}

fn ja_ends_sentence(rest: &str) -> bool {
    let rest = rest.trim_start_matches(' ');
    rest.is_empty()
        || ["です", "だ", "。", "でした", "！", "、"].iter().any(|p| rest.starts_with(p))
}

/// A Japanese (or Latin) name at byte `at`: a katakana run (not a common noun), or a kanji
/// run with an honorific, or a capitalised Latin word; with `any`, a bare kanji run too
/// ("妹の名前は花").
fn ja_name_at(content: &str, at: usize, any: bool) -> Option<Span> {
    let rest = &content[at..];
    let first = rest.chars().next()?;
    let run: String = if is_katakana(first) {
        rest.chars().take_while(|c| is_katakana(*c) || *c == '・').collect()
    } else if is_kanji(first) {
        rest.chars().take_while(|c| is_kanji(*c)).collect()
    } else if first.is_ascii_uppercase() {
        rest.chars().take_while(|c| c.is_ascii_alphabetic() || *c == '-').collect()
    } else {
        return None;
    };
    let after = &rest[run.len()..];
    let (bare, mut titled) = strip_ja_honorific(&run);
    let mut end = at + run.len();
    if !titled && let Some(h) = JA_HONORIFICS.iter().find(|h| after.starts_with(**h)) {
        titled = true;
        end += h.len();
    }
    let after = &content[end..];
    let bounded = after.is_empty() || JA_AFTER.iter().any(|p| after.starts_with(p));
    let ok = bounded
        && !bare.is_empty()
        && (titled || any || !is_kanji(first))
        && !JA_NOT_NAMES.contains(&bare)
        && bare.chars().count() >= 2 - usize::from(titled);
    ok.then(|| Span { text: bare.to_owned(), start: at, end: at + bare.len(), titled })
}

/// The name before "は(私の)?ROLE": "ハナは妹です", "鈴木先生は私の歯医者です".
fn ja_name_before(content: &str, role_at: usize) -> Option<Span> {
    let mut pre = &content[..role_at];
    for p in ["私の", "僕の", "俺の", "うちの", "わたしの", "ぼくの"] {
        if let Some(x) = pre.strip_suffix(p) {
            pre = x;
            break;
        }
    }
    let pre = pre.strip_suffix("は")?;
    let mut honorific = "";
    let mut body = pre;
    for h in JA_HONORIFICS {
        if let Some(x) = pre.strip_suffix(h)
            && !x.is_empty()
        {
            honorific = h;
            body = x;
            break;
        }
    }
    let last = body.chars().next_back()?;
    let take = |f: fn(char) -> bool| -> usize {
        body.chars().rev().take_while(|c| f(*c)).map(char::len_utf8).sum()
    };
    let len = if is_katakana(last) {
        take(is_katakana)
    } else if is_kanji(last) && !honorific.is_empty() {
        take(is_kanji)
    } else if last.is_ascii_alphabetic() {
        take(|c| c.is_ascii_alphabetic())
    } else {
        return None;
    };
    let start = body.len() - len;
    let text = &body[start..];
    let ok = !JA_NOT_NAMES.contains(&text)
        && (text.chars().count() >= 2 || !honorific.is_empty())
        && (!last.is_ascii_alphabetic() || text.starts_with(|c: char| c.is_ascii_uppercase()));
    ok.then(|| Span {
        text: text.to_owned(),
        start,
        end: body.len(),
        titled: !honorific.is_empty(),
    })
}

/// Where someone named at byte `after` lives, in Japanese: "(さん)は京都に住んでいる",
/// "…は大阪に引っ越した" → the place's name. Only the place right after the subject's は.
pub fn ja_home_after(content: &str, after: usize) -> Option<String> {
    let mut rest = &content[after..];
    if let Some(h) = JA_HONORIFICS.iter().find(|h| rest.starts_with(**h)) {
        rest = &rest[h.len()..];
    }
    let rest = rest.strip_prefix("は").or_else(|| rest.strip_prefix("が"))?;
    let place: String = rest.chars().take_while(|c| is_kanji(*c) || is_katakana(*c)).collect();
    let tail = &rest[place.len()..];
    let lives = ["に住んで", "に住む", "に住みます", "に引っ越し", "に移り住"];
    (!place.is_empty() && lives.iter().any(|p| tail.starts_with(p))).then_some(place)
}
