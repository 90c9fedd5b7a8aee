//! Requests that stand as their own clause anywhere in a message, not only at its start (issue
//! 18, round 6): "…。覚えておいていただけますか。", "念のため記録をお願いします。…",
//! "今後のために覚えておいてほしいんですが、…", "vaultに入れておいて：…", "… note that". The request
//! is a keeping stem (覚えて, メモ, 記録, 保存, 控えて, vaultに入れて) and a request form (ておいて,
//! ていただけますか, をお願いします, てほしい, して) with nothing else in its clause; the rest of the
//! message is what to keep. Also here: the polite and end-placed shapes of recall, forget and
//! reflect that the phrase rules miss, and the guards that keep code instructions ("don't forget
//! to close the socket"), the user's own forgetting (思い出せない) and device settings
//! (おやすみモード) ordinary messages.

use super::{Span, Text, Trigger, TriggerKind, find_word, hit, in_quotes, sl, trim_content};

/// Keeping stems, each ending where a request form may follow.
const JA_STEMS: &[&str] = &[
    "覚えて",
    "覚えといて",
    "記録しといて",
    "控えといて",
    "メモして",
    "メモって",
    "メモ",
    "記録して",
    "記録",
    "保存して",
    "控えて",
    "記憶して",
    "vaultに入れて",
    "vault に入れて",
    "金庫に入れて",
];

/// Request forms after a stem: the whole rest of the clause must be one of these.
const JA_FORMS: &[&str] = &[
    "",
    "おいて",
    "おいてね",
    "おいてください",
    "おいて下さい",
    "おいていただけますか",
    "おいていただけませんか",
    "おいてもらえますか",
    "おいてもらえる",
    "おいてくれる",
    "おいてほしい",
    "おいてほしいんですが",
    "おいてほしいんだけど",
    "おいて欲しいんですが",
    "いただけますか",
    "もらえますか",
    "ください",
    "ほしい",
    "ほしいんですが",
    "ほしいんだけど",
    "をお願いします",
    "をお願いできますか",
    "をお願い",
    "お願いします",
    "お願いできますか",
    "を頼む",
    "しておいて",
    "しておいてください",
    "しといて",
];

/// Words that lead a keeping request without adding content: a purpose or a caution.
const JA_LEADS: &[&str] = &[
    "念のため",
    "念のために",
    "一応",
    "今後のために",
    "忘れないように",
    "あとで使うから",
    "じゃあ",
    "あと",
    "それと",
];

/// Sentences that carry no content: greetings and sign-offs of a business message.
const JA_COURTESY: &[&str] = &[
    "お世話になっております",
    "お疲れ様です",
    "お疲れさまです",
    "よろしくお願いします",
    "よろしくお願いいたします",
    "ありがとうございます",
];

/// Content that names a file to save, not something to keep in memory.
const JA_FILE: &[&str] =
    &["ファイル", "フォルダ", "画像", "スクショ", "このページ", "この文書", ".md", ".txt"];

/// Words that make a sentence a standing rule (必ず…てください).
const JA_STANDING: &[&str] = &["必ず", "いつも", "常に", "絶対", "今後", "これから", "毎回"];

/// Clauses of a message: split at sentence ends, a colon, and a comma after a clause that ends
/// in a request form (覚えておいてほしいんですが、…).
fn ja_clauses(s: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        if matches!(c, '。' | '！' | '!' | '？' | '?' | '\n' | ':' | '、' | ',') {
            out.push((start, i));
            start = i + c.len_utf8();
        }
    }
    out.push((start, s.len()));
    out.into_iter().filter(|(a, b)| !s[*a..*b].trim().is_empty()).collect()
}

/// The clause with its leads dropped, when it is nothing but a keeping request: the stem used.
fn ja_keep_clause(clause: &str) -> Option<&'static str> {
    let mut body = clause.trim().trim_end_matches(['ね', 'よ', ' ', '〜', 'ー']);
    loop {
        let before = body;
        for l in JA_LEADS {
            body = body.strip_prefix(l).unwrap_or(body).trim_start_matches(['、', ' ']);
        }
        if body == before {
            break;
        }
    }
    JA_STEMS.iter().copied().find(|stem| {
        body.strip_prefix(stem).is_some_and(|rest| {
            let rest = rest.trim_end_matches(['か', ' ']).trim_end_matches(['ね', 'よ']);
            let rest = plain_form(rest);
            JA_FORMS.iter().any(|f| f.trim_end_matches('か') == rest)
                // メモ or 記録 alone is a noun, not a request.
                && (!rest.is_empty() || stem.ends_with('て'))
        })
    })
}

