//! Standing orders without a keeping word (issue 18, round 8): an instruction meant for all
//! future work is something to keep even when the user does not say "remember". Heard only when
//! something in the sentence says it lasts ("whenever you …", "when you write X, always …", "…,
//! ever", "Rule for you: …", 必ず, 絶対に…ないで, いつも, 毎回, 常に, …のは禁止), and never when the
//! order is about this task (this file, 今日, 明日まで, この…) or asks a question.

use super::{Span, Text, Trigger, TriggerKind, hit, in_quotes, sl, trim_content, verb_like};

/// Labels that open a rule for the agent: "Rule for you: no more than three suggestions".
const EN_LABELS: &[&str] = &[
    "rule for you:",
    "a rule for you:",
    "new rule:",
    "a new rule:",
    "house rule:",
    "ground rule:",
    "standing rule:",
    "standing order:",
    "standing instruction:",
    "for all future sessions:",
    "for all future chats:",
    "for future sessions:",
    "for future chats:",
    "in all future chats:",
    "going forward:",
    "from now on:",
    "rule:",
];

/// A condition that makes what follows a habit: "when you write commit messages, always …".
const EN_CONDITIONS: &[&str] = &[
    "when you ",
    "whenever you ",
    "when i ",
    "whenever i ",
    "if you ",
    "if i ",
    "any time you ",
    "anytime you ",
    "every time you ",
    "each time you ",
    "in all ",
    "in every ",
    "in any ",
    "for all ",
    "for every ",
    "for any ",
];

/// Openers of an order that holds only with a mark of lasting: "You must cite the DOI whenever
/// you summarise a study".
const EN_ORDERS: &[&str] = &[
    "you must ",
    "you should always ",
    "you should never ",
    "make sure to ",
    "make sure you ",
    "be sure to ",
    "please always ",
    "please never ",
    "please make sure to ",
    "please make sure you ",
];

/// Marks that an order lasts.
const EN_LASTING: &[&str] = &[
    "whenever",
    "every time",
    "each time",
    "any time",
    "anytime",
    " when i ",
    " when you ",
    " if i ",
    " in all ",
    " in every ",
    " in any ",
    " for all ",
    " all future",
    " always",
    " never",
    "going forward",
    "from now on",
];

/// Words that tie an order to this task or this moment: then it is work, not a rule.
pub(super) const EN_NOW: &[&str] = &[
    " this ",
    " these ",
    " today",
    " tonight",
    " tomorrow",
    " right now",
    " for now",
    " now ",
    " above",
    " below",
    " the following",
];

/// Japanese marks of lasting, each before the order they qualify.
const JA_LASTING: &[&str] = &["必ず", "絶対に", "絶対", "いつも", "毎回", "常に"];

/// Japanese words that tie an order to now.
pub(super) const JA_NOW: &[&str] = &[
    "この",
    "その",
    "あの",
    "これを",
    "これで",
    "これは",
    "それを",
    "それで",
    "今日",
    "明日",
    "今週",
    "今回",
    "今すぐ",
    "までに",
    "今夜",
    "さっき",
    "今から",
    "来週",
];

/// Japanese request endings of an order (after ね/よ are dropped).
const JA_ORDER_ENDS: &[&str] = &[
    "ないでください",
    "ないで下さい",
    "ないで",
    "ないこと",
    "てください",
    "でください",
    "て下さい",
    "でお願いします",
    "てほしい",
    "でほしい",
    "させてください",
    "すること",
    "こと",
    "して",
    "て",
    "で",
];

/// Labels that ask to keep what follows them: "Save: to clear the Gradle cache, …".
const EN_KEEP_LABELS: &[&str] = &[
    "save:",
    "memo:",
    "keep:",
    "store:",
    "to remember:",
    "permanently store:",
    "store permanently:",
    "save permanently:",
    "for good:",
    "keep for good:",
];

/// Ends of a first line that ask to keep the lines after it: "Steps to check a guest in late,
/// for reference:".
const EN_KEEP_TAILS: &[&str] = &[", for reference:", " for reference:", ", for future reference:"];

/// A standing order in any sentence of the message, or a message that opens with a keeping
/// label.
pub(super) fn standing_order(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    keep_label(text, sentences.first()?)
        .or_else(|| sentences.iter().find_map(|s| english(text, *s).or_else(|| japanese(text, *s))))
        .or_else(|| for_good_after(text, sentences))
}