/// A request form with its softeners dropped: 覚えておいてくれると助かるんだけど asks as
/// 覚えておいて does; 覚えといて欲しいのは as 覚えといてほしい.
fn plain_form(rest: &str) -> &str {
    let mut r = rest;
    for tail in [
        "んですが",
        "んだけど",
        "のですが",
        "けど",
        "です",
        "のは",
        "ことがあります",
        "ことがある",
        "ことがあって",
    ] {
        r = r.strip_suffix(tail).unwrap_or(r);
    }
    for glad in ["助かる", "嬉しい", "うれしい", "ありがたい", "幸い"] {
        if let Some(x) = r.strip_suffix(glad) {
            for by in ["くれると", "もらえると", "いただけると"] {
                if let Some(y) = x.strip_suffix(by) {
                    return y;
                }
            }
        }
    }
    r.strip_suffix("欲しい").map_or(r, |x| if x.is_empty() { "ほしい" } else { x })
}

/// A Japanese keeping request standing as its own clause anywhere in the message; the rest of
/// the message, greetings dropped, is what to keep.
pub(super) fn ja_keep_anywhere(text: &Text<'_>) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    if !s.chars().any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF)) {
        return None;
    }
    let clauses = ja_clauses(s);
    let (k, (a, b), stem) = clauses
        .iter()
        .enumerate()
        .find_map(|(k, &(a, b))| ja_keep_clause(&s[a..b]).map(|st| (k, (a, b), st)))?;
    if in_quotes(s, a) {
        return None;
    }
    // The content: every other clause, greetings dropped, as the user wrote it.
    let mut parts = Vec::new();
    for (j, &(x, y)) in clauses.iter().enumerate() {
        let piece = s[x..y].trim();
        // 念のため、…: a lead alone in its clause is no content.
        if j == k || JA_COURTESY.iter().any(|c| piece.starts_with(c)) || JA_LEADS.contains(&piece) {
            continue;
        }
        parts.push((x, y));
    }
    let (first, last) = (parts.first()?.0, parts.last()?.1);
    let content = if first > b || last <= a {
        trim_content(text.orig_slice(first, last))
    } else {
        // Around the request: before it, then after it.
        let before: Vec<_> = parts.iter().filter(|p| p.1 <= a).collect();
        let after: Vec<_> = parts.iter().filter(|p| p.0 >= b).collect();
        let mut c = String::new();
        if let (Some(f), Some(l)) = (before.first(), before.last()) {
            c.push_str(&trim_content(text.orig_slice(f.0, l.1)));
        }
        if let (Some(f), Some(l)) = (after.first(), after.last()) {
            if !c.is_empty() {
                c.push(' ');
            }
            c.push_str(&trim_content(text.orig_slice(f.0, l.1)));
        }
        c
    };
    let body = content.trim_end_matches(['。', '！', '!', ' ', 'ね', 'よ']);
    if body.chars().count() < 4
        || body.ends_with(['？', '?', 'か'])
        // …を開いて。保存しておいて: a request for work, its result saved.
        || super::ja_requests(body) && !JA_STANDING.iter().any(|w| body.contains(w))
        || stem.starts_with("保存") && JA_FILE.iter().any(|w| content.contains(w))
        // 覚えてほしいんですが、単語が覚えられません: the user's own memorising, asked about.
        || ["覚えられ", "わからない", "どうすれば", "どうしたら", "何を"].iter().any(|w| content.contains(w))
    {
        return None;
    }
    let (_, t) = hit(text, TriggerKind::Remember, a, b, content);
    Some((a, t))
}

/// 重要です。金額は必ず税込で表示してください。: a sentence that only says "this is important",
/// then a standing rule for the agent.
pub(super) fn ja_important_rule(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    let first = sentences.first()?;
    let head = sl(&text.norm, first.start, first.end).trim().trim_end_matches(['。', '！', '!']);
    if !matches!(head, "重要です" | "大事です" | "重要" | "大事" | "大切です" | "重要なことです")
    {
        return None;
    }
    let rest = sentences.get(1)?;
    let body = sl(&text.norm, rest.start, text.norm.len());
    if !JA_STANDING.iter().any(|w| body.contains(w)) || body.contains(['？', '?']) {
        return None;
    }
    let content = trim_content(text.orig_slice(rest.start, text.norm.len()));
    Some(hit(text, TriggerKind::Remember, first.start, first.end, content))
}

/// English: "Please note <a statement>" at the start, or "note that" / "note this" as the last
/// clause pointing back at what came before.
pub(super) fn en_note(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    let first = sentences.first()?;
    let head = sl(s, first.start, first.end);
    for opener in ["please note ", "kindly note ", "please do note ", "do note "] {
        if let Some(rest) = head.strip_prefix(opener) {
            let rest = rest.strip_prefix("that ").unwrap_or(rest);
            // "please note the following", "please note this is a draft": about the text.
            let about_text =
                ["the following", "this ", "that this", "the above", "below", "these "]
                    .iter()
                    .any(|w| rest.starts_with(w));
            let states = [" is ", " are ", " was ", " don't ", " do not ", " never ", " always "]
                .iter()
                .any(|w| rest.contains(w));
            // "please note the API is rate limited, so batch the calls in your code": about work.
            // "please note my flight lands at 6am, so pick a hotel …": a reason for work.
            let work = CODE.iter().any(|w| rest.contains(w))
                || rest.contains("your code")
                || rest.contains(", so ");
            if !about_text && states && !work && !rest.trim_end().ends_with('?') {
                let at = first.start + opener.len();
                let content = super::content_after(text, at);
                return Some(hit(
                    text,
                    TriggerKind::Remember,
                    first.start,
                    at - 1,
                    content.strip_prefix("that ").map(str::to_owned).unwrap_or(content),
                ));
            }
        }
    }
    // "…." note that, "…, can you note it": the last clause only points back.
    // "…. Can you remember this for me?" asks too: a question mark ends the request.
    let trimmed = s.trim_end().trim_end_matches(['.', '!', '?', ' ']);
    let cut = trimmed.rfind(['.', ',', '"', '\u{201d}', '!', ';', '\u{2014}'])?;
    let before = &trimmed[..cut + trimmed[cut..].chars().next().map_or(1, char::len_utf8)];
    let tail = points_back(trimmed[before.len()..].trim())?;
    let head = before.trim_end().trim_end_matches(['"', '\u{201d}', '\u{2014}', ',']);
    if head.trim().chars().count() < 12
        || head.ends_with('?')
        || CODE.iter().any(|w| find_word(head, w).is_some())
    {
        return None;
    }
    let at = trimmed.len() - tail.len();
    let content = trim_content(text.orig_slice(0, head.len()));
    Some(hit(text, TriggerKind::Remember, at, trimmed.len(), content))
}

/// A last clause that only asks to keep what came before: "note that", "can you note it",
/// "please jot that down", "make a note of this for me". Gives the clause from its verb.
fn points_back(clause: &str) -> Option<&str> {
    let mut c = clause;
    for ask in
        ["and ", "can you ", "could you ", "would you ", "will you ", "please ", "pls ", "just "]
    {
        c = c.strip_prefix(ask).unwrap_or(c);
    }
    let mut body = c;
    for tail in [" please", " for me", " for later", " down", " somewhere"] {
        body = body.strip_suffix(tail).unwrap_or(body);
    }
    if matches!(c, "worth remembering" | "worth noting" | "worth keeping in mind") {
        return Some(c);
    }
    // "My supervisor said \"never cite Wikipedia\" -- treat that as a rule." (round 10)
    if matches!(body, "treat that as a rule" | "treat it as a rule" | "treat this as a rule") {
        return Some(c);
    }
    // "Correction: the meeting is Wednesday, not Tuesday. Update what you have." (round 8)
    if matches!(
        body,
        "update what you have"
            | "update what you've got"
            | "update your notes"
            | "update your memory"
            | "update that in your memory"
            | "update your records"
    ) {
        return Some(c);
    }
    let verb = [
        "make a note of",
        "note",
        "remember",
        "jot",
        "write",
        "file",
        "hold onto",
        "hold on to",
        "hang onto",
        "hang on to",
        "save",
        "store",
    ]
    .into_iter()
    .find(|v| body.strip_prefix(v).is_some_and(|r| r.starts_with(' ')))?;
    let object = body[verb.len()..].trim();
    // "write that" keeps only with "down": "write it" asks for work.
    let down = c.contains(" down");
    // "file that away" (round 10): only with "away".
    let object = object.strip_suffix(" away").filter(|_| verb == "file").unwrap_or(object);
    if verb == "file" && !c.ends_with(" away") {
        return None;
    }
    // "can you hold onto that?", "Save the decision." (round 9): a decision is only kept.
    let decision = matches!(object, "the decision" | "that decision" | "this decision");
    ((matches!(object, "it" | "that" | "this") || decision)
        && (!matches!(verb, "jot" | "write") || down))
        .then_some(c)
}