/// 報告書に絵文字は使わないで。ずっとね。: a sentence that only says the order before it lasts
/// (round 9).
fn for_good_after(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    let k = sentences.iter().position(|s| {
        let t = sl(&text.norm, s.start, s.end).trim().trim_end_matches(['。', '！', '!', '.']);
        matches!(
            t,
            "ずっとね"
                | "ずっとだよ"
                | "ずっと"
                | "今後もね"
                | "今後も"
                | "これからもね"
                | "これからも"
                | "毎回ね"
                | "forever"
                | "always"
                | "from now on"
                | "going forward"
        )
    })?;
    let order = sentences.get(k.checked_sub(1)?)?;
    let body =
        sl(&text.norm, order.start, order.end).trim().trim_end_matches(['。', '.', '!', '！']);
    let asks = ["ないで", "て", "で", "こと", "ください"].iter().any(|e| body.ends_with(e))
        || super::verb_like(body.split_whitespace().next().unwrap_or(""));
    if !asks || body.ends_with(['？', '?']) || JA_NOW.iter().any(|w| body.contains(w)) {
        return None;
    }
    let said = sentences[k];
    let content = trim_content(text.orig_slice(order.start, order.end));
    Some(hit(text, TriggerKind::Remember, said.start, said.end, content))
}

/// "Save: to clear the Gradle cache, rm -rf ~/.gradle/caches then rebuild."
fn keep_label(text: &Text<'_>, first: &Span) -> Option<(usize, Trigger)> {
    let raw = sl(&text.norm, first.start, text.norm.len());
    let body = raw.trim_start();
    let at = first.start + (raw.len() - body.len());
    if let Some(line) = body.lines().next()
        && let Some(tail) = EN_KEEP_TAILS.iter().find(|t| line.trim_end().ends_with(**t))
    {
        let end = at + line.trim_end().len();
        let title = trim_content(text.orig_slice(at, end - tail.len()));
        let steps = trim_content(text.orig_slice(end, text.norm.len()));
        if !title.is_empty() && !steps.is_empty() {
            let content = format!("{title}\n{steps}");
            return Some(hit(text, TriggerKind::Remember, end - tail.len(), end, content));
        }
    }
    let label = EN_KEEP_LABELS.iter().find(|l| body.starts_with(**l))?;
    let content = trim_content(text.orig_slice(at + label.len(), text.norm.len()));
    (!content.is_empty())
        .then(|| hit(text, TriggerKind::Remember, at, at + label.len() - 1, content))
}

fn english(text: &Text<'_>, s: Span) -> Option<(usize, Trigger)> {
    let raw = sl(&text.norm, s.start, s.end);
    let lead = raw.len() - raw.trim_start().len();
    let body = raw.trim().trim_end_matches(['.', '!', ' ']);
    if body.ends_with('?') || in_quotes(&text.norm, s.start + lead) {
        return None;
    }
    let body = ["ok ", "ok, ", "also, ", "also ", "and ", "btw ", "btw, ", "oh and "]
        .iter()
        .fold(body, |b, o| b.strip_prefix(o).unwrap_or(b));
    // Where `body` starts in the normalised text (it is a slice of it).
    let at = body.as_ptr() as usize - text.norm.as_ptr() as usize;
    let padded = format!(" {body} ");
    let now = EN_NOW.iter().any(|w| padded.contains(w));
    // "Rule for you: no more than three suggestions per answer."
    if let Some(label) = EN_LABELS.iter().find(|l| body.starts_with(**l)) {
        let rest = body[label.len()..].trim();
        if !rest.is_empty() {
            let from = text.norm[at..].find(':').map_or(at, |i| at + i + 1);
            let content = trim_content(text.orig_slice(from, s.end));
            return Some(hit(text, TriggerKind::Remember, at, at + label.len(), content));
        }
    }
    if now {
        return None;
    }
    // "when you write commit messages, always use the imperative mood"
    if EN_CONDITIONS.iter().any(|c| body.starts_with(c))
        && let Some(comma) = body.find(", ")
    {
        let then = &body[comma + 2..];
        let order = ["always ", "never ", "don't ", "do not ", "please always ", "please never "]
            .iter()
            .find(|o| then.starts_with(**o))
            .filter(|o| verb_like(then[o.len()..].split_whitespace().next().unwrap_or("")));
        if order.is_some() {
            let content = trim_content(text.orig_slice(at, s.end));
            let end = at + comma + 2 + order.map_or(0, |o| o.len()) - 1;
            return Some(hit(text, TriggerKind::Remember, at + comma + 2, end, content));
        }
    }
    // "when I write in Japanese, answer in Japanese": a condition on how the user writes, then
    // how to answer (round 10).
    if [
        "when i write",
        "if i write",
        "when i message",
        "if i message",
        "when i speak",
        "if i speak",
        "whenever i write",
    ]
    .iter()
    .any(|c| body.starts_with(c))
        && let Some(comma) = body.find(", ")
        && ["answer ", "reply ", "respond ", "write back ", "use "]
            .iter()
            .any(|v| body[comma + 2..].starts_with(v))
    {
        let content = trim_content(text.orig_slice(at, text.norm.len()));
        return Some(hit(text, TriggerKind::Remember, at, at + comma, content));
    }
    // "no exclamation marks in customer emails, ever"
    if (body.starts_with("no ") || body.starts_with("don't ") || body.starts_with("do not "))
        && body.ends_with(", ever")
    {
        let content = trim_content(text.orig_slice(at, s.end));
        let end = at + body.len();
        return Some(hit(text, TriggerKind::Remember, end - "ever".len(), end, content));
    }
    // "answer in short paragraphs unless I ask for a list, from here on" (round 9)
    if [", from here on", ", from now on", ", going forward", " from here on", " from now on"]
        .iter()
        .any(|w| body.ends_with(w))
    {
        let content = trim_content(text.orig_slice(at, s.end));
        return Some(hit(text, TriggerKind::Remember, at, at + body.len(), content));
    }
    // "any email you draft to tenants must be reviewed by me before it goes out" (round 9)
    if ["any ", "every ", "all "].iter().any(|w| body.starts_with(w))
        && [
            " you write",
            " you draft",
            " you send",
            " you make",
            " you create",
            " you suggest",
            " you give",
            " you produce",
            " you generate",
        ]
        .iter()
        .any(|w| padded.contains(w))
        && [" must ", " should ", " has to ", " have to ", " needs to ", " need to "]
            .iter()
            .any(|w| padded.contains(w))
    {
        let content = trim_content(text.orig_slice(at, s.end));
        return Some(hit(text, TriggerKind::Remember, at, at + body.len(), content));
    }
    // "You must cite the DOI whenever you summarise a study for me."
    if let Some(o) = EN_ORDERS.iter().find(|o| body.starts_with(**o))
        && EN_LASTING.iter().any(|w| padded[o.len()..].contains(w))
    {
        let content = trim_content(text.orig_slice(at, s.end));
        return Some(hit(text, TriggerKind::Remember, at, at + o.trim_end().len(), content));
    }
    None
}