/// Recall shapes the structural rule misses: "show me what you've got on X", "recall what I
/// said about X", "…? I had you note it down", 保存しておいた…を見せて, 覚えてる？…,
/// …で何か保存されてる？, 以前お伝えした…を教えていただけますか.
pub(super) fn recall_more(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    let recall = |at: usize, end: usize, content: String| {
        Some(hit(text, TriggerKind::Recall, at, end, content))
    };
    // English.
    // show me / give me / bring up + what or everything + you've got, you know, you remember
    // + on or about: the agent's own holding, asked to be shown.
    for ask in ["show me ", "tell me ", "give me ", "pull up ", "bring up ", "list "] {
        // "… everything you tell me": the words may end the message.
        let Some(i) = find_word(s, ask.trim_end()) else { continue };
        let Some(rest) = s.get(i + ask.len()..) else { continue };
        let Some(what) = ["what ", "everything ", "all "].iter().find(|w| rest.starts_with(**w))
        else {
            continue;
        };
        let rest = &rest[what.len()..];
        let held =
            ["you've got", "you have", "you know", "you remember", "you've kept", "you've saved"]
                .iter()
                .find(|h| rest.starts_with(**h));
        let Some(held) = held else { continue };
        let rest = &rest[held.len()..];
        let Some(about) = [" on ", " about "].iter().find(|a| rest.starts_with(**a)) else {
            continue;
        };
        let topic = &rest[about.len()..];
        let end = i + ask.len() + what.len() + held.len() + about.len();
        // "tell me everything you know about black holes" asks the world: what the agent knows
        // counts only about the user's own (my, our, a trip, a name, a known entity).
        let original = text.orig_slice(end, s.len());
        let own = *held == "you've got" && *about == " on "
            || super::is_personal_topic(original)
            || super::names_known(text, topic);
        if own && !about_work(topic) {
            let content = super::strip_question(trim_content(text.orig_slice(end, s.len())));
            return recall(i, end - 1, content);
        }
    }
    // "What's on file for my …?", "tell me again the name of my …": the user's own, kept.
    for (opener, mine) in [("what's on file for ", "my "), ("tell me again ", " my ")] {
        if let Some(i) = find_word(s, opener.trim_end())
            && s[i + opener.len()..].contains(mine)
            // "tell me again how to set up my SSH keys" asks how, not what was kept.
            && !["how ", "why "].iter().any(|w| s[i + opener.len()..].starts_with(w))
        {
            let end = i + opener.len();
            return recall(
                i,
                end - 1,
                super::strip_question(trim_content(text.orig_slice(end, s.len()))),
            );
        }
    }
    if let Some(first) = sentences.first() {
        let head = sl(s, first.start, first.end);
        for opener in ["recall what i said about ", "recall what i told you about "] {
            if head.starts_with(opener) && !about_work(&head[opener.len()..]) {
                let end = first.start + opener.len();
                return recall(first.start, end - 1, trim_content(text.orig_slice(end, first.end)));
            }
        }
    }
    // "You noted my gym schedule last week. What was it?": the agent's keeping, then the ask.
    if let (Some(first), Some(next)) = (sentences.first(), sentences.get(1)) {
        let head = sl(s, first.start, first.end);
        let ask = sl(s, next.start, next.end).trim();
        let kept = ["you noted ", "you saved ", "you kept ", "you stored ", "you wrote down "]
            .iter()
            .find(|k| head.starts_with(**k));
        if let Some(k) = kept
            && head[k.len()..].starts_with("my ")
            && ask.ends_with('?')
            && ["what", "when", "where", "who", "which"].iter().any(|w| ask.starts_with(w))
            // The ask points back at what was kept ("What was it?"); "You saved my day. What
            // should I cook?" asks something else.
            && [" it", " they", " that", " them"].iter().any(|w| find_word(ask, w.trim()).is_some())
        {
            let end = first.start + k.len();
            let topic = head[k.len()..].trim_end_matches(['.', ' ']);
            let content = trim_content(text.orig_slice(end, end + topic.len()));
            return recall(first.start, end - 1, content);
        }
    }
    for had in ["i had you note", "i had you save", "i had you write", "i had you keep"] {
        if let Some(i) = find_word(s, had)
            && let Some(q) = s[..i].rfind('?')
            && !in_quotes(s, i)
        {
            let content = trim_content(text.orig_slice(0, q));
            return recall(i, i + had.len(), super::strip_question(content));
        }
    }
    // Japanese.
    let first = sentences.first()?;
    let head = sl(s, first.start, first.end).trim();
    if matches!(head, "覚えてる?" | "覚えてる？" | "覚えてますか?" | "覚えてますか？")
        && let Some(next) = sentences.get(1)
    {
        let content = trim_content(text.orig_slice(next.start, s.len()));
        // 覚えてる？昨日のドラマ見た？: a second question, not what to recall.
        if !content.is_empty() && !super::ja_requests(&content) && !content.ends_with(['？', '?'])
        {
            return recall(first.start, first.end, content);
        }
    }
    for kept in [
        "保存しておいた",
        "メモしておいた",
        "記録しておいた",
        "控えておいた",
        "saveしておいた",
        "saveしてもらった",
    ] {
        // The kept word opens the request, or follows its source (前に, 私が): 保存しておいた
        // 手順を見せて; not 議事録を保存しておいたので or git stashで保存しておいた変更.
        let opens = |i: usize| {
            let lead = super::ja_strip_openers(&s[..i]).trim();
            lead.is_empty()
                || ["前に", "以前", "私が", "この前", "さっき"].iter().any(|w| lead.ends_with(w))
        };
        if let Some(i) = s.find(kept)
            && opens(i)
            && !s[i + kept.len()..].starts_with(['の', 'で', 'か'])
            && ["見せて", "教えて", "出して"].iter().any(|a| s.contains(a))
            && !JA_FILE.iter().any(|w| s.contains(w))
        {
            let rest = s[i + kept.len()..].trim_end_matches(['。', '！', '!', ' ']);
            let ask = ["を見せて", "見せて", "を教えて", "教えて", "を出して", "出して"]
                .iter()
                .find_map(|a| rest.strip_suffix(a))
                .unwrap_or(rest);
            let mut content =
                trim_content(text.orig_slice(i + kept.len(), i + kept.len() + ask.len()));
            // deployの手順、前にsaveしてもらったやつ: the topic stands before, やつ points at it.
            if matches!(content.as_str(), "やつ" | "もの" | "の" | "内容") {
                let lead = s[..i].trim_end_matches("前に").trim_end_matches("以前");
                content = trim_content(text.orig_slice(0, lead.len()));
            }
            return recall(i, i + kept.len(), content);
        }
    }
    for kept in ["保存されてる", "記録されてる", "メモされてる", "保存されてます", "記録されてます"]
    {
        if let Some(i) = s.find(kept)
            && s[i..].contains(['？', '?', 'か'])
            && (s[..i].contains("何か") || s[..i].contains("のこと") || s[..i].contains("について"))
            && !JA_FILE.iter().any(|w| s.contains(w))
        {
            let topic = s[..i].trim_end_matches("何か").trim_end_matches(['で', 'は', 'が', '、']);
            return recall(i, i + kept.len(), trim_content(text.orig_slice(0, topic.len())));
        }
    }
    for told in ["お伝えした", "お話しした", "お話した", "申し上げた", "お知らせした"]
    {
        if let Some(i) = s.find(told)
            && ["前", "以前", "先日", "この間"].iter().any(|w| s[..i].contains(w))
            && // 先日お伝えした件、いかがでしょうか asks how the matter stands, not what was said.
            [
                "教えていただけ",
                "教えてください",
                "どなた",
                "何でしたか",
                "何でしたでしょうか",
                "どこでしたか",
                "いつでしたか",
                "はどちらでしたか",
            ]
            .iter()
            .any(|a| s[i..].contains(a))
            // 以前お伝えした件、進捗はいかがでしたか asks how the matter stands.
            && !["いかが", "進捗", "どうなりました"].iter().any(|w| s[i..].contains(w))
        {
            let end = s[i..].find(['。', '？', '?']).map_or(s.len(), |e| i + e);
            let content = trim_content(text.orig_slice(i + told.len(), end));
            return recall(i, i + told.len(), content);
        }
    }
    None
}

/// What follows "what you've got on" or "what I said about" that makes it work on a text or
/// code in this conversation: "this error", "… in my blog draft and critique it".
fn about_work(rest: &str) -> bool {
    let rest = rest.trim_start();
    ["this ", "that ", "these ", "those "].iter().any(|w| rest.starts_with(w))
        || rest.contains("in general")
        || ["error", "bug", "stack trace", " pr ", "the pr", "draft", "description", "the code"]
            .iter()
            .any(|w| rest.contains(w))
        || [
            " and critique",
            " and rewrite",
            " and fix",
            " and summar",
            " and explain",
            " and review",
        ]
        .iter()
        .any(|w| rest.contains(w))
}

/// Forget shapes: "delete what I said about X", 覚えなくていい.
pub(super) fn forget_more(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    let first = sentences.first()?;
    let head = sl(s, first.start, first.end);
    // "Please don't keep my phone number anymore": keeping, refused from now on.
    for stop in ["don't keep ", "do not keep ", "stop keeping ", "no need to keep "] {
        if let Some(i) = find_word(s, stop.trim_end())
            && (s.contains("anymore") || s.contains("any more") || s.contains("any longer"))
            && s[i + stop.len()..].starts_with("my ")
        {
            let end = i + stop.len();
            let rest = &s[end..];
            let cut = ["anymore", "any more", "any longer"]
                .iter()
                .filter_map(|w| rest.find(w))
                .min()
                .unwrap_or(rest.len());
            // "Don't keep my seat warm, I'll be late anymore": another clause.
            if rest[..cut].contains([',', '.', ';']) {
                continue;
            }
            let content = trim_content(text.orig_slice(end, end + cut));
            return Some(hit(text, TriggerKind::Forget, i, end - 1, content));
        }
    }
    for verb in ["delete", "erase", "remove", "scrap", "drop"] {
        for what in ["what i said about ", "what i told you about ", "what i mentioned about "] {
            let opener = format!("{verb} {what}");
            if head.starts_with(&opener) && !about_work(&head[opener.len()..]) {
                let end = first.start + opener.len();
                let content = trim_content(text.orig_slice(end, first.end));
                let content = content.trim_end_matches('.').to_owned();
                return Some(hit(text, TriggerKind::Forget, first.start, end - 1, content));
            }
        }
    }
    for not in [
        "覚えなくていい",
        "覚えなくて大丈夫",
        "覚えておかなくていい",
        "覚えとかなくていい",
        "記憶しなくていい",
        "残さなくていい",
        "記録しなくていい",
        "メモしなくていい",
        "保存しなくていい",
    ] {
        // The request ends the message: 覚えなくていいから、これを翻訳して asks for work.
        let done = |r: &str| {
            r.trim_start_matches(['よ', 'ね', 'か', 'ら', '。', '！', '!', ' ', '〜', 'ー'])
                .trim_start_matches("です")
                .trim_start_matches(['よ', 'ね', '。', '！', '!'])
                .is_empty()
                && !r.starts_with("から")
        };
        if let Some(i) = s.find(not)
            && done(&s[i + not.len()..])
        {
            let content = trim_content(text.orig_slice(0, i));
            let content = content.trim_end_matches(['、', ',']).to_owned();
            return Some(hit(text, TriggerKind::Forget, i, i + not.len(), content));
        }
    }
    None
}