fn japanese(text: &Text<'_>, s: Span) -> Option<(usize, Trigger)> {
    let raw = sl(&text.norm, s.start, s.end);
    let body = raw.trim().trim_end_matches(['。', '！', '!', ' ', '〜', 'ー']);
    let body = body.trim_end_matches(['ね', 'よ', 'な']).trim_end_matches('ね');
    if body.is_empty()
        || body.ends_with(['？', '?', 'か'])
        || !body.chars().any(crate::word::is_cjk)
        || JA_NOW.iter().any(|w| body.contains(w))
    {
        return None;
    }
    let start = s.start + (raw.len() - raw.trim_start().len());
    let quoted = |i: usize| in_quotes(&text.norm, start + i);
    // 上司に「金曜にはデプロイするな」って言われたから、それ守ってね: a quoted rule, to be kept
    // (round 10).
    if let Some(q) = body.find('「')
        && body[q..].contains('」')
        && ["守って", "守るように", "従って"].iter().any(|w| body.ends_with(w))
    {
        let content = trim_content(text.orig_slice(start, s.end));
        return Some(hit(text, TriggerKind::Remember, start + q, start + body.len(), content));
    }
    // 日本語で書いたら日本語で答えて: how to answer when the user writes a way (round 10).
    if let Some(t) = body.find("たら")
        && ["で答えて", "で返して", "で返信して", "で答えてください", "で返してください"]
            .iter()
            .any(|w| body.ends_with(w))
        && ["書いたら", "話したら", "送ったら", "聞いたら", "質問したら"]
            .iter()
            .any(|w| body[..t + "たら".len()].ends_with(w))
    {
        let content = trim_content(text.orig_slice(start, text.norm.len()));
        return Some(hit(text, TriggerKind::Remember, start, start + t, content));
    }
    // 診断を断定するような言い方は禁止。: a way of saying things is banned (round 10).
    if ["言い方は禁止", "表現は禁止", "使用は禁止", "提案は禁止", "送信は禁止"]
        .iter()
        .any(|w| body.ends_with(w) || body.ends_with(&format!("{w}です")))
    {
        let content = trim_content(text.orig_slice(start, s.end));
        return Some(hit(text, TriggerKind::Remember, start, start + body.len(), content));
    }
    // 薬の量を丸めるのは禁止。
    if let Some(i) = ["のは禁止です", "のは禁止", "は禁止です", "は禁止"]
        .iter()
        .find_map(|e| body.strip_suffix(e).map(|b| b.len()))
        && body[..i].ends_with(['る', 'う', 'く', 'す', 'つ', 'ぬ', 'む', 'ぶ', 'ぐ'])
        && !quoted(i)
    {
        let content = trim_content(text.orig_slice(start, s.end));
        return Some(hit(text, TriggerKind::Remember, start + i, start + body.len(), content));
    }
    // 変数名はキャメルケースで統一すること。: an order written as …こと, with no 私 and no list
    // (round 9).
    if let Some(b) = body.strip_suffix("こと")
        && b.ends_with(['る', 'う', 'く', 'す', 'つ', 'ぶ', 'む', 'ぐ', 'ぬ', 'い'])
        // 足さないこと is an order; 知らないこと, できないこと name things (round 10).
        && !["知らない", "分からない", "わからない", "できない", "いない", "仕方ない", "しょうがない"]
            .iter()
            .any(|w| b.ends_with(w))
        // やること, できること, あること, いいこと name things; 私がやること is the user's own.
        && !["やる", "できる", "ある", "いい"].iter().any(|w| b.ends_with(w))
        && !["私", "僕", "俺"].iter().any(|w| b.contains(w))
        && !body.contains([':', '：'])
        && b.chars().count() >= 6
    {
        let content = trim_content(text.orig_slice(start, s.end));
        let end = start + body.len();
        return Some(hit(text, TriggerKind::Remember, end - "こと".len(), end, content));
    }
    let (i, w) = JA_LASTING.iter().find_map(|w| body.find(w).map(|i| (i, *w)))?;
    // 絶対 asks only for a prohibition: 絶対に明日までに仕上げて is this task.
    let ends = JA_ORDER_ENDS.iter().find(|e| body.ends_with(**e))?;
    if w.starts_with('絶') && !ends.contains("ない") {
        return None;
    }
    // いつもありがとう, 毎回違う: the mark must qualify an order, not a remark.
    if quoted(i) || body[i + w.len()..].chars().count() < 2 {
        return None;
    }
    let content = trim_content(text.orig_slice(start, s.end));
    Some(hit(text, TriggerKind::Remember, start + i, start + i + w.len(), content))
}

#[cfg(test)]
mod tests {
    use super::super::{ExtraPhrases, TriggerKind, rules_only};

    fn kind(m: &str) -> Option<TriggerKind> {
        let _ = ExtraPhrases::default();
        rules_only(m).map(|t| t.kind)
    }

    #[test]
    fn lasting_orders_are_kept() {
        for m in [
            "when you write commit messages, always use the imperative mood",
            "Rule for you: no more than three suggestions per answer.",
            "make sure to flag anything that interacts with warfarin when I ask about a drug",
            "no exclamation marks in customer emails, ever. got it?",
            "You must cite the DOI whenever you summarise a study for me.",
            "絶対に本番環境でDROP文を提案しないで",
            "見積もりの金額は必ず税込で出して",
            "返信の下書きは、送る前に必ず私に確認させてください",
            "お客さんへのメールには必ず署名を入れてね",
            "いつも出典を付けてください",
            "薬の量を丸めるのは禁止。",
            "Save: to clear the Gradle cache, rm -rf ~/.gradle/caches then rebuild.",
            "answer in short paragraphs unless I ask for a list, from here on",
            "any email you draft to tenants must be reviewed by me before it goes out",
            "変数名はキャメルケースで統一すること。",
            "報告書に絵文字は使わないで。ずっとね。",
            "Steps to check a guest in late, for reference:\n- take the key from the lockbox\n- leave the welcome pack",
            "For all future sessions: keep replies under 150 words unless I say \"long\".",
            "permanently store: the council chamber's AV contact is Ray Okafor, ext. 2207",
            "for good: Grandma's sourdough starter is named Gertrude and lives in the blue jar",
            "when I write in Japanese, answer in Japanese. when I write in English, answer in English.",
            "日本語で書いたら日本語で答えて。英語なら英語で。",
            "要約するときは、原文にない情報を足さないこと。",
            "上司に「金曜にはデプロイするな」って言われたから、それ守ってね",
            "診断を断定するような言い方は禁止。",
            "知らないことは知らないと言うこと",
            "We chose the restorative format for the corporate yoga workshop. file that away",
        ] {
            assert_eq!(kind(m), Some(TriggerKind::Remember), "{m}");
        }
    }

    #[test]
    fn orders_for_this_task_and_remarks_stay_ordinary() {
        for m in [
            "make sure the tests pass before you commit this",
            "make sure to add tests",
            "You must be tired after that trip",
            "when you get a chance, always nice to hear from you",
            "このPRは必ず今日中にマージして",
            "この資料、絶対に明日までに仕上げて",
            "いつもありがとう",
            "毎回違う結果になるのはなぜ？",
            "必ず勝てる方法ってある？",
            "ここは禁煙です",
            "make sure you check the logs in this file",
            "no worries, ever the optimist",
            "明日までにやること",
            "それは大事なこと",
            "これは私がやること",
            "make a plan for all the emails you write this week",
            "終わったら教えて",
            "私が知らないこと",
            "when I write the report, check the numbers for me",
            "ここでの駐車は禁止",
        ] {
            assert_eq!(kind(m), None, "{m}");
        }
    }

    /// Wordings of the twelfth and thirteenth tables' misses, and their look-alikes (round 9).
    #[test]
    fn round_9_wordings() {
        let cases: &[(&str, Option<TriggerKind>)] = &[
            (
                "rent for flat 1 is £1,150, due on the 1st of each month. can you hold onto that?",
                Some(TriggerKind::Remember),
            ),
            (
                "We're going with the Tokyo printer for the tour posters. Save the decision.",
                Some(TriggerKind::Remember),
            ),
            (
                "恐れ入りますが、当院の院長は木村と申します。ご記憶いただけますと幸いです。",
                Some(TriggerKind::Remember),
            ),
            ("変数名はキャメルケースで統一すること。", Some(TriggerKind::Remember)),
            (
                "Delete the staging host note, that box is decommissioned.",
                Some(TriggerKind::Forget),
            ),
            ("drop the reminder about the van service", Some(TriggerKind::Forget)),
            ("記録した第5病棟の改装の件、破棄してください", Some(TriggerKind::Forget)),
            ("if I told you to remember my PIN, would you store it encrypted?", None),
            ("もし私が暗証番号を覚えておいてって言ったら、ほんとに保存するの？", None),
            ("what's the difference between a 1099-NEC and a 1099-MISC again?", None),
            ("消費税の端数処理って切り捨てでいいんだっけ？", None),
            ("Make a note in the README that DATABASE_URL is required", None),
            ("remove the lint rule from the config", None),
            ("save this file as utf-8", None),
            ("how does Dana like to get updates, did I tell you?", Some(TriggerKind::Recall)),
            ("remember when we all wrote everything in jQuery? good times", None),
            ("Remember when Pluto was a planet? wild times", None),
            ("Remind me what a cap rate is?", None),
            ("remind me, what's the Python syntax for a dict comprehension?", None),
            ("remind me what my locker code is", Some(TriggerKind::Recall)),
            (
                "Review your memories about me and consolidate anything duplicated?",
                Some(TriggerKind::Reflect),
            ),
            ("マカロンのレシピ、保存したやつ消して", Some(TriggerKind::Forget)),
            ("scrap the note about the vet visit", Some(TriggerKind::Forget)),
            ("複合機の名前、なんだったかな。前に教えたと思うんだけど", Some(TriggerKind::Recall)),
            (
                "The sourdough starter's name, I told you once... what is it?",
                Some(TriggerKind::Recall),
            ),
        ];
        for (m, want) in cases {
            assert_eq!(kind(m), *want, "{m}");
        }
    }
}