/// Words that make a reflection soft: not now, when there is time.
const SOFT: &[&str] = &[
    "時間があるとき",
    "時間がある時",
    "時間あるとき",
    "時間ある時",
    "急がない",
    "急ぎじゃない",
    "no hurry",
    "when you have a moment",
    "暇なときに",
    "暇な時に",
    "そのうち",
    "いつか",
    "手が空いたら",
    "no rush",
    "at some point",
    "when you get a chance",
    "whenever you have time",
    "whenever you get a chance",
];

/// Reflect shapes: メモリの振り返りやっちゃおう (now), "you could reflect on what we covered …,
/// no rush" (soft).
pub(super) fn reflect_more(text: &Text<'_>) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    let soft = SOFT.iter().any(|w| s.contains(w));
    for noun in ["メモリの振り返り", "記憶の振り返り", "メモリの整理", "記憶の整理"]
    {
        if let Some(i) = s.find(noun) {
            let rest = &s[i + noun.len()..];
            let rest = rest.trim_start_matches(['を', 'も']);
            // メモリの整理をしてくれるアプリってある？ asks about apps.
            let about = ["アプリ", "ツール", "方法", "仕組み", "って", "？", "?"];
            if ["やっちゃおう", "やろう", "しよう", "して", "やって", "始めよう"]
                .iter()
                .any(|v| rest.starts_with(v))
                && !about.iter().any(|w| rest.contains(w))
            {
                let kind = if soft { TriggerKind::ReflectSoft } else { TriggerKind::Reflect };
                return Some(hit(text, kind, i, i + noun.len(), String::new()));
            }
        }
    }
    if soft
        && let Some(i) = find_word(s, "reflect on")
        && ["could ", "can ", "might ", "maybe ", "please ", ", "]
            .iter()
            .any(|m| s[..i].ends_with(m))
    {
        let topic = s[i + "reflect on".len()..].split(',').next().unwrap_or("");
        let content = trim_content(text.orig_slice(i + "reflect on".len(), i + 10 + topic.len()));
        return Some(hit(text, TriggerKind::ReflectSoft, i, i + "reflect on".len(), content));
    }
    None
}

/// A reflection asked for "when there is time" is soft: the kind to use instead of `kind`.
pub(super) fn softened(text: &Text<'_>, kind: TriggerKind) -> TriggerKind {
    if kind == TriggerKind::Reflect && SOFT.iter().any(|w| text.norm.contains(w)) {
        TriggerKind::ReflectSoft
    } else {
        kind
    }
}

/// Words that make a "don't forget" an instruction about code or a text being written.
const CODE: &[&str] = &[
    "snippet",
    "socket",
    "json",
    "comma",
    "semicolon",
    "the code",
    "function",
    "script",
    "regex",
    "query",
    "example",
    "the test",
    "close the",
    "import",
    "cache",
    "invalidate",
];

/// Whether a trigger the phrase rules found is an ordinary message after all: "don't forget to
/// close the socket" in code, 思い出せない (the user's own memory) asked as a how-to, おやすみモード.
pub(super) fn overheard(text: &Text<'_>, t: &Trigger) -> bool {
    let s = &text.norm;
    let p = t.phrase.to_lowercase();
    // 保存しておいて、と言われたけど…, 覚えてる？って聞かれても…: the request is reported speech.
    if !t.phrase.is_empty()
        && let Some(i) = text.orig.find(t.phrase.as_str())
    {
        let after = text.orig[i + t.phrase.len()..]
            .trim_start_matches(['、', ',', '?', '？', '」', '』', '"', ' ', '。']);
        let quoted = after.strip_prefix("って").or_else(|| after.strip_prefix('と'));
        if let Some(rest) = quoted {
            let clause = rest.split(['、', '。', ',', '！', '!']).next().unwrap_or("");
            let clause: String = clause.chars().take(10).collect();
            if ["言", "聞", "頼"].iter().any(|v| clause.contains(v)) {
                return true;
            }
        }
    }
    match t.kind {
        // "Don't forget the milk — that's what my mom always said. Write a poem about it.": a
        // saying handed over as material for work.
        // メモしておいてほしいんだけど、何をメモすればいいかわからない: asks how, keeps nothing.
        TriggerKind::Remember
            if ["覚えられ", "何をメモ", "何を覚え", "どうすれば", "どうしたら"]
                .iter()
                .any(|w| t.content.contains(w)) =>
        {
            true
        }
        TriggerKind::Remember => {
            p.contains("forget")
                && (CODE.iter().any(|w| find_word(s, w).is_some() || s.contains(w))
                    || super::asked::asks_for_writing(s))
        }
        TriggerKind::Recall => {
            s.contains("思い出せない")
                && !["教えた", "伝えた", "言った", "保存", "メモ", "記録", "話した"]
                    .iter()
                    .any(|w| s.contains(w))
        }
        // 記憶の整理って大事だよね talks about reflection; it asks for none.
        TriggerKind::Reflect if !super::ja_requests(s) => {
            ["記憶の整理って", "メモリの整理って", "振り返りって", "記憶の整理は", "メモリの整理は"]
                .iter()
                .any(|w| s.contains(w))
                // メモリの整理をしてくれるアプリってある？ asks about a tool.
                || ["アプリ", "ツール", "ソフト", "やり方", "方法"].iter().any(|w| s.contains(w))
                    && s.trim_end().ends_with(['？', '?'])
        }
        TriggerKind::ReflectSoft => {
            s.contains("おやすみモード") || s.contains("おやすみ") && s.contains("どうやって")
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{ExtraPhrases, TriggerKind, classify};

    fn kind(m: &str) -> Option<TriggerKind> {
        classify(m, &ExtraPhrases::default()).map(|t| t.kind)
    }

    #[test]
    fn a_keeping_request_at_the_end_or_in_the_middle_keeps_the_rest() {
        for m in [
            "弟の誕生日は3月8日です。覚えておいていただけますか。",
            "会議室の暗証番号は4821。控えておいてください",
            "来月から在宅勤務は週3日になりました。記録をお願いします。",
            "お疲れ様です。一応メモをお願いします。経費の締めは25日です。",
            "忘れないように覚えておいてほしいんだけど、妻はパクチーが苦手です",
            "金庫に入れておいて：口座の暗証番号のヒントは祖母の誕生日",
            "覚えておいてもらえると助かるんですが、夫は甲殻類アレルギーです",
            "メモしといて欲しいのは、来週の水曜は在宅ということ",
        ] {
            let t = classify(m, &ExtraPhrases::default());
            assert_eq!(t.as_ref().map(|t| t.kind), Some(TriggerKind::Remember), "{m}");
            let t = t.unwrap();
            assert!(t.content.chars().count() >= 8, "{m}: content {:?}", t.content);
            assert!(!t.content.contains("お疲れ様"), "{m}: {:?}", t.content);
        }
        let t = classify(
            "弟の誕生日は3月8日です。覚えておいていただけますか。",
            &ExtraPhrases::default(),
        )
        .unwrap();
        assert!(t.content.starts_with("弟の誕生日"), "{:?}", t.content);
        assert!(t.phrase.contains("覚えておいていただけますか"), "{:?}", t.phrase);
        let t =
            classify("一応、メモをお願いします。駐輪場の番号は112です。", &ExtraPhrases::default())
                .unwrap();
        assert_eq!(t.content, "駐輪場の番号は112です", "{:?}", t.content);
    }

    #[test]
    fn saving_a_file_or_asking_about_memory_is_not_a_keeping_request() {
        for m in [
            "このファイルを開いて。保存しておいて",
            "報告書を書いて。保存して",
            "メモって何のこと？",
            "記録をお願いしたっけ？",
        ] {
            assert_ne!(kind(m), Some(TriggerKind::Remember), "{m}");
        }
        assert_eq!(kind("先日お伝えした件、いかがでしょうか。"), None);
    }

    #[test]
    fn important_then_a_standing_rule_is_kept() {
        assert_eq!(
            kind("大事です。日付は必ずISO形式で書いてください。"),
            Some(TriggerKind::Remember)
        );
        assert_eq!(kind("重要です。このバグを直して。"), None);
    }

    #[test]
    fn note_in_english_at_the_start_or_pointing_back() {
        assert_eq!(
            kind("Please note the caretaker is Mr. Havel, he only answers texts."),
            Some(TriggerKind::Remember)
        );
        assert_eq!(
            kind("Tom said: \"the gym closes at 9 on Sundays.\" note that"),
            Some(TriggerKind::Remember)
        );
        assert_eq!(kind("Please note the following lines are a draft, rewrite them."), None);
        assert_eq!(kind("Thanks for the summary, I'll make a note of that"), None);
        assert_eq!(
            kind("fyi the garage door code is 5521, could you note it please"),
            Some(TriggerKind::Remember)
        );
        assert_eq!(kind("Here is the outline of my essay, write it"), None);
        assert_eq!(
            kind("Our wifi password is now tulip-88. Could you note that for me?"),
            Some(TriggerKind::Remember)
        );
        assert_eq!(
            kind("The boiler gets serviced every October. Worth remembering."),
            Some(TriggerKind::Remember)
        );
        assert_eq!(
            kind("please note the API is rate limited, so batch the calls in your code"),
            None
        );
    }

    #[test]
    fn recall_shapes_polite_and_placed_late() {
        for m in [
            "show me what you've got on the dentist appointment",
            "Recall what I told you about the garden fence.",
            "which hotel did we pick in Osaka? I had you save it",
            "メモしておいた引っ越しの段取りを見せて",
            "覚えてる？去年の旅行で泊まった宿",
            "車の保険のことで何か記録されてる？",
            "以前お伝えした祖父の入院先を教えていただけますか。",
            "ビザの書類、前にsaveしてもらったやつ見せて",
            "先日お話しした顧問弁護士はどなたでしたか。",
            "List everything you know about the Madrid trip",
            "bring up what you remember about my cousin Ade",
            "give me all you know about Marta",
            "What's on file for my car insurance?",
            "You saved my allergy list in spring. What's on it?",
        ] {
            assert_eq!(kind(m), Some(TriggerKind::Recall), "{m}");
        }
    }

    #[test]
    fn forget_and_reflect_shapes() {
        assert_eq!(kind("Erase what I said about my old phone number."), Some(TriggerKind::Forget));
        assert_eq!(kind("さっきのはなし、メモしなくていい"), Some(TriggerKind::Forget));
        assert_eq!(kind("あの件はもう覚えとかなくていいよ"), Some(TriggerKind::Forget));
        assert_eq!(
            kind("Please don't keep my old email address any longer."),
            Some(TriggerKind::Forget)
        );
        assert_eq!(kind("don't keep the cursor there anymore"), None);
        assert_eq!(
            kind("伝えたいことがあります。覚えておいてほしいことがあります。妹は来月結婚します。"),
            Some(TriggerKind::Remember)
        );
        assert_eq!(kind("よし、記憶の振り返りをやろう"), Some(TriggerKind::Reflect));
        assert_eq!(kind("手が空いたらメモリの整理をしておいて"), Some(TriggerKind::ReflectSoft));
        assert_eq!(
            kind("記憶の振り返りしといてくれる？急がないから"),
            Some(TriggerKind::ReflectSoft)
        );
        assert_eq!(
            kind("you might reflect on the notes from today at some point, no rush"),
            Some(TriggerKind::ReflectSoft)
        );
        assert_eq!(
            kind("whenever you have time, maybe reflect on this month"),
            Some(TriggerKind::ReflectSoft)
        );
    }

    #[test]
    fn code_instructions_own_forgetting_and_settings_stay_ordinary() {
        for m in [
            "in the script, don't forget to close the file handle",
            "make sure you don't forget the semicolon in that example",
            "Don't forget your umbrella, my gran used to say. Write a short story around it.",
            "Keep in mind that the table has 40 rows when you summarize it.",
            "gitのタグを消すコマンドが思い出せない。何だっけ？",
            "おやすみモードってAndroidだとどこで設定するの？",
            "show me what you've got on this error",
            "Recall what I said about lambdas in my draft and critique it",
            "Delete what I said about the bug in the PR description",
            "git stashで保存しておいた変更を見せて",
            "覚えてる？昨日のドラマ見た？",
            "以前お伝えした件ですが、進捗はいかがでしたか。",
            "覚えなくていいから、とりあえずこれを翻訳して",
            "メモリの整理をしてくれるアプリってある？",
            "記憶の整理って大事だよね",
            "tell me everything you know about black holes",
            "show me what you know about the history of jazz",
            "show me what you have about sorting algorithms",
            "tell me again how to set up my SSH keys",
            "Don't keep my seat warm, I'll be late anymore lol",
            "Please note the train arrives at 9, so book a table for 9:30.",
            "You saved my day, thank you. What should I cook tonight?",
            "覚えてほしいんですが、どうしても単語が覚えられません",
            "メモしておいてほしいんだけど、何をメモすればいいかわからない",
            "メモしといて、って同僚に頼まれたんだけど何をメモすればいい？",
            "覚えてる？って急に聞かれても困る",
            "show me what you've got on Kubernetes autoscaling in general",
            // The asking words last: nothing after them to read (this panicked once).
            "i prefer metric units, km and kg, in everything you tell me",
            "what else can you show me",
        ] {
            assert_eq!(kind(m), None, "{m}");
        }
    }
}
