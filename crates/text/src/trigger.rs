//! Trigger detection: does a user's message ask the agent to remember, forget, reflect or
//! recall something? A pure function of the message (and any extra phrases from `cogmem.toml`);
//! no I/O. Phrase rules decide; where they hear nothing, a small learned model compiled into the
//! crate may ([`learned`]).
//!
//! The detector tells instructions from ordinary sentences by *where* a phrase stands, not by
//! the phrase alone. English instructions are imperatives: the verb opens a clause, after any
//! greeting, filler or politeness ("hey", "ok so", "please", "can you"), so "I remember when we
//! met" and "the results reflect our priorities" are not triggers. A clause that only points
//! back ("…, remember that.") takes the text before it as its content. Japanese puts the verb
//! last, so Japanese instructions are found by their request endings (覚えておいて, 忘れて,
//! なかったことにして) and questions by their question endings (覚えてる？).

use serde::Serialize;

mod anywhere;
mod asked;
pub mod learned;
mod standing;

/// What the user asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TriggerKind {
    /// Store something.
    Remember,
    /// Forget (archive) something.
    Forget,
    /// Start a reflection now.
    Reflect,
    /// The user is wrapping up: ask whether to reflect.
    ReflectSoft,
    /// Say what is remembered about something.
    Recall,
}

impl TriggerKind {
    /// Every kind, in priority order.
    pub const ALL: [Self; 5] =
        [Self::Remember, Self::Forget, Self::Recall, Self::Reflect, Self::ReflectSoft];

    /// Returns the snake_case name used in JSON and tables.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Remember => "remember",
            Self::Forget => "forget",
            Self::Reflect => "reflect",
            Self::ReflectSoft => "reflect_soft",
            Self::Recall => "recall",
        }
    }

    /// Parses a snake_case name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == text.trim())
    }
}

/// A detected trigger.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Trigger {
    /// What was asked.
    pub kind: TriggerKind,
    /// The phrase that triggered it, as the user wrote it.
    pub phrase: String,
    /// What it is about: the text to remember, the thing to forget or recall (may be empty).
    pub content: String,
    /// When the learned model heard it and the phrase rules did not: the model's probability
    /// for the kind, in percent ([`learned`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub learned: Option<u8>,
}

/// The labels that, before a remember request, say it corrects what was said before
/// ("Correction: remember that …", "Actually, remember that …", "No, remember that …").
const CORRECTION_LABELS: &[&str] = &[
    "correction",
    "actually",
    "no",
    "no wait",
    "wait no",
    "nope",
    "oops",
    "sorry",
    "i was wrong",
    "i misspoke",
];

/// The correction label the user wrote right before the trigger `phrase` in `message` (lower
/// case, without its `:` or `,`), or `None` when nothing or something else comes before it.
/// [`classify`] cuts what comes before the phrase; this reads it back, so the request can be
/// stored as the correction it is.
///
/// ```
/// use cogmem_text::trigger::correction_label;
/// let m = "Correction: remember that my flight is on Friday, not Thursday";
/// assert_eq!(correction_label(m, "remember that").as_deref(), Some("correction"));
/// assert_eq!(correction_label("Please remember that X", "remember that"), None);
/// ```
pub fn correction_label(message: &str, phrase: &str) -> Option<String> {
    let lc = message.to_lowercase();
    let at = lc.find(&phrase.to_lowercase()).filter(|_| !phrase.is_empty())?;
    let marks = [':', ',', '-', '—', '–', '!', '.', ';', '*', '_', '"', '\'', ' ', '\t', '\n'];
    let label = lc[..at].trim_matches(marks);
    let label = label.split_whitespace().collect::<Vec<_>>().join(" ");
    CORRECTION_LABELS.contains(&label.as_str()).then_some(label)
}

/// Extra phrases from `cogmem.toml`, each recognised at the start of a clause.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ExtraPhrases {
    /// More ways to say "remember".
    pub remember: Vec<String>,
    /// More ways to say "forget".
    pub forget: Vec<String>,
    /// More ways to ask for a reflection.
    pub reflect: Vec<String>,
    /// More ways to say goodbye for the day.
    pub reflect_soft: Vec<String>,
    /// More ways to ask what is remembered.
    pub recall: Vec<String>,
}

impl ExtraPhrases {
    fn of(&self, kind: TriggerKind) -> &[String] {
        match kind {
            TriggerKind::Remember => &self.remember,
            TriggerKind::Forget => &self.forget,
            TriggerKind::Reflect => &self.reflect,
            TriggerKind::ReflectSoft => &self.reflect_soft,
            TriggerKind::Recall => &self.recall,
        }
    }
}

/// Detects the trigger in a message, if any.
///
/// Explicit requests (remember, forget, recall, reflect) win over a goodnight in the same
/// message; among them the earliest wins.
pub fn classify(message: &str, extra: &ExtraPhrases) -> Option<Trigger> {
    classify_known(message, extra, &[])
}

/// Like [`classify`], with the names of entities the workspace knows: a question about one of
/// them ("what do you know about atlas?") is a recall, not a general-knowledge question.
pub fn classify_known(message: &str, extra: &ExtraPhrases, known: &[String]) -> Option<Trigger> {
    classify_in(Text::new(message, Known::Given(known)), extra, true)
}

/// Like [`classify_known`], with the names asked for only when a rule needs them: only a
/// question about a topic ever looks at them, and a workspace reads a file per entity to list
/// them, which a hook that classifies every prompt cannot afford (issue 17). Gives the same
/// answer as [`classify_known`] with the names `known` returns.
pub fn classify_lazy(
    message: &str,
    extra: &ExtraPhrases,
    known: &dyn Fn() -> Vec<String>,
) -> Option<Trigger> {
    classify_in(Text::new(message, Known::Lazy(known, std::cell::OnceCell::new())), extra, true)
}

/// The phrase rules alone, without the learned model: what training compares the model with,
/// and what a rule that looks at a part of a message on its own asks.
pub fn rules_only(message: &str) -> Option<Trigger> {
    classify_in(Text::new(message, Known::Given(&[])), &ExtraPhrases::default(), false)
}

/// The rules, then (with `learn`) the learned model where they hear nothing. Rules that look at
/// a part of the message on its own ask the rules alone.
fn classify_in(text: Text<'_>, extra: &ExtraPhrases, learn: bool) -> Option<Trigger> {
    let mut best: Option<(usize, Trigger)> = None;
    let mut soft: Option<Trigger> = None;
    // Text the user pasted to be worked on ("proofread this: …") says nothing to the agent.
    let material = material_start(&text.norm).or_else(|| drafted_material(&text.norm));
    let sentences: Vec<Span> = text
        .sentences()
        .into_iter()
        .filter(|s| material.is_none_or(|m| s.start < m))
        .map(|s| Span { start: s.start, end: material.map_or(s.end, |m| s.end.min(m)) })
        .filter(|s| !hypothetical(sl(&text.norm, s.start, s.end)))
        .collect();
    for (k, sentence) in sentences.iter().enumerate() {
        let hits = english(&text, *sentence, extra).into_iter().chain(japanese(&text, *sentence));
        for (pos, t) in hits {
            if t.kind == TriggerKind::ReflectSoft {
                soft.get_or_insert(t);
            } else if best.as_ref().is_none_or(|(p, _)| pos < *p) {
                best = Some((pos, t));
            }
        }
        if best.as_ref().is_some_and(|(_, t)| t.kind == TriggerKind::Forget) {
            // "Forget the old address, and remember that I now live in Bristol": the new fact is
            // the request to act on; a later remember wins over the forget it corrects.
            let later = sentences[k..]
                .iter()
                .flat_map(|s| english(&text, *s, extra).into_iter().chain(japanese(&text, *s)));
            if let Some(r) =
                later.filter(|(_, t)| t.kind == TriggerKind::Remember).min_by_key(|(p, _)| *p)
            {
                best = Some(r);
            }
        }
        if best.as_ref().is_some_and(|(_, t)| t.kind == TriggerKind::Remember) {
            // "重要：…こと。消えないようにずっと残しておいて。": a later request to keep the same
            // thing for good, pointing back at it, says how to keep it; it wins.
            let content = best.as_ref().map(|(_, t)| t.content.clone()).unwrap_or_default();
            let later = sentences[k + 1..]
                .iter()
                .flat_map(|s| english(&text, *s, extra).into_iter().chain(japanese(&text, *s)))
                .find(|(_, t)| {
                    let p = t.phrase.to_lowercase();
                    t.kind == TriggerKind::Remember
                        && !content.is_empty()
                        && t.content.contains(content.trim_end_matches(['。', '.']))
                        && JA_KEEP_FOR_GOOD
                            .iter()
                            .chain(&["forever", "permanently", "for good", "pin "])
                            .any(|m| p.contains(m))
                });
            // The earlier request keeps its words; the later one says how to keep them.
            if let Some((at, mut t)) = later {
                t.content = content;
                best = Some((at, t));
            }
        }
        if best.is_some() {
            break;
        }
    }
    if best.is_none()
        && let Some(m) = material
    {
        best = request_after_material(&text, m, extra);
    }
    if best.is_none() && soft.is_none() {
        best = told_before(&text, &sentences);
    }
    // What no phrase above names, the shape of the message may: a keeping verb and a colon
    // (保存して：…), or a question to the agent about what was kept or told (issue 18).
    if best.is_none() {
        best = asked::ja_keep_opener(&text, &sentences)
            .or_else(|| asked::asked_of_memory(&text, &sentences));
    }
    // Requests standing as their own clause anywhere, polite or placed last (覚えておいて
    // いただけますか at the end, "… note that"), and the recall, forget and reflect shapes the
    // phrase rules miss (issue 18, round 6).
    if best.is_none() {
        best = anywhere::forget_more(&text, &sentences)
            .or_else(|| anywhere::recall_more(&text, &sentences))
            .or_else(|| anywhere::ja_keep_anywhere(&text))
            .or_else(|| anywhere::ja_important_rule(&text, &sentences))
            .or_else(|| anywhere::en_note(&text, &sentences))
            .or_else(|| anywhere::reflect_more(&text));
    }
    // An order meant for all future work, with no keeping word (issue 18, round 8).
    if best.is_none() && soft.is_none() {
        best = standing::standing_order(&text, &sentences);
    }
    let heard = |t: &Trigger| !anywhere::overheard(&text, t);
    match best.map(|(_, t)| t).filter(heard).or(soft.filter(heard)) {
        Some(mut out) => {
            out.kind = anywhere::softened(&text, out.kind);
            // "Remember when we all wrote everything in jQuery? good times": reminiscing, not a
            // request (round 10).
            if reminisces(&text.norm) {
                return None;
            }
            // "Review your memories about me and consolidate anything duplicated?": a recall
            // that asks to tidy what is kept is a reflection (round 10).
            if out.kind == TriggerKind::Recall && tidies_memory(&text.norm) {
                out.kind = TriggerKind::Reflect;
                out.content = String::new();
            }
            Some(out)
        }
        // Where the rules hear nothing, the learned model may: it reads the whole message, not
        // a phrase in its place. Text pasted to be worked on stays material (issue 18).
        None if learn && material.is_none() => learned::heard(&text),
        None => None,
    }
}

/// "Remember when Pluto was a planet? wild times": a message that opens with "remember when"
/// and a past shared with the agent's user, not a question about what was kept.
fn reminisces(norm: &str) -> bool {
    let s = norm.trim_start();
    let Some(rest) = s.strip_prefix("remember when ") else { return false };
    let first = rest.split(['?', '.', '!']).next().unwrap_or(rest);
    let padded = format!(" {first} ");
    [" was ", " were ", " used to ", " had ", " all ", " everyone ", " people ", " wrote ", " did "]
        .iter()
        .any(|w| padded.contains(w))
        && !["my ", "our ", " i told", " i said", "you "].iter().any(|w| padded.contains(w))
}

/// Whether a message asks to tidy what is remembered: a word of consolidating and a word for
/// the memory ("consolidate anything duplicated" in your memories, 記憶していることを…整理).
fn tidies_memory(norm: &str) -> bool {
    let tidy = [
        "consolidate",
        "tidy",
        "clean up",
        "clean them up",
        "dedupe",
        "deduplicate",
        "declutter",
        "prune",
        "merge duplicate",
        "整理",
        "統合",
        "重複をまとめ",
    ]
    .iter()
    .any(|w| norm.contains(w));
    let memory =
        ["memor", "記憶", "メモリ", "覚えている", "覚えてる"].iter().any(|w| norm.contains(w));
    tidy && memory
}

/// A question or request about something the user gave the agent before: "what was the command
/// I gave you for renewing the cert?", "what's the name of the printer, I told you before",
/// "what are the deploy steps I saved?", 前に教えたやつを出して, 記録に残ってる？ It asks for
/// what is remembered, whatever words it uses for that (issue 18).
fn told_before(text: &Text<'_>, sentences: &[Span]) -> Option<(usize, Trigger)> {
    const BACK: &[&str] = &[
        "i told you",
        "i've told you",
        "i gave you",
        "did i give you",
        "have i given you",
        "i saved",
        "i've saved",
        "i had you save",
        "i asked you to remember",
        "i mentioned",
        "i shared with you",
        "i sent you",
        "i showed you",
    ];
    const JA_BACK: &[&str] = &[
        "前に教えた",
        "前に伝えた",
        "前に言った",
        "以前教えた",
        "以前伝えた",
        "この前教えた",
        "私が決めた",
        "記録に残って",
        "記憶に残って",
        "記憶の中から",
        "記憶から探して",
        "メモから探して",
        "保存したやつ",
        "覚えさせた",
        "私が話した",
        "前に話した",
        "記録ある",
        "記録してある",
        "メモある",
        "メモしてある",
        "前にメモした",
        "メモしたやつ",
        "前に保存した",
        "覚えてもらった",
    ];
    const WH: &[&str] = &["what", "what's", "whats", "which", "who", "where", "when", "how"];
    let first = sentences.first()?;
    let norm = &text.norm;
    let head = ja_strip_openers(sl(norm, first.start, first.end));
    let mut head = head.trim_start();
    for f in FILLERS {
        if starts_word(head, f) {
            head = head[f.len()..].trim_start_matches([',', ' ']);
        }
    }
    // "how does Dana like to get updates, did I tell you?": the question, then whether it was
    // told (round 10); "Did I tell you about my trip?" opens a story.
    for tail in [", did i tell you?", ", did i ever tell you?", ", did i mention it?"] {
        if let Some(i) = norm.trim_end().strip_suffix(tail).map(str::len)
            && i > 0
        {
            let topic = strip_question(text.orig_slice(first.start, i).to_owned());
            return Some(hit(text, TriggerKind::Recall, i + 2, norm.trim_end().len(), topic));
        }
    }
    let back = BACK.iter().find_map(|b| find_word(norm, b).map(|i| (i, *b)));
    if let Some((i, b)) = back
        && !in_quotes(norm, i)
        // "Who sang the song I mentioned?" asks about the song.
        && !asked::asks_about_media(sl(norm, first.start, first.end))
        && !asked::asks_how_to(head)
        // "What did the email I sent you say?" asks about material in this conversation.
        && !asked::names_material(sl(norm, first.start, first.end))
        // "what I told you yesterday was wrong" is a statement: a question puts the verb first.
        && (WH.iter().any(|w| starts_word(head, w) && !starts_word(head[w.len()..].trim_start(), "i"))
            || b.starts_with("did")
            || b.starts_with("have")
            // "The sourdough starter's name, I told you once... what is it?" (round 10)
            || ["what is it?", "what was it?", "what's it called?", "what was it called?"]
                .iter()
                .any(|w| norm.trim_end().ends_with(w)))
        // "what did you think of the movie I mentioned?" asks for an opinion.
        && !["what do you think", "what did you think", "how did you like", "how do you like"]
            .iter()
            .any(|w| starts_word(head, w))
    {
        let topic = strip_question(text.orig_slice(first.start, first.end).to_owned());
        return Some(hit(text, TriggerKind::Recall, i, i + b.len(), topic));
    }
    // Japanese: a pointer to what was told, then a question or a request to show it.
    let s = sl(norm, first.start, norm.len());
    let asks = s.contains(['？', '?'])
        || ["教えて", "出して", "探して", "見せて", "っけ", "はず", "だったかな", "だっけかな"]
            .iter()
            .any(|w| s.contains(w));
    let (i, b) = JA_BACK.iter().find_map(|b| s.find(b).map(|i| (i, *b)))?;
    if !asks || in_quotes(norm, first.start + i) || asked::ja_asks_other(s) {
        return None;
    }
    // The topic runs to the first comma: 前に伝えたWi-Fiのパスワード、教えて.
    let end = s.find(['、', '？', '?']).filter(|&e| e > i).unwrap_or(i);
    let topic = ja_trim_object(text.orig_slice(first.start, first.start + end));
    let at = first.start + i;
    Some(hit(text, TriggerKind::Recall, at, at + b.len(), topic))
}

/// A remember request on the last line of pasted material ("…\n\nremember the asset tag",
/// "…\nremember all of that", "…\n\nこれメモしておいて"): the user pasted the material to
/// be kept, so the material is the content. The line counts only when a blank line sets it
/// apart or it points back at the material; a last line of the material itself ("…\n
/// 忘れないでください。" in a notice to summarise) is not the user speaking (issue 18).
fn request_after_material(
    text: &Text<'_>,
    material: usize,
    extra: &ExtraPhrases,
) -> Option<(usize, Trigger)> {
    let body = text.norm.trim_end();
    let last = body.rfind('\n').map(|i| i + 1).filter(|&i| i > material)?;
    let line = &body[last..];
    let apart = body[..last].trim_end_matches([' ', '\t']).ends_with("\n\n");
    let points = ["this", "that", "it", "all of", "the above", "these", "those"]
        .iter()
        .any(|w| find_word(line, w).is_some())
        || ["これ", "それ", "以上", "上記"].iter().any(|w| line.contains(w));
    if !(apart || points) || line.chars().count() > 80 {
        return None;
    }
    let span = Span { start: last, end: body.len() };
    let (at, mut t) = english(text, span, extra)
        .into_iter()
        .chain(japanese(text, span))
        .filter(|(_, t)| t.kind == TriggerKind::Remember)
        .min_by_key(|(p, _)| *p)?;
    // "…\n\nremember to keep it short" is about the work asked for, not a request to keep.
    if t.phrase.to_ascii_lowercase().ends_with(" to") || is_task_caveat(line) {
        return None;
    }
    let pasted = trim_content(text.orig_slice(material, last));
    if pasted.is_empty() {
        return None;
    }
    t.content = pasted;
    Some((at, t))
}

/// Where pasted material starts, if the message opens by asking for work on it: "Can you
/// proofread this?", "Summarise the following notes:", "この文章を要約して：" on the first line,
/// with the material on the lines after. A request is what the user says to the agent, not a
/// line of the email or document they pasted (issue 18).
/// "Draft a reminder email to the team: please remember to submit timesheets by Friday": a
/// message the user asks the agent to write for others opens the text after the colon, which
/// speaks to them, not to the agent. Returns where that text starts.
fn drafted_material(norm: &str) -> Option<usize> {
    const WRITE: &[&str] = &["draft", "write", "compose", "prepare", "word", "type up"];
    const FOR_OTHERS: &[&str] = &[
        "email",
        "e-mail",
        "message",
        "text",
        "reminder",
        "post",
        "announcement",
        "memo",
        "letter",
        "tweet",
        "card",
        "reply",
        "invitation",
        "invite",
        "slack",
        "sms",
        "notice",
        "newsletter",
        "toast",
        "speech",
    ];
    let head = norm.trim_start();
    let head = ["please ", "can you ", "could you ", "pls "]
        .iter()
        .find_map(|p| head.strip_prefix(p))
        .unwrap_or(head);
    // "Translate this: …", この文章を英語に訳して：…: text given to work on, on one line.
    if let Some(colon) = head.find(':') {
        const WORK: &[&str] = &[
            "translate",
            "proofread",
            "summarise",
            "summarize",
            "rewrite",
            "paraphrase",
            "訳して",
            "翻訳して",
            "要約して",
            "校正して",
            "添削して",
            "直して",
            "英訳",
            "和訳",
        ];
        const MEMORY: &[&str] =
            &["remember", "note", "save", "keep", "memo", "覚え", "メモ", "記録", "忘れ", "保存"];
        let lead = &head[..colon];
        if lead.chars().count() <= 40
            && !lead.contains(['\n', '.', '?', '。'])
            && WORK.iter().any(|w| lead.contains(w))
            && !MEMORY.iter().any(|w| lead.contains(w))
        {
            return Some(norm.len() - head.len() + colon + 1);
        }
    }
    let verb = WRITE.iter().find(|v| starts_word(head, v))?;
    let colon = head.find(':')?;
    let words: Vec<&str> = head[verb.len()..colon].split_whitespace().collect();
    let names = words.len() <= 8
        && words.iter().take(4).any(|w| {
            let w = w.trim_end_matches(',');
            FOR_OTHERS.contains(&w) || w.strip_suffix('s').is_some_and(|w| FOR_OTHERS.contains(&w))
        })
        && !head[..colon].contains(['\n', '.', '?'])
        && !words.iter().any(|w| matches!(*w, "me" | "myself" | "self" | "yourself"));
    names.then(|| norm.len() - head.len() + colon + 1)
}

/// "Hypothetically, if I told you my sister's number, would you keep it forever?", "What if I
/// asked you to forget everything?": a sentence that imagines a request makes none.
fn hypothetical(sentence: &str) -> bool {
    let s = sentence.trim_start();
    // "Don't forget to smile is my motto": a saying, quoted without quotes.
    let said = s.trim_end_matches(['.', '!', '?', ' ']);
    if [
        " is my motto",
        " is my mantra",
        " is my favourite quote",
        " is my favorite quote",
        " is a saying",
        " is a good motto",
        " is my life motto",
    ]
    .iter()
    .any(|w| said.ends_with(w))
    {
        return true;
    }
    // "if I told you to remember my PIN, would you …?", もし暗証番号を覚えておいてって言ったら…:
    // asking how the agent would act, not asking it to (round 9).
    let asked_if = ["if i told you", "if i asked you", "if i tell you", "if i ask you"]
        .iter()
        .any(|w| starts_word(s, w))
        || s.starts_with("もし")
            && ["って言ったら", "と言ったら", "って頼んだら", "と頼んだら", "ってお願いしたら"]
                .iter()
                .any(|w| s.contains(w));
    asked_if
        || ["hypothetically", "what if", "suppose", "supposing", "imagine if", "in theory"]
            .iter()
            .any(|w| starts_word(s, w))
}

fn material_start(norm: &str) -> Option<usize> {
    let (first, _) = norm.split_once('\n')?;
    let first_end = first.len() + 1;
    if norm[first_end..].trim().is_empty() {
        return None;
    }
    let head = first.trim();
    let asks = head.ends_with([':', '?', '？']) || norm[first_end..].starts_with('\n');
    const WORK: &[&str] = &[
        "proofread",
        "summarise",
        "summarize",
        "summary",
        "translate",
        "review",
        "check",
        "fix",
        "rewrite",
        "edit",
        "improve",
        "shorten",
        "format",
        "explain",
        "correct",
        "polish",
        "tl;dr",
        "tldr",
        "read",
        "look at",
        "reply to",
        "respond to",
        "what do you think",
        "thoughts",
        "feedback",
        "here's",
        "here is",
        "below is",
        "the following",
        "this text",
        "this email",
    ];
    const JA_WORK: &[&str] = &[
        "要約",
        "訳して",
        "翻訳",
        "直して",
        "校正",
        "添削",
        "レビュー",
        "チェックして",
        "確認して",
        "まとめて",
        "読んで",
        "どう思う",
        "以下",
        "次の文",
        "この文章",
        "このメール",
    ];
    let work = WORK.iter().any(|w| find_word(head, w).is_some())
        || JA_WORK.iter().any(|w| head.contains(w));
    // Material is more than a line: "Can you check this?\nRemember that…" may be the user's own.
    let rest = &norm[first_end..];
    let long = rest.lines().filter(|l| !l.trim().is_empty()).count() >= 3 || rest.len() >= 200;
    (asks && work && long).then_some(first_end)
}

/// A message with a normalised copy (ASCII lower case, straight quotes) whose byte offsets map
/// back to the original.
struct Text<'a> {
    orig: &'a str,
    norm: String,
    /// For each byte of `norm`, the byte offset of its character in `orig`.
    at: Vec<usize>,
    /// Names the workspace knows (lower case), which make a topic the user's own.
    known: Known<'a>,
}

/// The names a workspace knows: given, or asked for the first time a rule needs them.
enum Known<'a> {
    Given(&'a [String]),
    Lazy(&'a dyn Fn() -> Vec<String>, std::cell::OnceCell<Vec<String>>),
}

impl Known<'_> {
    fn names(&self) -> &[String] {
        match self {
            Self::Given(names) => names,
            Self::Lazy(load, names) => names.get_or_init(load),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
}

impl<'a> Text<'a> {
    fn new(orig: &'a str, known: Known<'a>) -> Self {
        let mut norm = String::with_capacity(orig.len());
        let mut at = Vec::with_capacity(orig.len());
        let chars: Vec<(usize, char)> = orig.char_indices().collect();
        let boundary =
            |k: usize| chars.get(k).is_none_or(|(_, c)| !c.is_alphanumeric() && *c != '\'');
        let mut skip = 0;
        for (k, &(i, c)) in chars.iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            // Chat shorthand: "u" is "you", "ur" is "your".
            if matches!(c, 'u' | 'U') && (k == 0 || boundary(k - 1)) {
                let word = if boundary(k + 1) {
                    Some(("you", 0))
                } else if chars.get(k + 1).is_some_and(|(_, n)| matches!(n, 'r' | 'R'))
                    && boundary(k + 2)
                {
                    Some(("your", 1))
                } else {
                    None
                };
                if let Some((w, extra)) = word {
                    norm.push_str(w);
                    at.extend(std::iter::repeat_n(i, w.len()));
                    skip = extra;
                    continue;
                }
            }
            // Common typos of "remember" read as the word itself.
            if (k == 0 || boundary(k - 1)) && matches!(c, 'r' | 'R') {
                let word: String = chars[k..]
                    .iter()
                    .take_while(|(_, ch)| ch.is_alphabetic())
                    .map(|(_, ch)| ch.to_ascii_lowercase())
                    .collect();
                if REMEMBER_TYPOS.contains(&word.as_str()) || one_slip_from(&word, "remember") {
                    norm.push_str("remember");
                    at.extend(std::iter::repeat_n(i, "remember".len()));
                    skip = word.chars().count() - 1;
                    continue;
                }
            }
            if (k == 0 || boundary(k - 1)) && matches!(c, 'f' | 'F') {
                let word: String = chars[k..]
                    .iter()
                    .take_while(|(_, ch)| ch.is_alphabetic())
                    .map(|(_, ch)| ch.to_ascii_lowercase())
                    .collect();
                if FORGET_TYPOS.contains(&word.as_str()) {
                    norm.push_str("forget");
                    at.extend(std::iter::repeat_n(i, "forget".len()));
                    skip = word.chars().count() - 1;
                    continue;
                }
            }
            let n = match c {
                '\u{2018}' | '\u{2019}' | '`' | '\u{ff07}' => '\'',
                '\u{201c}' | '\u{201d}' => '"',
                '\u{3000}' | '\t' | '\r' => ' ',
                '\u{ff1a}' => ':',
                '\u{ff0c}' => ',',
                // "time to reflect 🧘": an emoji is punctuation to the rules.
                c if is_emoji(c) => ' ',
                c => c.to_ascii_lowercase(),
            };
            let before = norm.len();
            norm.push(n);
            at.extend(std::iter::repeat_n(i, norm.len() - before));
        }
        Self { orig, norm, at, known }
    }

    fn orig_at(&self, norm_pos: usize) -> usize {
        self.at.get(norm_pos).copied().unwrap_or(self.orig.len())
    }

    /// The original text between two normalised offsets, trimmed.
    fn orig_slice(&self, start: usize, end: usize) -> &'a str {
        let (s, e) = (self.orig_at(start), self.orig_at(end));
        self.orig[s.min(e)..e].trim()
    }

    /// Splits into sentences at `.`/`!`/`?` followed by a space or the end, at line breaks and
    /// at Japanese full stops; each keeps its terminator.
    fn sentences(&self) -> Vec<Span> {
        let b = self.norm.as_bytes();
        let mut out = Vec::new();
        let mut start = 0;
        let mut iter = self.norm.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            let next = iter.peek().map(|(_, n)| *n);
            let end_here = match c {
                '\n' => !wrapped_line(&self.norm[start..i], &self.norm[i + 1..]),
                '。' | '！' | '？' => true,
                '!' | '?' => !matches!(next, Some('!' | '?')),
                '.' => {
                    next.is_none_or(|n| n == ' ' || n == '\n')
                        && !is_abbreviation(&self.norm[start..i])
                }
                _ => false,
            };
            if end_here {
                let end = i + c.len_utf8();
                if !self.norm[start..end].trim().is_empty() {
                    out.push(Span { start, end });
                }
                start = end;
            }
        }
        if start < b.len() && !self.norm[start..].trim().is_empty() {
            out.push(Span { start, end: b.len() });
        }
        out
    }
}

/// Tells whether a line break only wraps a sentence: the line before stops mid-sentence (no
/// closing punctuation; in Japanese, a particle) and the next line goes on in lower case (or,
/// in Japanese, straight on). Pasted text is often hard-wrapped, and a wrapped line that happens
/// to start with "remember" is no request (issue 18).
fn wrapped_line(before: &str, after: &str) -> bool {
    let b = before.trim_end_matches([' ', '\t']);
    let Some(last) = b.chars().next_back() else { return false };
    let next = after.chars().next();
    if last.is_ascii_alphanumeric() || last == ',' {
        return next.is_some_and(|c| c.is_ascii_lowercase())
            && !b.trim_start().starts_with(['-', '*', '#', '>'])
            && b.split_whitespace().count() >= 4;
    }
    matches!(last, 'は' | 'が' | 'を' | 'に' | 'で' | 'と' | 'も' | 'の' | '、')
        && next.is_some_and(crate::word::is_cjk)
        && b.chars().count() >= 6
}

/// Tells whether a character is an emoji or a part of one (a joiner, a variation selector).
fn is_emoji(c: char) -> bool {
    matches!(c as u32, 0x2600..=0x27BF | 0x1F000..=0x1FAFF | 0xFE0F | 0x200D)
}

/// Misspellings of "forget" that are read as the word ("dont forgt").
const FORGET_TYPOS: &[&str] = &["forgt", "forgget", "frget", "foget", "forgat", "forgeet"];

/// Misspellings of "remember" that are read as the word (issue 18: typos).
const REMEMBER_TYPOS: &[&str] = &[
    "remeber",
    "rember",
    "remmeber",
    "rememebr",
    "remembr",
    "rmember",
    "remembe",
    "remmember",
    "rmbr",
    "rmber",
];

/// Tells whether `word` is `target` with one slip of the keyboard: a letter dropped, doubled,
/// swapped with its neighbour or struck wrong ("remmber", "remembr", "rememebr"), and not a real
/// inflection of it ("remembers").
fn one_slip_from(word: &str, target: &str) -> bool {
    let (w, t): (Vec<char>, Vec<char>) = (word.chars().collect(), target.chars().collect());
    if w == t || w.len() < t.len().saturating_sub(1) || w.len() > t.len() + 1 {
        return false;
    }
    if w.len() == t.len() + 1 && w.last() == Some(&'s') && w[..t.len()] == t[..] {
        return false;
    }
    let head = w.iter().zip(&t).take_while(|(a, b)| a == b).count();
    let tail = |a: &[char], b: &[char]| {
        a.iter().rev().zip(b.iter().rev()).take_while(|(x, y)| x == y).count()
    };
    match w.len().cmp(&t.len()) {
        std::cmp::Ordering::Equal => {
            let back = tail(&w[head..], &t[head..]);
            let left = w.len() - head - back;
            left == 1 || (left == 2 && w[head] == t[head + 1] && w[head + 1] == t[head])
        }
        std::cmp::Ordering::Greater => head + tail(&w[head..], &t[head..]) >= t.len(),
        std::cmp::Ordering::Less => head + tail(&t[head..], &w[head..]) >= w.len(),
    }
}

fn is_abbreviation(before: &str) -> bool {
    let last = before.rsplit(' ').next().unwrap_or("");
    matches!(last, "e.g" | "i.e" | "mr" | "mrs" | "ms" | "dr" | "vs" | "etc" | "st" | "no")
}

/// Words and phrases that may stand before an instruction without changing it.
const FILLERS: &[&str] = &[
    "but",
    "though",
    "so yeah",
    "hey there",
    "hey",
    "hi",
    "hello",
    "ok so",
    "okay so",
    "ok",
    "kk",
    "k",
    "okay",
    "oh and",
    "oh",
    "so",
    "and also",
    "and",
    "also",
    "btw",
    "by the way",
    "one more thing",
    "quick note",
    "quick one",
    "just",
    "actually",
    "now",
    "well",
    "um",
    "uh",
    "alright",
    "all right",
    "right",
    "anyway",
    "anyways",
    "before i forget",
    "fyi",
    "cogmem",
    "assistant",
    "hmm",
    "yes",
    "yeah",
    "no",
    "wait",
    "oops",
    "sorry",
    "thanks",
    "thank you",
    "great",
    "cool",
    "good",
    "perfect",
    "lastly",
    "finally",
    "then",
    "again",
    "from now on",
    "going forward",
    "in the future",
    "i think",
    "heads up",
    "listen",
    "look",
    "hey cogmem",
    "one last thing",
    "last thing",
    // "please permanently delete …": an adverb before the verb.
    "permanently",
    "completely",
    "totally",
    "quickly",
];

/// Politeness that turns a question into a request ("can you remember that…?").
const REQUESTS: &[&str] = &[
    "please",
    "pls",
    "plz",
    "kindly",
    "can you",
    "could you",
    "would you",
    "will you",
    "can u",
    "could u",
    "i want you to",
    "i'd like you to",
    "i would like you to",
    "i need you to",
    "make sure to",
    "make sure you",
    "be sure to",
    "try to",
    "go ahead and",
    "you should",
    "you need to",
    "you must",
    "i'd appreciate it if you'd",
    "mind if you",
    "you can",
    "you may",
    "feel free to",
];

/// A clause start after fillers, with whether a request word was seen.
#[derive(Debug, Clone, Copy)]
struct Clause {
    /// Normalised offset of the first word after fillers.
    start: usize,
    /// Normalised offset where the clause began (before fillers).
    raw_start: usize,
    /// End of the sentence.
    end: usize,
    /// End of this clause (next comma, semicolon or dash).
    sep_end: usize,
    requested: bool,
    question: bool,
}

/// Slices `s[a..b]`, empty when the range is reversed or not on character boundaries.
fn sl(s: &str, a: usize, b: usize) -> &str {
    if a >= b { "" } else { s.get(a..b).unwrap_or("") }
}

/// Returns true when `s` starts with `word` followed by a word boundary.
fn starts_word(s: &str, word: &str) -> bool {
    s.starts_with(word)
        // "remember_token" is an identifier, not the word.
        && s[word.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric() && !matches!(c, '\'' | '_'))
}

fn skip_separators(s: &str, mut i: usize) -> usize {
    while let Some(c) = s[i..].chars().next() {
        if matches!(
            c,
            ' ' | ',' | ':' | ';' | '-' | '—' | '–' | '!' | '.' | '"' | '(' | ')' | '…' | '、'
        ) {
            i += c.len_utf8();
        } else {
            break;
        }
    }
    i
}

/// Candidate starts of one clause: where it begins, then after each leading filler or
/// request word in turn ("ok so please remember" is tried at "ok", "so", "please" and
/// "remember"), so a rule can match a phrase that begins with a filler word ("good night").
fn clause_starts(text: &Text<'_>, raw_start: usize, end: usize) -> Vec<Clause> {
    let s = &text.norm;
    let mut i = skip_separators(s, raw_start).min(end);
    let question = s[raw_start..end].trim_end().ends_with('?');
    let sep_end = clause_end(s, i, end);
    let mut requested = false;
    let mut out = vec![Clause { start: i.min(end), raw_start, end, sep_end, requested, question }];
    while i < end {
        let rest = &s[i..end];
        if let Some(f) = REQUESTS.iter().find(|f| starts_word(rest, f)) {
            requested = true;
            i = skip_separators(s, i + f.len()).min(end);
        } else if let Some(f) = FILLERS.iter().find(|f| starts_word(rest, f)) {
            i = skip_separators(s, i + f.len()).min(end);
        } else {
            break;
        }
        let sep_end = clause_end(s, i, end);
        out.push(Clause { start: i.min(end), raw_start, end, sep_end, requested, question });
    }
    out
}

/// The end of the clause that starts at `from`: the next comma, semicolon, dash or the end of
/// the sentence.
fn clause_end(s: &str, from: usize, end: usize) -> usize {
    let mut prev_space = false;
    for (i, c) in s[from..end].char_indices() {
        let abs = from + i;
        if matches!(c, ',' | ';' | '—' | '–' | '、') || (c == '-' && prev_space) {
            return abs;
        }
        prev_space = c == ' ';
    }
    end
}

/// Clause starts within a sentence: its beginning and after each comma, semicolon, colon or
/// dash.
fn clauses(text: &Text<'_>, sentence: Span) -> Vec<Clause> {
    let s = &text.norm[..sentence.end];
    let mut starts = vec![sentence.start];
    for (i, c) in s[sentence.start..].char_indices() {
        let abs = sentence.start + i;
        let sep = matches!(c, ',' | ';' | '—' | '–' | '、')
            || (c == '-' && s[..abs].ends_with(' '))
            || (c == ':' && !s[abs + 1..].starts_with(|d: char| d.is_ascii_digit()));
        if sep {
            starts.push(abs + c.len_utf8());
        }
    }
    starts.into_iter().flat_map(|st| clause_starts(text, st, sentence.end)).collect()
}

/// The text after a phrase to the end of the message (later sentences belong to it too).
fn content_after(text: &Text<'_>, pos: usize) -> String {
    let s = &text.norm;
    let start = skip_separators(s, pos);
    // Later sentences belong to the content, unless they are a goodbye, thanks, or another
    // instruction ("Remember that my passport expires in May. Goodnight!").
    let mut end = s.len();
    for sentence in text.sentences().into_iter().rev() {
        if sentence.start <= start || sentence.end > end {
            continue;
        }
        let piece = sl(s, sentence.start, sentence.end);
        // A later "Never paste it in chat." belongs to the memory it follows.
        let other = rules_only(text.orig_slice(sentence.start, sentence.end))
            .filter(|t| !STANDING_OPENERS.contains(&t.phrase.to_ascii_lowercase().as_str()));
        if is_courtesy(piece) || other.is_some() {
            end = sentence.start;
        } else {
            break;
        }
    }
    let content = trim_content(text.orig_slice(start, end));
    strip_trailing_courtesy(&content)
}

/// "thanks", "ok", "bye": a sentence that carries no content.
fn is_courtesy(sentence: &str) -> bool {
    let t = sentence.trim().trim_end_matches(['.', '!', '?', ' ', '。', '！']).trim();
    matches!(
        t,
        "thanks"
            | "thank you"
            | "thx"
            | "ty"
            | "cheers"
            | "ok"
            | "okay"
            | "cool"
            | "great"
            | "perfect"
            | "bye"
            | "please"
            | "thanks a lot"
            | "thank you so much"
            | "much appreciated"
            | "ありがとう"
            | "よろしく"
            | "よろしくね"
            | "お願い"
            | "お願いします"
    )
}

/// Drops a trailing ", thanks" or ", please" from content.
fn strip_trailing_courtesy(content: &str) -> String {
    let lower = content.to_lowercase();
    for tail in [", thanks", ", thank you", ", thx", " thanks!", ", please", " please", ", cheers"]
    {
        let t = lower.trim_end_matches(['.', '!', ' ']);
        if t.ends_with(tail) && t.len() > tail.len() {
            return trim_content(&content[..t.len() - tail.len()]);
        }
    }
    content.to_owned()
}

fn trim_content(s: &str) -> String {
    s.trim_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | ':' | '-' | '—' | '–' | '、')
    })
    .to_owned()
}

/// Adverbials that may trail an instruction without adding content.
const TRAILERS: &[&str] = &[
    "please",
    "for me",
    "for later",
    "for the future",
    "for next time",
    "next time",
    "going forward",
    "from now on",
    "in the future",
    "too",
    "as well",
    "ok",
    "okay",
    "thanks",
    "thank you",
    "thx",
    "pls",
    "plz",
    "down",
    "now",
];

/// Tells whether a clause only points back at something said before: "remember that", "keep
/// it in mind for later", "disregard my last message".
fn is_pointer(rest: &str) -> bool {
    let mut r = rest.trim().trim_end_matches(['.', '!', '?', ' ', '。', '！']);
    loop {
        let before = r;
        for t in TRAILERS {
            if let Some(x) = r.strip_suffix(t).filter(|x| x.is_empty() || x.ends_with(' ')) {
                r = x.trim_end().trim_end_matches(',').trim_end();
            }
        }
        if r == before {
            break;
        }
    }
    matches!(
        r,
        "" | "that"
            | "this"
            | "it"
            | "that one"
            | "this one"
            | "one"
            | "all that"
            | "all of that"
            | "those"
            | "these"
            | "my last message"
            | "the last message"
            | "my previous message"
            | "what i just said"
            | "the last thing i said"
            | "that last bit"
            | "that last part"
            | "my last note"
            | "the previous one"
            | "the last one"
            | "that last message"
            | "what i said"
            | "everything i just said"
    )
}

/// Tells whether `rest` opens with a purpose ("so you can …", "so I don't …"), which makes a
/// "that" before it point back at what was said.
fn is_purpose(rest: &str) -> bool {
    let mut words = rest.split_whitespace();
    words.next() == Some("so")
        && matches!(words.next().map(str::to_lowercase).as_deref(), Some("you" | "u" | "i" | "we"))
}

/// Tells whether "this"/"it" after a verb refers back ("remember this if I ask"), rather than
/// opening the content ("remember that the demo moved").
fn is_pointer_head(rest: &str) -> bool {
    let r = rest.trim_start();
    let (first, tail) = r.split_once(' ').unwrap_or((r, ""));
    let first = first.trim_end_matches([',', '.', '!', '?', ';', ':']);
    let next = tail.split(' ').next().unwrap_or("");
    let subordinate = matches!(
        next,
        "" | "if"
            | "when"
            | "whenever"
            | "next"
            | "in"
            | "for"
            | "going"
            | "from"
            | "because"
            | "so"
            | "please"
            | "before"
            | "after"
            | "ok"
            | "okay"
    );
    match first {
        "this" | "it" | "these" | "those" | "all" => subordinate || r.len() == first.len(),
        "that" => {
            r.len() == first.len()
                || r[first.len()..].starts_with([',', '.', '!', ';', ' '])
                    && matches!(
                        next,
                        "" | "when" | "whenever" | "next" | "going" | "for" | "please"
                    )
                    && !r[first.len()..].trim_start().is_empty()
                    && subordinate
        }
        _ => false,
    }
}

/// Strips a leading "for next time:" or "workflow:" — up to four words and a colon.
fn strip_label(s: String) -> String {
    if let Some(i) = s.find(':') {
        let head = &s[..i];
        let words = head.split_whitespace().count();
        let rest = s[i + 1..].trim_start();
        let lead = head.trim_start().split(' ').next().unwrap_or("").to_ascii_lowercase();
        let self_label = matches!(
            lead.as_str(),
            "this" | "these" | "the" | "for" | "going" | "from" | "in" | "that" | "it" | "it's"
        );
        // "the decision is final: …" says something; "for next time: …" only labels.
        let says = head.split_whitespace().any(|w| matches!(w, "is" | "are" | "was" | "were"));
        if words <= 4
            && self_label
            && !says
            && !rest.is_empty()
            && !head.chars().any(|c| c.is_ascii_digit())
        {
            return rest.to_owned();
        }
    }
    for lead in [
        "for next time",
        "going forward",
        "from now on",
        "for the future",
        "for later",
        "for future reference",
        "in the future",
    ] {
        if s.get(..lead.len()).is_some_and(|h| h.eq_ignore_ascii_case(lead)) && s.len() > lead.len()
        {
            return trim_content(&s[lead.len()..]);
        }
    }
    s
}

/// Strips the words that name a memory rather than its topic: "the note about X" → "X".
fn strip_topic(s: String) -> String {
    let lower = s.to_ascii_lowercase();
    const HEADS: &[&str] = &[
        "everything i told you about",
        "everything i said about",
        "whatever i said about",
        "what i said earlier about",
        "what i told you earlier about",
        "what i said about",
        "what i told you about",
        "what i mentioned about",
        "what we decided about",
        "what we said about",
        "my earlier request to remember",
        "the last part about",
        "the part about",
        "the bit about",
        "the thing about",
        "the stuff about",
        "anything about",
        "everything about",
        "all about",
        "the note about",
        "the notes about",
        "that note about",
        "the reminder about",
        "that reminder about",
        "the memory about",
        "the memory of",
        "any memories of",
        "any memory of",
        "what you know about",
        "my earlier note about",
        "my earlier message about",
        "the last part about",
        "last part about",
        "the fact that",
        "i said",
        "i mentioned",
        "i told you",
    ];
    for h in HEADS {
        if lower.starts_with(h) && lower[h.len()..].starts_with(' ') {
            return trim_content(&s[h.len()..]);
        }
    }
    s
}

/// The text after a phrase to the end of its clause.
fn content_to(text: &Text<'_>, pos: usize, end: usize) -> String {
    let start = skip_separators(&text.norm, pos);
    if start >= end {
        return String::new();
    }
    trim_content(text.orig_slice(start, end)).trim_end_matches(['?', '.', '!']).trim().to_owned()
}

/// The sentences after the one a clause is in.
fn content_after_sentence(text: &Text<'_>, c: &Clause) -> String {
    trim_content(text.orig_slice(c.end, text.norm.len()))
}

/// The content before a pointer clause, with leading fillers removed.
fn content_before_clean(text: &Text<'_>, c: &Clause) -> String {
    let mut start = 0;
    if let Some(first) = clause_starts(text, 0, c.raw_start).last() {
        start = first.start;
    }
    // "no emojis in replies, ever. remember that": "no" opens the content, it is no filler.
    if sl(&text.norm, 0, start).trim() == "no" {
        start = 0;
    }
    if start >= c.raw_start {
        return String::new();
    }
    trim_content(text.orig_slice(start, c.raw_start))
}

fn hit(
    text: &Text<'_>,
    kind: TriggerKind,
    at: usize,
    phrase_end: usize,
    content: String,
) -> (usize, Trigger) {
    let phrase = text.orig_slice(at, phrase_end).to_owned();
    (at, Trigger { kind, phrase, content, learned: None })
}

fn english(text: &Text<'_>, sentence: Span, extra: &ExtraPhrases) -> Vec<(usize, Trigger)> {
    let mut out = Vec::new();
    for clause in clauses(text, sentence) {
        if let Some(h) = english_clause(text, &clause, extra)
            && !in_quotes(&text.norm, h.0)
        {
            out.push(h);
        }
    }
    out
}

/// Tells whether a position is inside quotation marks: a quoted phrase is mentioned, not said.
fn in_quotes(s: &str, pos: usize) -> bool {
    let before = &s[..pos];
    let open_ja = before.matches(['「', '『']).count() > before.matches(['」', '』']).count();
    let straight = before.matches('"').count() % 2 == 1;
    open_ja || straight
}

/// Tries every English rule at one clause start.
fn english_clause(text: &Text<'_>, c: &Clause, extra: &ExtraPhrases) -> Option<(usize, Trigger)> {
    let s = &text.norm;
    let rest = &s[c.start..c.end];
    if rest.is_empty() {
        return None;
    }
    for kind in TriggerKind::ALL {
        for p in extra.of(kind) {
            let p = p.trim().to_ascii_lowercase();
            if !p.is_empty() && starts_word(rest, &p) {
                let end = c.start + p.len();
                let after = sl(&text.norm, end, c.end);
                let content = if is_pointer(after) && kind == TriggerKind::Remember {
                    let before = content_before_clean(text, c);
                    if before.is_empty() { content_after_sentence(text, c) } else { before }
                } else if is_pointer(after) {
                    String::new()
                } else {
                    content_after(text, end)
                };
                let content = content.trim_end_matches(['?', '？']).trim().to_owned();
                return Some(hit(text, kind, c.start, end, content));
            }
        }
    }
    recall_rule(text, c, rest)
        .or_else(|| remember_rule(text, c, rest))
        .or_else(|| forget_rule(text, c, rest))
        .or_else(|| reflect_rule(text, c, rest))
        .or_else(|| soft_rule(text, c, rest))
        .or_else(|| standing_rule(text, c, rest))
}

/// Matches `phrase` then one of `connectors` (or none when `bare_ok`), returning the offset
/// after them.
fn phrase_then(rest: &str, phrase: &str, connectors: &[&str], bare_ok: bool) -> Option<usize> {
    if !starts_word(rest, phrase) {
        return None;
    }
    let after = &rest[phrase.len()..];
    let trimmed = after.trim_start();
    let skipped = after.len() - trimmed.len();
    let mut connectors = connectors.to_vec();
    connectors.sort_by_key(|c| std::cmp::Reverse(c.len()));
    for conn in connectors {
        if starts_word(trimmed, conn) {
            return Some(phrase.len() + skipped + conn.len());
        }
    }
    bare_ok.then_some(phrase.len())
}

fn recall_rule(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    // (phrase, connectors, is about memory rather than general knowledge)
    const ASKS: &[(&str, &[&str], bool)] = &[
        ("what do you remember", &["about", "of", "regarding", "from", "on"], true),
        ("what do you recall", &["about", "of", "regarding", "from"], true),
        ("what else do you remember", &["about", "of"], true),
        ("how much do you remember", &["about", "of"], true),
        ("what have you remembered", &["about", "of", "so far"], true),
        ("what have you learned", &["about", "of"], true),
        ("what have you learnt", &["about", "of"], true),
        ("do you have anything saved", &["about", "on", "regarding"], true),
        ("do you have anything stored", &["about", "on", "regarding"], true),
        ("have you got anything saved", &["about", "on"], true),
        ("what did i tell you", &["about", "regarding", "of"], true),
        ("what have i told you", &["about", "regarding"], true),
        ("what did i say", &["about", "regarding"], true),
        ("what have i said", &["about", "regarding"], true),
        ("what did i ask you to remember", &["about", "regarding", "of"], true),
        ("what did you save", &["about", "on", "regarding", "for"], true),
        ("what have you saved", &["about", "on", "regarding", "for"], true),
        ("what did you note", &["about", "on", "regarding", "for"], true),
        ("what did we say", &["about", "regarding"], true),
        ("what did we decide", &["about", "on", "regarding", "for"], true),
        ("what was decided", &["about", "on", "regarding", "for"], true),
        ("tell me what you remember", &["about", "of", "regarding"], true),
        ("tell me everything you remember", &["about", "of", "regarding"], true),
        ("tell me all you remember", &["about", "of", "regarding"], true),
        ("do you have any memories", &["about", "of", "regarding"], true),
        ("is there anything in your memory", &["about", "on", "regarding"], true),
        ("what's in your memory", &["about", "on", "regarding"], true),
        ("search your memory", &["for", "about"], true),
        ("check your memory", &["for", "about"], true),
        ("look in your memory", &["for", "about"], true),
        (
            "remind me",
            &[
                "what", "when", "where", "who", "why", "how", "which", "about", "of", "whether",
                "if",
            ],
            true,
        ),
        ("what do you know", &["about", "of", "regarding", "on"], false),
        ("what else do you know", &["about", "of"], false),
        ("how much do you know", &["about", "of"], false),
        ("tell me what you know", &["about", "of", "regarding"], false),
        ("tell me everything you know", &["about", "of", "regarding"], false),
        ("do you know anything", &["about", "regarding"], false),
        ("do you have anything", &["about", "on", "regarding"], false),
    ];
    for (phrase, conns, memory) in ASKS {
        if let Some(n) = phrase_then(rest, phrase, conns, false) {
            let end = c.start + n;
            // "remind me what/when …" keeps the question word in the topic.
            let from = if *phrase == "remind me" { c.start + phrase.len() } else { end };
            let topic = strip_topic(strip_question(content_to(text, from, c.end)));
            // "Can you remind me how long to boil an egg?" asks for knowledge, as does
            // "remind me how to reverse a list"; "remind me how I set up the VPN" is the user's.
            if *phrase == "remind me"
                && (topic.to_ascii_lowercase().starts_with("how ") || asks_definition(&topic))
                && !is_personal_topic(&topic)
                && !names_known(text, &topic)
            {
                return None;
            }
            // "What do you know about the French Revolution?" asks for knowledge, not memory.
            if !memory && !is_personal_topic(&topic) && !names_known(text, &topic) {
                return None;
            }
            // "search your memory for the VPN fix" names where to look: it is never general.
            let topic = if phrase.ends_with("your memory") {
                strip_topic(
                    topic
                        .trim_start_matches("anything about ")
                        .trim_start_matches("anything on ")
                        .to_owned(),
                )
            } else if is_general_topic(&topic) && !names_known(text, &topic) && *memory {
                return None;
            } else {
                topic
            };
            return Some(hit(text, TriggerKind::Recall, c.start, end, topic));
        }
    }
    // "What did I say last week about the client call?": a time between the verb and "about".
    for p in ["what did i say", "what did i tell you", "what did i mention", "what did we say"] {
        if !starts_word(rest, p) {
            continue;
        }
        let after = &rest[p.len()..];
        let Some(at) = after.find(" about ") else { continue };
        let between = after[..at].trim();
        let when = ["last", "yesterday", "earlier", "this", "the other day", "before", "on"];
        if !between.is_empty()
            && between.split_whitespace().count() <= 3
            && when.iter().any(|w| starts_word(between, w))
        {
            let end = c.start + p.len() + at + " about ".len();
            let topic = strip_topic(strip_question(content_to(text, end, c.end)));
            if !topic.is_empty() {
                return Some(hit(text, TriggerKind::Recall, c.start, end, topic));
            }
        }
    }
    for verb in [
        "do you remember",
        "do you recall",
        "do you still remember",
        "can you remember",
        "can you recall",
        "d'you remember",
        "you remember",
        "do you happen to remember",
        "would you remember",
    ] {
        if starts_word(rest, verb) {
            // "you remember …" only as a question.
            // "can u remember my gym is on King St" (no question mark) asks to keep it.
            if (verb == "you remember" || verb.starts_with("can") || verb.starts_with("would"))
                && !c.question
            {
                continue;
            }
            let end = c.start + verb.len();
            // "can you remember that the demo moved?" asks to store, not to recall.
            let after = sl(&text.norm, end, c.end).trim_start();
            if (verb.starts_with("can") || verb.starts_with("would"))
                && ["that", "to", "this", ":"]
                    .iter()
                    .any(|w| starts_word(after, w) || after.starts_with(w))
            {
                return None;
            }
            let topic = strip_topic(strip_question(content_to(text, end, c.end)));
            if topic.is_empty() || is_general_topic(&topic) && !names_known(text, &topic) {
                return None;
            }
            // "Can you remember the plot of Inception and explain it?" asks for work; so does
            // "Do you remember when phones had keyboards? Write me a tweet about it."
            if asks_for_work(&topic.to_ascii_lowercase().replace(" and ", ", "))
                || asks_for_work(sl(&text.norm, c.end, text.norm.len()))
            {
                return None;
            }
            // "Do you remember when phones had keyboards?" is nostalgia about how things were,
            // not a question about what the user told the agent.
            let lc = format!("{} ", topic.to_ascii_lowercase());
            if lc.starts_with("when ")
                && [" had ", " used to ", " were ", " was like "].iter().any(|w| lc.contains(w))
                && !is_personal_topic(&topic)
                && !names_known(text, &topic)
            {
                return None;
            }
            // "Do you remember how to reverse a linked list?" asks for knowledge.
            if topic.to_ascii_lowercase().starts_with("how ")
                && !is_personal_topic(&topic)
                && !names_known(text, &topic)
            {
                return None;
            }
            return Some(hit(text, TriggerKind::Recall, c.start, end, topic));
        }
    }
    // "Do you still have the cabin's wifi password?", "Anything in your notes about my landlord?"
    if c.question {
        // What follows "did I tell you" / "did I mention" when it asks about something told: the
        // order does not matter (`phrase_then` tries the longest first, and two whole words of one
        // length never both match).
        const TOLD: &[&str] = &[
            "about", "my", "our", "which", "whether", "if", "how", "the", "what", "where", "when",
            "who",
        ];
        const STORED: &[(&str, &[&str])] = &[
            ("do you still have", &[]),
            ("do you have", &["stored", "saved", "on file", "in your notes", "in memory"]),
            (
                "what have you got",
                &[
                    "stored on",
                    "stored about",
                    "saved on",
                    "saved about",
                    "on file about",
                    "on file for",
                    "on",
                    "about",
                ],
            ),
            (
                "what do you have",
                &[
                    "stored on",
                    "stored about",
                    "saved on",
                    "saved about",
                    "on file about",
                    "on file for",
                    "on file on",
                    "on file",
                    "on",
                    "about",
                ],
            ),
            ("anything in your notes", &["about", "on", "regarding"]),
            ("do you have anything in memory", &["about", "on", "regarding", "for"]),
            ("have you got anything in memory", &["about", "on", "regarding", "for"]),
            ("is there anything in memory", &["about", "on", "regarding", "for"]),
            ("any notes", &["on", "about", "regarding", "for"]),
            ("anything on file", &["for", "about", "on"]),
            ("did i ever tell you", TOLD),
            ("did i tell you", TOLD),
            ("have i told you", TOLD),
            ("did i ever mention", TOLD),
            ("did i mention", TOLD),
            (
                "have i ever mentioned",
                &["about", "my", "our", "which", "where", "what", "when", "who"],
            ),
            ("have i mentioned", &["about", "my", "our", "which", "where", "what", "when", "who"]),
            ("did i ever say", &["my", "our", "which", "where", "what", "when", "who"]),
            ("did we ever decide", &["on", "about", "what", "which", "where", "when", "who"]),
            ("did we decide", &["on", "about", "what", "which", "where", "when", "who"]),
            ("anything saved", &["about", "on", "regarding", "for"]),
            ("anything in memory", &["about", "on", "regarding", "for"]),
            ("where did i say", &[]),
            ("when did i say", &[]),
            ("anything in your memory", &["about", "on", "regarding"]),
            ("anything stored", &["about", "on", "regarding"]),
            ("what's in your notes", &["about", "on", "regarding"]),
            ("what did i say", &["my", "the", "our", "was", "is"]),
            ("what did i tell you", &["my", "the", "our", "was", "is"]),
            ("do you know", &["my", "our", "what my", "where my", "when my", "who my"]),
        ];
        for (p, conns) in STORED {
            let Some(n) = phrase_then(rest, p, conns, conns.is_empty()) else { continue };
            let end = c.start + n;
            // "do you have my / the …?" is personal only with a possessive or a known name.
            let from = if conns.iter().any(|w| {
                matches!(*w, "my" | "the" | "our" | "what my" | "where my" | "when my" | "who my")
            }) && !sl(&text.norm, c.start, end).ends_with(" about")
                && !sl(&text.norm, c.start, end).ends_with(" on")
            {
                c.start + p.len()
            } else {
                end
            };
            let topic = strip_topic(strip_question(content_to(text, from, c.end)));
            let topic_lc = topic.to_lowercase();
            let personal =
                is_personal_topic(&topic) || names_known(text, &topic) || *p != "do you know";
            // "Did I mention how much I love this weather?" exclaims.
            if topic.is_empty()
                || !personal
                || topic_lc.starts_with("any idea")
                || topic_lc.starts_with("how much i ")
                // "Any notes on how to structure a cover letter?" asks for advice.
                || asked::asks_how_to(&topic_lc)
            {
                continue;
            }
            return Some(hit(text, TriggerKind::Recall, c.start, end, topic));
        }
        // "What was the supplier's minimum order again?" asks for something told before.
        let q = sl(&text.norm, c.start, c.end).trim_end_matches(['?', ' ', '!', '.']);
        if let Some(body) = q.strip_suffix(" again")
            && ["what", "who", "when", "where", "which", "how"]
                .iter()
                .any(|w| starts_word(body, w) || body.starts_with(&format!("{w}'s ")))
        {
            let words: Vec<&str> = body.splitn(3, ' ').collect();
            // "what's my …" asks about what follows "what's"; "what was the …" after "was".
            let skip = if words[0].ends_with("'s") { 1 } else { 2 };
            if words.len() == 3 {
                let from = c.start + words[..skip].iter().map(|w| w.len() + 1).sum::<usize>();
                let topic = content_to(text, from, c.start + body.len());
                if !topic.is_empty() && !is_general_topic(&topic) {
                    return Some(hit(text, TriggerKind::Recall, c.start, c.end, topic));
                }
            }
        }
        // "Remind me, what was the garage door code?"
        if let Some(n) = phrase_then(rest, "remind me", &[], true)
            && sl(&text.norm, c.start + n, c.sep_end).trim_start().is_empty()
        {
            let topic = strip_question(content_to(text, c.sep_end, c.end));
            // "remind me, what's the Python syntax for a dict comprehension?" asks the world.
            if !topic.is_empty() && !is_general_topic(&topic) && !asks_definition(&topic) {
                return Some(hit(text, TriggerKind::Recall, c.start, c.start + n, topic));
            }
        }
    }
    if let Some(hit) = saved_lookup(text, c, rest).or_else(|| own_attribute(text, c, rest)) {
        return Some(hit);
    }
    // "Remember that party last summer?" asks, unless it was a request ("can you remember that …?").
    if !c.requested && c.question && c.raw_start == c.start && starts_word(rest, "remember") {
        let end = c.start + "remember".len();
        // "Remember the Titans is such a good movie, who directed it?" names a film.
        // "Remember to hydrate is good advice, isn't it?" asks about advice.
        if names_a_title(text, end) || starts_word(sl(&text.norm, end, c.end).trim_start(), "to") {
            return None;
        }
        // "Remember, remember, the fifth of November is a poem, right?" asks about the poem;
        // "Remember when we used to rent DVDs? Write a short paragraph about it" asks for work.
        if asked::asks_about_media(sl(&text.norm, c.start, c.end))
            || asked::asks_for_writing(sl(&text.norm, c.end, text.norm.len()))
        {
            return None;
        }
        let topic = strip_question(content_to(text, end, c.end));
        return Some(hit(text, TriggerKind::Recall, c.start, end, topic));
    }
    None
}

/// Tells whether what follows an instruction qualifies the task at hand rather than stating a
/// lasting fact: "… this paragraph", "… when you rewrite it".
/// Things about the user that only memory can answer.
const OWN_ATTRIBUTES: &[&str] = &[
    "password",
    "passcode",
    "pin",
    "address",
    "phone",
    "number",
    "birthday",
    "anniversary",
    "landlord",
    "dentist",
    "doctor",
    "gp",
    "physio",
    "therapist",
    "vet",
    "blood",
    "plate",
    "passport",
    "locker",
    "allergy",
    "allergies",
    "wife",
    "husband",
    "partner",
    "son",
    "daughter",
    "mom",
    "mum",
    "dad",
    "mother",
    "father",
    "sister",
    "brother",
    "boss",
    "manager",
    "kids",
    "appointment",
    "flight",
    "preferences",
    "rules",
    "settings",
    "name",
    "email",
    "teacher",
    "school",
    "gym",
    "office",
    "employer",
    "insurance",
    "account",
    "car",
];

/// "What's my Wi-Fi password?", "Who's my landlord?", "When's my next dentist appointment?",
/// "Tell me my mom's phone number": a question about the user's own things that only memory can
/// answer. "What's my best option?" and "What's my IP address?" are not.
fn own_attribute(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    const ASKS: &[&str] = &[
        "what's",
        "whats",
        "what is",
        "what was",
        "what are",
        "who's",
        "who is",
        "who was",
        "when's",
        "when is",
        "where's",
        "where is",
        "which is",
        "tell me",
        "give me",
        "remind me of",
    ];
    let ask = ASKS.iter().find(|a| starts_word(rest, a))?;
    if !c.question && !matches!(*ask, "tell me" | "give me" | "remind me of") {
        return None;
    }
    let after = rest[ask.len()..].trim_start();
    let my = ["my ", "our "].iter().find(|w| after.starts_with(*w))?;
    let words: Vec<String> = after[my.len()..]
        .split_whitespace()
        .take(5)
        .map(|w| {
            let w = w.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '\'');
            w.strip_suffix("'s").unwrap_or(w).to_owned()
        })
        .collect();
    // The thing asked for ends the question ("What's my wife's birthday?"); "What's my daughter
    // going to need for school?" asks for advice about her.
    let last = words.iter().rposition(|w| OWN_ATTRIBUTES.contains(&w.as_str()));
    let advice = last.is_some_and(|j| {
        words[j + 1..].iter().any(|w| {
            matches!(
                w.as_str(),
                "going"
                    | "supposed"
                    | "need"
                    | "needs"
                    | "should"
                    | "to"
                    | "do"
                    | "does"
                    | "doing"
                    | "wear"
                    | "eat"
                    | "get"
                    | "buy"
                    | "in"
            )
        })
    });
    let own = last.is_some()
        && !advice
        && !words.iter().any(|w| matches!(w.as_str(), "ip" | "best" | "score"));
    if !own {
        return None;
    }
    let from = c.start + (rest.len() - after.len());
    let topic = strip_question(content_to(text, from, c.end));
    let topic = topic.strip_suffix(" again").unwrap_or(&topic).to_owned();
    Some(hit(text, TriggerKind::Recall, c.start, c.start + ask.len(), topic))
}

/// "Can you look up what I saved about the kids' pediatrician?", "what's the descaling routine I
/// saved?", "What do you have in memory about my diet?": a question or a look-up that names what
/// the user stored. "I saved the file, can you check it?" names no stored memory to find.
fn saved_lookup(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    const LOOKUPS: &[&str] =
        &["look up", "find", "pull up", "dig up", "fetch", "get me", "show me", "check"];
    const WH: &[&str] = &["what", "what's", "whats", "which", "where", "when", "who", "how"];
    const MARKERS: &[&str] = &[
        "i saved",
        "i stored",
        "i noted",
        "i had you save",
        "i asked you to save",
        "i asked you to remember",
        "you saved",
        "you stored",
        "you noted",
        "you have saved",
        "you've saved",
        "you have stored",
        "you've stored",
        "you have in memory",
        "you have in your memory",
        "you have in your notes",
        "you've got in memory",
        "you keep in memory",
        "my notes on",
        "my notes about",
        "your notes on",
        "your notes about",
    ];
    let lookup = LOOKUPS.iter().find(|v| starts_word(rest, v));
    let wh = WH.iter().any(|w| starts_word(rest, w));
    // "How do I see what I saved in Google Keep?" asks how to do something.
    if lookup.is_none() && !(wh && c.question) || asked::asks_how_to(rest) {
        return None;
    }
    let clause = sl(&text.norm, c.start, c.end);
    let (k, m) = MARKERS.iter().find_map(|m| find_word(clause, m).map(|k| (k, *m)))?;
    let after = clause[k + m.len()..].trim_start();
    // The marker ends the clause or names the topic next ("… I saved about X", "… in memory on X").
    let topic_at = ["about", "on", "regarding", "for"]
        .iter()
        .find(|w| starts_word(after, w))
        .map(|w| c.start + clause.len() - after.len() + w.len());
    let closes = after.trim_end_matches(['?', '.', '!', ' ']).is_empty();
    let topic = if m.ends_with(" on") || m.ends_with(" about") {
        strip_question(content_to(text, c.start + k + m.len(), c.end))
    } else if let Some(p) = topic_at {
        strip_question(content_to(text, p, c.end))
    } else if closes {
        // "what's the descaling routine I saved?": the words between the question and the marker.
        let head = &clause[..k];
        let skip = head.split_whitespace().next().map_or(0, |w| w.len());
        let skip = lookup.map_or(skip, |v| v.len());
        let topic = content_to(text, c.start + skip, c.start + k);
        let lower = topic.to_ascii_lowercase();
        let lower = lower.strip_prefix("what ").unwrap_or(&lower);
        let cut = ["is ", "was ", "are ", "were "]
            .iter()
            .find(|w| lower.starts_with(*w))
            .map_or(0, |w| w.len());
        topic[topic.len() - lower.len() + cut..].trim().to_owned()
    } else {
        return None;
    };
    (!topic.is_empty())
        .then(|| hit(text, TriggerKind::Recall, c.start, c.start + k + m.len(), topic))
}

fn is_task_caveat(rest: &str) -> bool {
    const ARTIFACTS: &[&str] = &[
        "paragraph",
        "draft",
        "text",
        "email",
        "message",
        "document",
        "code",
        "essay",
        "post",
        "answer",
        "function",
        "file",
        "chart",
        "slide",
        "slides",
        "report",
        "pdf",
        "page",
        "script",
        "intro",
        "summary",
        "list",
        "table",
        "version",
    ];
    let padded = format!(" {} ", rest.replace(['.', ',', '!', '?'], " "));
    ARTIFACTS.iter().any(|a| {
        ["this", "these", "that"].iter().any(|d| padded.contains(&format!(" {d} {a} ")))
            || padded.contains(" when you ") && padded.contains(&format!(" the {a} "))
            || padded.contains(&format!(" {a} below "))
            || padded.contains(&format!(" {a} above "))
    }) || [
        " when you rewrite",
        " when you write",
        " when you summarize",
        " when you summarise",
        " when you translate",
        " when you draft",
        " when you edit",
        " when you export",
        " when you format",
        " while you edit",
    ]
    .iter()
    .any(|p| padded.contains(p))
}

/// Drops a leading "remember that" from the content of a standing instruction.
fn strip_leading_instruction(content: &str) -> String {
    let lower = content.to_ascii_lowercase();
    for p in [
        "please remember that",
        "remember that",
        "please remember",
        "remember",
        "note that",
        "keep in mind that",
        "keep in mind",
    ] {
        if lower.starts_with(p) && lower[p.len()..].starts_with([' ', ':', ',']) {
            return trim_content(&content[p.len()..]);
        }
    }
    content.to_owned()
}

/// Tells whether a topic names an entity the workspace knows.
fn names_known(text: &Text<'_>, topic: &str) -> bool {
    let lower = topic.to_lowercase();
    text.known
        .names()
        .iter()
        .any(|n| !n.is_empty() && (lower == *n || find_word(&lower, n).is_some()))
}

/// Tells whether a topic is about the user's own world (their people, things, projects) rather
/// than general knowledge: it has a first-person word, or is a bare name.
fn is_personal_topic(topic: &str) -> bool {
    let lower = format!(" {} ", topic.to_lowercase().replace(['?', '.', ',', '!'], " "));
    let personal = [
        " my ",
        " our ",
        " me ",
        " us ",
        " i ",
        " mine ",
        " we ",
        " myself ",
        " i've ",
        " i'm ",
        " so far ",
        " trip ",
        " account ",
        " project ",
        " plan ",
        " plans ",
        " schedule ",
        " appointment ",
        " meeting ",
        " booking ",
        " reservation ",
        " deadline ",
        " budget ",
        " team ",
        " client ",
        " order ",
        " call ",
        " launch ",
        " contract ",
        " invoice ",
        " password ",
        " passcode ",
        " code ",
        " address ",
        " number ",
        " pin ",
        " wi-fi ",
        " wifi ",
        " cabin ",
        " checklist ",
    ];
    if personal.iter().any(|w| lower.contains(w)) {
        return true;
    }
    let words: Vec<&str> = topic.split_whitespace().collect();
    !words.is_empty()
        && words.len() <= 3
        && words.iter().all(|w| w.chars().next().is_some_and(char::is_uppercase))
        && !words.iter().any(|w| w.contains(['\'', '\u{2019}']))
        && !matches!(words[0], "The" | "A" | "An")
}

/// Tells whether a topic names something of general knowledge: "the" and a capitalised name,
/// with nothing that marks it as the user's own ("the French Revolution", "the Y2K bug").
/// "what a cap rate is", "what's the Python syntax for …", "what a goroutine leak looks like":
/// a question of definition or syntax, general knowledge unless it is the user's (round 10).
fn asks_definition(topic: &str) -> bool {
    let lc = topic.to_ascii_lowercase();
    let lc = lc.trim_start_matches("what's ").trim_start_matches("what is ");
    ([
        "what a ",
        "what an ",
        "the syntax",
        "the python ",
        "the sql ",
        "the formula",
        "the command for",
    ]
    .iter()
    .any(|w| lc.starts_with(w) || format!("what's {lc}").starts_with(w))
        || lc.starts_with("a ") && lc.ends_with(" is"))
        && !is_personal_topic(topic)
}

fn is_general_topic(topic: &str) -> bool {
    let mut words = topic.split_whitespace().peekable();
    // "when the Berlin Wall fell": the question word does not change the topic.
    if words.peek().is_some_and(|w| {
        ["when", "what", "how", "why", "where", "who"].contains(&w.to_ascii_lowercase().as_str())
    }) {
        words.next();
    }
    let first = words.next().unwrap_or("");
    let second = words.next().unwrap_or("");
    let third = words.next().unwrap_or("");
    let fourth = words.next().unwrap_or("");
    // "the French Revolution"; "the history of Kyoto", "the plot of Inception".
    let named = second.chars().next().is_some_and(char::is_uppercase)
        || third == "of" && fourth.chars().next().is_some_and(char::is_uppercase);
    // "the difference between a 1099-NEC and a 1099-MISC": a comparison asks the world (round 9).
    let lc = topic.to_ascii_lowercase();
    let comparison = ["the difference between ", "difference between ", "the formula for "]
        .iter()
        .any(|w| lc.starts_with(w));
    (first.eq_ignore_ascii_case("the") && named || comparison) && !is_personal_topic(topic)
}

fn strip_question(s: String) -> String {
    s.trim_end_matches(['?', '？', '.', '!', ' ']).to_owned()
}

/// Is the text after "remember" a statement about a titled work ("the Titans is a film")?
fn names_a_title(text: &Text<'_>, pos: usize) -> bool {
    let orig = &text.orig[text.orig_at(pos)..];
    let words: Vec<&str> = orig.split_whitespace().take(8).collect();
    let mut i = 0;
    if words.first().is_some_and(|w| w.eq_ignore_ascii_case("the")) {
        i = 1;
    }
    let caps =
        words[i..].iter().take_while(|w| w.chars().next().is_some_and(char::is_uppercase)).count();
    if caps == 0 {
        return false;
    }
    let after: Vec<String> = words[i + caps..].iter().map(|w| w.to_ascii_lowercase()).collect();
    let is_copula = after.first().is_some_and(|w| matches!(w.as_str(), "is" | "was" | "are"));
    let media = [
        "film",
        "movie",
        "song",
        "book",
        "novel",
        "show",
        "series",
        "game",
        "album",
        "play",
        "musical",
        "band",
        "poem",
        "painting",
        "documentary",
        "classic",
        "sitcom",
    ];
    is_copula
        && after.iter().skip(1).take(6).any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric());
            media.iter().any(|m| w == *m || w.strip_suffix('s') == Some(m))
        })
}

fn remember_rule(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    let start = c.start;
    // "could you keep a note that Priya is allergic to shellfish?": the question mark belongs to
    // the request, not to what is kept.
    let done = |end: usize, content: String| {
        let content = if c.question && c.requested {
            content.trim_end_matches(['?', '？']).trim_end().to_owned()
        } else {
            content
        };
        Some(hit(text, TriggerKind::Remember, start, end, content))
    };
    let pointer_or_after = |end: usize| {
        let rest = &sl(&text.norm, end, c.end);
        let clause = sl(&text.norm, end, c.sep_end);
        let pointer_clause = !clause.trim().is_empty() && is_pointer(clause);
        // "… — remember that so you can build my lists": the phrase's own "that" points back
        // when a purpose follows it ("remember that so many came" says something).
        let that_for = sl(&text.norm, start, end).trim_end().ends_with("that") && is_purpose(rest);
        if is_pointer(rest) || pointer_clause || is_pointer_head(rest) || that_for {
            let before = content_before_clean(text, c);
            if before.is_empty() { content_after_sentence(text, c) } else { before }
        } else {
            let content = strip_label(content_after(text, end));
            // "git tip, remember it: to undo …": the words before name what follows.
            let title = content_before_clean(text, c);
            if ["it:", "this:", "that:"].iter().any(|p| rest.trim_start().starts_with(p))
                && !title.is_empty()
                && title.split_whitespace().count() <= 6
            {
                format!("{title}: {content}")
            } else {
                content
            }
        }
    };
    // "don't forget (to|that) …", "never forget …"
    for p in [
        "don't forget",
        "do not forget",
        "dont forget",
        "never forget",
        "don't you forget",
        "do not ever forget",
    ] {
        if let Some(n) = phrase_then(rest, p, &["that", "about", "this", ":"], true) {
            let end = start + n;
            if is_task_caveat(sl(&text.norm, end, text.norm.len())) {
                return None;
            }
            return done(end, pointer_or_after(end));
        }
    }
    if let Some(n) = phrase_then(
        rest,
        "remember",
        &[
            "that",
            "this",
            ":",
            "to",
            "the fact that",
            "for later",
            "for the future",
            "for next time that",
            "for next time",
            "for future reference that",
            "forever that",
            "forever:",
            "for good that",
            "forever",
        ],
        true,
    ) {
        let end = start + n;
        if c.question && !c.requested {
            return None; // a question about remembering: handled as recall or not a trigger
        }
        let after = sl(&text.norm, end, c.end).trim_start();
        // "remember when we …" reminisces; "remember me" is not an instruction.
        // "remember how to clear the cache: …" asks to keep a how-to; "remember how we met"
        // reminisces.
        let how_to = starts_word(after, "how to")
            || (starts_word(after, "how") && sl(&text.norm, end, c.end).contains(':'));
        if n == "remember".len()
            && (starts_word(after, "when")
                || starts_word(after, "me")
                || starts_word(after, "how") && !how_to
                || starts_word(after, "being"))
        {
            return None;
        }
        if n == "remember".len() && names_a_title(text, end) {
            return None;
        }
        // "Can you remember the plot of Inception and explain it?" asks for work, not to keep.
        if c.question && asks_for_work(&after.replace(" and ", ", ")) {
            return None;
        }
        // "remember this and don't ever let it fade: always …": how to keep it, then a colon;
        // the phrase runs to the colon, which routing reads (the vault).
        if sl(&text.norm, start, end).ends_with(" this")
            && starts_word(after, "and")
            && let Some(k) = after.find(':')
            && after[..k].split_whitespace().count() <= 8
            && !after[..k].contains(['.', '?', '!'])
        {
            let colon = end + (sl(&text.norm, end, c.end).len() - after.len()) + k + 1;
            return done(colon, content_after(text, colon));
        }
        return done(end, pointer_or_after(end));
    }
    let phrases: &[(&str, &[&str], bool)] = &[
        ("remind me to", &[], true),
        ("don't let me forget", &["to", "that", "about", ":"], true),
        ("do not let me forget", &["to", "that", "about", ":"], true),
        ("keep in mind", &["that", ":"], true),
        ("from now on", &[":"], true),
        ("going forward", &[":"], true),
        ("pin this", &[":", "one:", "permanently:", "forever:", "for good:", "-"], false),
        ("pin that", &[":", "permanently", "forever"], false),
        ("for future chats", &[":"], true),
        ("for future conversations", &[":"], true),
        ("for future sessions", &[":"], true),
        ("in future chats", &[":"], true),
        ("in future conversations", &[":"], true),
        ("just so you know for the future", &[":"], true),
        ("just so you know for later", &[":"], true),
        ("heads up for the future", &[":"], true),
        ("heads up for future chats", &[":"], true),
        ("store the fact that", &[":"], true),
        ("store that", &[":"], false),
        ("take note", &["that", "of this", "of that", "of", ":"], true),
        ("just so you remember", &[":"], true),
        ("so you remember", &[":"], true),
        ("so you don't forget", &[":"], true),
        ("so that you remember", &[":"], true),
        ("bear in mind", &["that", ":"], true),
        ("keep that in mind", &[], true),
        ("keep this in mind", &[":"], true),
        ("keep it in mind", &[], true),
        ("note that", &[":"], true),
        ("note this", &[":", "down"], true),
        ("note down", &["that", ":"], true),
        ("note to self", &[":"], true),
        ("note 2 self", &[":"], true),
        ("memo to self", &[":"], true),
        ("note:", &[], true),
        ("make a note", &["that", "of this", "of that", "of", ":"], true),
        ("keep a note", &["that", "of this", "of that", "of", ":"], true),
        ("take a note", &["that", "of", ":"], true),
        ("jot down", &["that", ":"], true),
        ("jot this down", &[":"], true),
        ("jot that down", &[":"], true),
        ("write that down", &[":"], true),
        ("would you mind remembering", &["that", ":"], true),
        ("update your memory", &[":", "with", "that"], false),
        ("update your notes", &[":", "with", "that"], false),
        ("mind remembering", &["that", ":"], true),
        ("write down", &["that", ":"], true),
        ("write this down", &[":"], true),
        ("important:", &[], true),
        ("important -", &[], true),
        ("important —", &[], true),
        ("important –", &[], true),
        ("very important:", &[], true),
        ("this is important", &[":", "-"], true),
        ("for future reference", &[":"], true),
        ("for the record", &[":"], true),
        ("for later reference", &[":"], true),
        ("fyi for later", &[":"], true),
        ("fyi for the future", &[":"], true),
        (
            "save this",
            &[
                "for later",
                "to memory",
                "to your memory",
                "in memory",
                "in your memory",
                "for future reference",
                "for the future",
                "for next time",
                ":",
            ],
            false,
        ),
        (
            "save that",
            &[
                "for later",
                "to memory",
                "to your memory",
                "in memory",
                "in your memory",
                "for future reference",
                "for the future",
                "for next time",
                ":",
            ],
            false,
        ),
        ("store this", &["for later", "in memory", "in your memory", ":"], false),
        ("memorize", &["that", "this", ":"], true),
        ("memorise", &["that", "this", ":"], true),
        ("commit this to memory", &[":"], true),
        ("commit that to memory", &[], true),
        ("add this to your memory", &[":"], true),
        ("add to your memory", &[":"], true),
        ("add to memory", &[":"], true),
        ("save to memory", &[":"], true),
        ("put this in your memory", &[":"], true),
        ("put that in your memory", &[], true),
    ];
    for (p, conns, bare) in phrases {
        if let Some(n) = phrase_then(rest, p, conns, *bare) {
            let end = start + n;
            // "keep in mind this is a rough draft" qualifies the request at hand.
            let after = sl(&text.norm, end, c.end).trim_start();
            if (p.contains("in mind") || p.starts_with("note"))
                && is_task_caveat(sl(&text.norm, end, text.norm.len()))
            {
                return None;
            }
            // "Make a note in the README that DATABASE_URL is required" writes in a file (round 9).
            let in_file = [
                "in the readme",
                "in readme",
                "in the docs",
                "in the doc",
                "in the file",
                "in the code",
                "in the ticket",
                "in the issue",
                "in the pr",
                "in the changelog",
                "in the wiki",
                "in the comment",
                "in a comment",
                "in the spreadsheet",
                "in the calendar",
            ]
            .iter()
            .any(|w| after.starts_with(w));
            if in_file && p.contains("note") {
                return None;
            }
            // "Write down three ideas for the offsite" asks for work; "write down: the code is
            // on the card" and "write down that …" keep something.
            // "jot down how to bleed the radiators: …" names a procedure, then its steps.
            let procedure = ["how to ", "the steps ", "the procedure ", "the process "]
                .iter()
                .any(|w| after.starts_with(w))
                && after.find(':').is_some_and(|k| !after[k + 1..].trim().is_empty());
            if matches!(*p, "write down" | "jot down" | "note down")
                && n == p.len()
                && !states_something(after)
                && !procedure
            {
                return None;
            }
            // "From now on it should get easier" forecasts; it asks nothing.
            if matches!(*p, "from now on" | "going forward") && forecasts(after) {
                return None;
            }
            // A standing instruction ("from now on, remember that …") keeps only its content.
            if matches!(*p, "from now on" | "going forward")
                || p.starts_with("for future")
                || p.starts_with("in future")
                || p.starts_with("just so you know")
                || p.starts_with("heads up")
            {
                let content = pointer_or_after(end);
                return done(end, strip_leading_instruction(&content));
            }
            if (p.contains("in mind") || p.starts_with("note"))
                && ["this is", "it's", "it is", "this was", "that this", "that it's", "that it is"]
                    .iter()
                    .any(|x| starts_word(after, x))
            {
                return None;
            }
            // "save this" alone at the end of a message points back; "save this file" is not ours.
            if !*bare && n == p.len() {
                continue;
            }
            return done(end, pointer_or_after(end));
        }
    }
    // "Note the steps to rotate logs:\n1) …": a note whose content follows on its own lines.
    if starts_word(rest, "note") && !c.question {
        let head = sl(&text.norm, start, text.norm.len());
        if let Some(k) = head.find(":\n").filter(|k| head[..*k].split_whitespace().count() <= 8) {
            let end = start + k + 1;
            let content = content_after(text, end);
            if !content.is_empty() && !is_task_caveat(&content.to_ascii_lowercase()) {
                return done(end, content);
            }
        }
    }
    // "Please note I don't drink alcohol": a polite "note" before the user's own fact.
    if c.requested && starts_word(rest, "note") {
        let after = rest["note".len()..].trim_start();
        if ["i", "i'm", "i've", "i'd", "my", "we", "we're", "our"]
            .iter()
            .any(|w| starts_word(after, w))
        {
            let end = start + "note".len();
            return done(end, content_after(text, end));
        }
    }
    // "note how to change the bike chain: …", "Note the procedure for a failed cron: …": a
    // procedure named, then its steps after a colon.
    let verb = ["note", "jot down", "write down", "save", "record", "log"]
        .into_iter()
        .find(|v| starts_word(rest, v));
    if let Some(verb) = verb
        && !c.question
        && c.raw_start == c.start
    {
        let after = rest[verb.len()..].trim_start();
        let named = ["how to ", "the procedure ", "the steps ", "the process ", "the routine "]
            .iter()
            .any(|w| after.starts_with(w));
        if named
            && let Some(k) = after.find(':')
            && after[..k].split_whitespace().count() <= 12
            && !after[k + 1..].trim().is_empty()
        {
            let end = start + verb.len();
            return done(end, content_after(text, end));
        }
    }
    // "remind me tmrw to call mom", "remind me on Friday to renew the cert": a time, then the task.
    if starts_word(rest, "remind me") && !c.question {
        let after = sl(&text.norm, start + "remind me".len(), c.end);
        if let Some(k) = find_word(after, "to")
            && after[..k].split_whitespace().count() <= 3
            && !after[..k].trim().is_empty()
        {
            let end = start + "remind me".len();
            return done(end, content_after(text, end));
        }
    }
    // "Forwarding this so you keep it in mind:\n> Your appointment …": passed on for the agent to keep.
    if let Some(end) = passed_on_to_keep(text, c, rest) {
        let content = content_after(text, end);
        let content = content.trim_start_matches(['>', ' ']).replace("\n> ", "\n");
        if !content.trim().is_empty() {
            return done(end, trim_content(&content));
        }
    }
    // "Save this recipe: …", "pin this and never let it fade: …", "keep this one — …": a
    // storing verb on "this", then a label, then the content after the colon or dash.
    if let Some(end) = labelled_keep(text, c, rest) {
        return done(end, strip_label(content_after(text, end)));
    }
    // "save this", "store all of that", "log that one": a storing verb that points back.
    let pointed = ["save", "store", "log", "record"]
        .iter()
        .find(|v| starts_word(rest, v))
        .is_some_and(|v| !rest[v.len()..].trim().is_empty() && is_pointer(&rest[v.len()..]));
    if pointed {
        let before = content_before_clean(text, c);
        let content = if before.is_empty() { content_after_sentence(text, c) } else { before };
        return done(c.end, content);
    }
    // Composed: a storing verb with a memory destination ("log this for future chats: …",
    // "keep that in your memory"), or a verb that is about memory by itself ("retain this: …").
    if let Some((verb, inherent)) = STORE_VERBS.iter().find(|(v, _)| starts_word(rest, v)) {
        let end = start + verb.len();
        let whole = sl(&text.norm, end, text.norm.len());
        let clause = sl(&text.norm, end, c.end);
        let dest = DESTINATIONS.iter().find_map(|d| find_word(clause, d).map(|i| (i, d.len(), *d)));
        let colon = clause.find(':');
        let obj = sl(&text.norm, end, dest.map_or(c.sep_end, |(i, ..)| end + i));
        let obj_bare = obj.trim().trim_start_matches("on to").trim_start_matches("onto").trim();
        let pointer_obj = obj_bare.is_empty() || is_pointer(obj_bare) || is_pointer_head(obj_bare);
        // "save the file for later" is a task; "save this for later" and "keep it in your memory"
        // are about memory.
        let strong = dest.is_some_and(|(.., d)| !WEAK_DESTINATIONS.contains(&d));
        let weak_ok = dest.is_some() && (pointer_obj || *verb == "know");
        let after_dest_that = dest.and_then(|(i, l, _)| {
            let p = end + i + l;
            let a = sl(&text.norm, p, c.end);
            let t = a.trim_start().trim_start_matches(',').trim_start();
            t.starts_with("that ").then(|| p + (a.len() - t.len()) + 5)
        });
        // "vault this: …" asks for the vault; "vault 7 leaked" names one.
        let vault_ok = *verb != "vault"
            || pointer_obj
            || colon.is_some_and(|k| is_pointer(sl(&text.norm, end, end + k)));
        if (*inherent || strong || weak_ok) && vault_ok {
            let content = if let Some(k) = colon {
                content_after(text, end + k + 1)
            } else {
                // Drop the destination ("for later"), then decide between pointer and content.
                if let Some(p) = after_dest_that {
                    content_after(text, p)
                } else if pointer_obj {
                    let before = content_before_clean(text, c);
                    if before.is_empty() { content_after_sentence(text, c) } else { before }
                } else {
                    let after_dest = dest.map(|(i, l, _)| end + i + l);
                    let from = match after_dest {
                        Some(p) if sl(&text.norm, p, c.end).trim_start().starts_with("that ") => {
                            p + sl(&text.norm, p, c.end).find("that ").map_or(0, |k| k + 5)
                        }
                        _ => end,
                    };
                    strip_leading_that(&content_after(text, from))
                }
            };
            let _ = whole;
            // The phrase runs to the destination ("keep this in the vault"), which routing reads.
            let phrase_end = dest.map_or(end, |(i, l, _)| end + i + l);
            return done(phrase_end, content);
        }
    }
    // "Quick one to remember: …", "something worth remembering: …"
    for label in [
        "reminder for later:",
        "reminder for next time:",
        "reminder for the future:",
        "note for later:",
        "quick note:",
        "quick note —",
        "quick note -",
        "for your notes:",
        "for your notes —",
        "for your notes -",
        "for your records:",
        "for your records —",
        "for your memory —",
        "note for future:",
        "note for the future:",
        "note for next time:",
        "for future reference:",
        "to remember:",
        "worth remembering:",
        "to keep in mind:",
        "for your memory:",
        "for the memory bank:",
    ] {
        if let Some(k) = sl(&text.norm, c.start, c.end).find(label)
            && sl(&text.norm, c.start, c.start + k).split_whitespace().count() <= 4
        {
            let end = c.start + k + label.len();
            return done(end, content_after(text, end));
        }
    }
    // "just so you know for next time, …": a heads-up with a memory destination.
    for p in ["just so you know", "so you know", "fyi", "heads up", "you should know"] {
        if let Some(n) = phrase_then(rest, p, &[], true) {
            let after = sl(&text.norm, start + n, c.sep_end).trim_start();
            if let Some(d) = DESTINATIONS.iter().find(|d| starts_word(after, d)) {
                let end = start
                    + n
                    + (sl(&text.norm, start + n, c.sep_end).len() - after.len())
                    + d.len();
                let after_d = sl(&text.norm, end, c.end).trim_start();
                let content = if after_d.starts_with("that ") {
                    content_after(
                        text,
                        end + sl(&text.norm, end, c.end).find("that ").map_or(0, |k| k + 5),
                    )
                } else {
                    content_after(text, end)
                };
                return done(end, content);
            }
        }
    }
    None
}

/// "Forwarding this so you keep it in mind: …", "pasting this here so you have it for later: …":
/// a verb of passing something on, then a purpose of keeping it, then a colon. Returns the offset
/// after the colon.
fn passed_on_to_keep(text: &Text<'_>, c: &Clause, rest: &str) -> Option<usize> {
    const PASS: &[&str] = &[
        "forwarding",
        "sending",
        "pasting",
        "sharing",
        "passing along",
        "passing on",
        "dropping",
        "here's",
        "here is",
    ];
    const PURPOSE: &[&str] = &[
        "so you keep it in mind",
        "so you keep this in mind",
        "so you can keep it in mind",
        "so you remember",
        "so you can remember",
        "so that you remember",
        "so you don't forget",
        "so you have it",
        "so you have this",
        "so you can have it",
        "so you know for later",
        "so you keep it",
        "for you to remember",
        "for you to keep",
        "for your memory",
        "for your records",
    ];
    let verb = PASS.iter().find(|v| starts_word(rest, v))?;
    let whole = sl(&text.norm, c.start, text.norm.len());
    let colon = whole.find(':')?;
    let head = &whole[verb.len()..colon];
    if head.split_whitespace().count() > 12 || head.contains(['\n', '.', '?']) {
        return None;
    }
    PURPOSE.iter().any(|p| find_word(head, p).is_some()).then_some(c.start + colon + 1)
}

/// "Save this recipe: toast the cumin…", "pin this and never let it fade: always…", "please pin
/// this permanently — our wedding date…": a storing verb on "this"/"that" (or a knowledge noun:
/// "save my recipe"), a few words, then a colon or dash with content after it. Returns the
/// offset after the separator. "Save this as a PDF: …" and "save the file: …" name work.
fn labelled_keep(text: &Text<'_>, c: &Clause, rest: &str) -> Option<usize> {
    const VERBS: &[&str] = &[
        "keep track of",
        "hold onto",
        "hold on to",
        "hang onto",
        "hang on to",
        "save",
        "keep",
        "store",
        "note",
        "log",
        "record",
        "file",
        "pin",
        "stash",
        "bookmark",
    ];
    const OBJECTS: &[&str] = &["this", "that", "these", "it"];
    const KNOWLEDGE: &[&str] = &[
        "recipe",
        "workflow",
        "routine",
        "process",
        "procedure",
        "tip",
        "trick",
        "rule",
        "fact",
        "info",
        "detail",
        "details",
        "preference",
        "setup",
        "config",
        "steps",
        "checklist",
    ];
    if c.question {
        return None;
    }
    let verb = VERBS.iter().find(|v| starts_word(rest, v))?;
    let after = &rest[verb.len()..];
    let head_end = [":", " — ", " – ", " - "]
        .iter()
        .filter_map(|sep| after.find(sep).map(|k| (k, sep.len())))
        .min_by_key(|(k, _)| *k)?;
    let head = &after[..head_end.0];
    let words: Vec<&str> = head.split_whitespace().collect();
    if words.is_empty() || words.len() > 8 || head.contains(['.', '?', '!', '\n']) {
        return None;
    }
    let pointed = OBJECTS.contains(&words[0]);
    let knows = words.iter().take(3).any(|w| KNOWLEDGE.contains(&w.trim_end_matches(',')));
    // "Save this as a PDF:", "Keep this short:", "Store this in a variable:": how to do the work.
    const WORK: &[&str] = &[
        "as",
        "file",
        "to",
        "short",
        "brief",
        "simple",
        "casual",
        "formal",
        "under",
        "concise",
        "professional",
        "polite",
        "friendly",
        "light",
        "variable",
        "array",
        "database",
        "table",
        "column",
        "draft",
        "between",
        "error",
    ];
    if !(pointed || knows) || words.iter().any(|w| WORK.contains(&w.trim_end_matches(','))) {
        return None;
    }
    // "keep" is about memory only with nothing but the pointer, a thing to know or a time.
    let held = words.len() == 1
        || knows
        || ["forever", "permanently", "good", "later", "safe", "handy", "mind", "pinned"]
            .iter()
            .any(|w| words.contains(w));
    if *verb == "keep" && !held {
        return None;
    }
    let end = c.start + verb.len() + head_end.0 + head_end.1;
    let tail = sl(&text.norm, end, text.norm.len()).trim();
    (tail.split_whitespace().count() >= 3).then_some(end)
}

/// Tells whether the words after a "write down" state something to keep (a colon, or a verb of
/// being in its first words: "my locker is 212") rather than name work to do.
fn states_something(after: &str) -> bool {
    let words: Vec<&str> = after.split_whitespace().take(8).collect();
    words.iter().take(3).any(|w| w.ends_with(':'))
        || after.trim_start().starts_with(':')
        || words.iter().any(|w| {
            matches!(*w, "is" | "are" | "was" | "were" | "has" | "have" | "lives" | "works")
                || w.ends_with("'s") && words.first() != Some(w)
        })
}

/// Tells whether the words after "from now on" forecast ("it should get easier") rather than
/// instruct or state something to keep.
fn forecasts(after: &str) -> bool {
    let a = after.trim_start_matches([',', ':', ' ']);
    ["it", "things", "this", "that", "everything", "it'll", "things'll", "that'll"]
        .iter()
        .any(|s| starts_word(a, s))
        && ["should", "will", "'ll", "might", "may", "could", "gets", "is going", "won't"]
            .iter()
            .any(|m| a.split_whitespace().take(3).any(|w| w.ends_with(m) || w == *m))
}

/// Words that open a standing rule.
const STANDING_OPENERS: &[&str] = &["always", "never ever", "never", "don't ever", "do not ever"];

/// Words after "always"/"never" that show it opens no order ("never mind", "always nice").
const NOT_A_VERB: &[&str] = &[
    "mind",
    "again",
    "ever",
    "been",
    "the",
    "a",
    "an",
    "too",
    "enough",
    "before",
    "once",
    "knew",
    "know",
    "had",
    "have",
    "has",
    "was",
    "were",
    "is",
    "am",
    "are",
    "will",
    "would",
    "could",
    "can",
    "did",
    "do",
    "does",
    "in",
    "on",
    "at",
    "so",
    "that",
    "this",
    "it",
    "i",
    "we",
    "you",
    "he",
    "she",
    "they",
    "my",
    "our",
    "late",
    "there",
    "here",
    "worked",
    "seen",
    "heard",
    "happy",
    "good",
    "fun",
    "easy",
    "one",
    "forget",
    "remember",
    "gonna",
    "gotta",
    "wanna",
    "going",
    "say",
    "said",
    "thought",
    "knew",
    "saw",
    "went",
    "got",
    "made",
    "felt",
    "told",
    "found",
    "came",
    "took",
    "gave",
    "left",
    "lost",
    "met",
    "paid",
    "ran",
    "sat",
    "slept",
    "spent",
    "stood",
    "won",
    "wrote",
    "understood",
    "really",
    "actually",
    "nice",
    "great",
    "glad",
    "fine",
    "welcome",
    "worth",
    "better",
    "best",
    "cool",
    "lovely",
    "interesting",
    "hard",
    "busy",
    "true",
    "right",
    "wrong",
    "sure",
];

/// Whether the word after "always"/"never" can be the verb of an order.
fn verb_like(next: &str) -> bool {
    !next.is_empty()
        && !NOT_A_VERB.contains(&next)
        && !next.ends_with("ed")
        && (!next.ends_with('s') || next.ends_with("ss"))
        && next.chars().all(|ch| ch.is_ascii_alphabetic() || ch == '-')
}

/// "Always answer in British English", "Never push to main without asking me": a standing rule
/// for the agent opening a sentence is something to keep, with its "always"/"never".
fn standing_rule(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    if c.question {
        return None;
    }
    let opener = STANDING_OPENERS.iter().find(|o| starts_word(rest, o))?;
    // Only where a sentence starts: "…, never mind" and "it's always the same" are not rules.
    let before = text.norm[..c.raw_start].trim_end();
    if !(before.is_empty() || before.ends_with(['.', '!', '?', '\n', '。', '！', '？'])) {
        return None;
    }
    let next = rest[opener.len()..].split_whitespace().next().unwrap_or("");
    let next = next.trim_matches(|ch: char| !ch.is_alphanumeric() && ch != '-');
    let verb_like = verb_like(next);
    // "Always check the oil, my dad used to say": reported, not said to the agent.
    let sentence = sl(&text.norm, c.start, c.end);
    let reported = ["used to say", " always says", " said", " says", "would say", "as they say"]
        .iter()
        .any(|w| sentence.contains(w));
    if !verb_like || reported || is_task_caveat(sl(&text.norm, c.start, text.norm.len())) {
        return None;
    }
    let content = content_after(text, c.start);
    Some(hit(text, TriggerKind::Remember, c.start, c.start + opener.len(), content))
}

/// Verbs that store, and whether they are about memory without a destination.
const STORE_VERBS: &[(&str, bool)] = &[
    ("make a mental note of", true),
    ("make a mental note", true),
    ("take a mental note", true),
    ("memorize", true),
    ("memorise", true),
    ("retain", true),
    ("hang on to", false),
    ("hang onto", false),
    ("hold on to", false),
    ("hold onto", false),
    ("file away", true),
    ("vault", true),
    ("keep", false),
    ("store", false),
    ("save", false),
    ("log", false),
    ("record", false),
    ("file", false),
    ("note", false),
    ("jot", false),
    ("write", false),
    ("put", false),
    ("add", false),
    ("know", false),
];

/// Where a memory goes: phrases that make a storing verb about memory.
const DESTINATIONS: &[&str] = &[
    "for later",
    "for future reference",
    "for the future",
    "for future chats",
    "for future conversations",
    "for future sessions",
    "for next time",
    "in your memory",
    "into your memory",
    "in memory",
    "to memory",
    "to your memory",
    "in mind",
    "in your notes",
    "to your notes",
    "in your head",
    "on file",
    "for the record",
    "in the future",
    "from now on",
    "going forward",
    "for your records",
    "in your memory bank",
    "permanently",
    "forever",
    "for good",
    "in the vault",
    "in your vault",
    "to the vault",
    "into the vault",
];

/// Destinations that make a storing verb about memory only when its object points back
/// ("save this for later", not "save the file for later").
const WEAK_DESTINATIONS: &[&str] = &[
    "for later",
    "for the future",
    "for next time",
    "in the future",
    "from now on",
    "going forward",
];

/// Drops a leading "that " before a clause ("that our fiscal year ends…").
fn strip_leading_that(s: &str) -> String {
    match s.get(..5) {
        Some(h) if h.eq_ignore_ascii_case("that ") && s[5..].split_whitespace().count() >= 2 => {
            s[5..].to_owned()
        }
        _ => s.to_owned(),
    }
}

fn forget_rule(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    let hit = forget_match(text, c, rest)?;
    // "Never mind about the formatting, just give me the numbers" drops a request; so does
    // "disregard the previous draft and write a shorter one".
    let dropping = ["never mind", "nevermind", "disregard", "ignore", "forget it"]
        .iter()
        .any(|p| starts_word(rest, p));
    if dropping && asks_for_work(sl(&text.norm, c.sep_end, text.norm.len())) {
        return None;
    }
    if dropping && asks_for_work(sl(&text.norm, c.start, c.end).split(" and ").nth(1).unwrap_or(""))
    {
        return None;
    }
    Some(hit)
}

/// Whether the memory noun at `k` ends the object ("the staging host note"), a note, reminder or
/// memory and not a file's ("the README note" is still a note: the caller checks for files).
fn noun_ends(words: &[&str], k: usize) -> bool {
    let w = words[k].trim_end_matches([',', '.', ';', '!']);
    (w.starts_with("note") || w.starts_with("reminder") || w.starts_with("memor"))
        && (k + 1 == words.len() || words[k].ends_with([',', '.', ';', '!']))
        && (1..=5).contains(&k)
}

/// Tells whether text asks for work now: a clause opening with an imperative verb.
fn asks_for_work(rest: &str) -> bool {
    const VERBS: &[&str] = &[
        "give",
        "show",
        "tell",
        "write",
        "send",
        "make",
        "do",
        "use",
        "try",
        "fix",
        "draft",
        "rewrite",
        "redo",
        "list",
        "summarize",
        "summarise",
        "explain",
        "help",
        "answer",
        "start",
        "go",
        "just",
        "translate",
        "check",
        "continue",
        "keep going",
        "generate",
        "create",
        "shorten",
        "focus",
    ];
    rest.split([',', '.', ';', '!', '?', '—', '–'])
        .map(|p| {
            p.trim()
                .trim_start_matches("and ")
                .trim_start_matches("then ")
                .trim_start_matches("please ")
                .trim_start_matches("just ")
        })
        .any(|p| {
            VERBS.iter().any(|v| starts_word(p, v))
                && !p.starts_with("do you")
                && !p.starts_with("go to")
        })
}

fn forget_match(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    let start = c.start;
    let done =
        |end: usize, content: String| Some(hit(text, TriggerKind::Forget, start, end, content));
    // The thing to forget: the rest of the clause, unless the clause only points back.
    let topic = |end: usize| {
        let clause = sl(&text.norm, end, c.sep_end);
        if !clause.trim().is_empty() && is_pointer(clause) || is_pointer(sl(&text.norm, end, c.end))
        {
            String::new()
        } else {
            strip_topic(content_to(text, end, c.sep_end))
        }
    };
    let forget_conns: &[&str] = &[
        "everything i said about",
        "what i said about",
        "what i told you about",
        "all about",
        "everything about",
        "about",
        "that",
        "the fact that",
    ];
    for verb in ["forget", "please forget", "just forget"] {
        if let Some(n) = phrase_then(rest, verb, forget_conns, true) {
            let end = start + n;
            // "forget-me-not" is a flower.
            if rest[n.min(rest.len())..].starts_with('-') {
                return None;
            }
            if c.question && !c.requested {
                return None; // "forget something?" / "did you forget …?"
            }
            // "Forget it, I'll do it myself" drops a request; it is not about memory.
            let after = sl(&text.norm, end, c.end).trim_start();
            if n == verb.len() && starts_word(after, "it") && !whole_message_from(text, c.start) {
                return None;
            }
            return done(end, topic(end));
        }
    }
    if let Some(n) = phrase_then(
        rest,
        "never mind",
        &["about", "what i said about", "what i said", "that", "the", "my"],
        true,
    )
    .or_else(|| {
        phrase_then(rest, "nevermind", &["about", "what i said about", "what i said", "that"], true)
    }) {
        let end = start + n;
        let bare = n == "never mind".len() || n == "nevermind".len();
        // "never mind, I found it" cancels a request; it is not about memory. But "That thing I
        // told you about X — never mind, it was wrong" takes back what came before.
        if bare && !whole_message_from(text, c.start) {
            let before = content_before_clean(text, c);
            let resolved = [
                "i found",
                "i figured",
                "i got it",
                "found it",
                "got it",
                "figured it",
                "i'll",
                "i will",
                "i can",
                "it's fine",
                "it worked",
                "it works",
            ]
            .iter()
            .any(|w| {
                sl(&text.norm, c.sep_end, text.norm.len())
                    .trim_start_matches([',', ' '])
                    .starts_with(w)
            });
            if before.is_empty() || resolved {
                return None;
            }
            return done(end, strip_topic(before));
        }
        let from = if sl(&text.norm, start, end).ends_with(" the")
            || sl(&text.norm, start, end).ends_with(" my")
        {
            end - sl(&text.norm, start, end).rsplit(' ').next().map_or(0, str::len)
        } else {
            end
        };
        return done(end, topic(from));
    }
    let pointer_conns: &[&str] = &[
        "everything i said about",
        "what i said about",
        "what i told you about",
        "what i said earlier about",
        "what i said",
        "my last message",
        "my previous message",
        "the last thing i said",
        "my earlier note about",
        "my earlier message about",
        "the previous note about",
        "that",
        "this",
        "the note about",
        "the last part about",
        "the part about",
        "the bit about",
    ];
    for p in ["disregard", "ignore", "scratch", "scrap", "strike"] {
        let bare_ok = p == "disregard";
        if let Some(n) = phrase_then(rest, p, pointer_conns, bare_ok) {
            let end = start + n;
            let head = &sl(&text.norm, start, end);
            // "scratch that" and "ignore my last message" are pointers themselves.
            let from = if head.ends_with(" that") || head.ends_with(" this") {
                end
            } else {
                start + p.len()
            };
            if c.question && !c.requested {
                return None;
            }
            let content = if is_pointer(sl(&text.norm, start + p.len(), c.sep_end)) {
                String::new()
            } else {
                topic(from)
            };
            return done(end, content);
        }
    }
    for p in [
        "remove from memory",
        "remove from your memory",
        "delete from memory",
        "delete from your memory",
        "erase from memory",
        "erase from your memory",
    ] {
        if let Some(n) = phrase_then(rest, p, &[":"], true) {
            let end = start + n;
            return done(end, strip_topic(content_to(text, end, c.end)));
        }
    }
    for verb in [
        "remove",
        "delete",
        "erase",
        "drop",
        "wipe",
        "purge",
        "clear",
        "get rid of",
        "throw out",
        "throw away",
        "toss",
    ] {
        if !starts_word(rest, verb) {
            continue;
        }
        // "… is obsolete now, get rid of it": the thing is named before.
        let obj = sl(&text.norm, start + verb.len(), c.sep_end);
        if is_pointer(obj) && !obj.trim().is_empty() {
            let before = content_before_clean(text, c);
            if !before.is_empty() {
                return done(start + verb.len(), strip_topic(strip_copula(&before)));
            }
        }
        let clause = &rest[..c.sep_end - c.start];
        let after = &clause[verb.len()..];
        for tail in [
            " from your memory",
            " from memory",
            " from your memories",
            " from your notes",
            " out of your memory",
        ] {
            if let Some(i) = after.find(tail) {
                let obj_start = start + verb.len();
                let obj_end = obj_start + i;
                let content = strip_topic(trim_content(text.orig_slice(obj_start, obj_end)));
                let content =
                    if is_pointer(&content.to_ascii_lowercase()) { String::new() } else { content };
                return done(obj_end + tail.len(), content);
            }
        }
        // delete [whatever|the|any] memory/memories/notes [you have] about X
        let words: Vec<&str> = after.split_whitespace().take(7).collect();
        // "delete everything about my previous job": all there is on a topic of the user's own
        // can only be memory ("delete everything about the header in this file" is not theirs).
        if let [all, about, ..] = words[..]
            && matches!(all, "everything" | "anything" | "all")
            && matches!(about, "about" | "on" | "regarding")
        {
            let end = start + verb.len() + after.find(about).map_or(0, |i| i + about.len());
            let topic = strip_topic(strip_question(content_to(text, end, c.sep_end)));
            let files = ["folder", "file", "files", "app", "page", "document", "drive", "repo"]
                .iter()
                .any(|w| find_word(clause, w).is_some());
            if !topic.is_empty()
                && !files
                && (is_personal_topic(&topic) || names_known(text, &topic))
            {
                return done(end, topic);
            }
        }
        let memory_noun = |w: &&str| {
            w.starts_with("memor")
                || w.starts_with("note")
                || w.starts_with("reminder")
                || matches!(
                    *w,
                    "info"
                        | "information"
                        | "stored"
                        | "saved"
                        | "record"
                        | "records"
                        | "data"
                        | "know"
                        | "have"
                        | "remember"
                )
                || w.starts_with("rule") && after.contains(" about ")
        };
        if let Some(k) = words.iter().position(memory_noun) {
            let tail: Vec<&str> = words[k + 1..].to_vec();
            // "delete the note with my policy number", "remove the memory containing the code".
            let noun = words[k].starts_with("note") || words[k].starts_with("memor");
            // "Delete the notes with tag draft in my Obsidian folder" is about files.
            let files =
                ["folder", "file", "files", "app", "obsidian", "notion", "evernote", "drive"]
                    .iter()
                    .any(|w| find_word(clause, w).is_some());
            if noun
                && k <= 2
                && !files
                && tail.first().is_some_and(|w| matches!(*w, "with" | "containing" | "mentioning"))
            {
                let phrase = format!("{} {}", words[..=k].join(" "), tail[0]);
                if let Some(i) = sl(&text.norm, start, c.sep_end).find(&phrase) {
                    let end = start + i + phrase.len();
                    return done(end, content_to(text, end, c.sep_end));
                }
            }
            // "Delete the staging host note, that box is decommissioned": the noun ends the
            // object, what comes before it names the memory (round 9).
            if noun_ends(&words, k) && !files && c.sep_end > c.start {
                let obj_start = start + verb.len();
                let obj_end = sl(&text.norm, obj_start, c.sep_end)
                    .rfind(words[k])
                    .map_or(c.sep_end, |i| obj_start + i);
                let content = strip_topic(trim_content(text.orig_slice(obj_start, obj_end)));
                if !content.is_empty() {
                    return done(obj_end + words[k].len(), content);
                }
            }
            if let Some(j) =
                tail.iter().position(|w| matches!(*w, "about" | "of" | "on" | "regarding"))
            {
                let phrase = format!("{} {}", words[..=k].join(" "), tail[..=j].join(" "));
                if let Some(i) = sl(&text.norm, start, c.sep_end).find(&phrase) {
                    let end = start + i + phrase.len();
                    return done(end, content_to(text, end, c.sep_end));
                }
            }
        }
    }
    // "… is no longer relevant" (and "No longer relevant: …")
    if !c.question {
        for tail in [
            "no longer relevant",
            "no longer needed",
            "not relevant anymore",
            "not relevant any more",
            "irrelevant now",
            "no longer applicable",
            "not needed anymore",
            "outdated now",
        ] {
            if let Some(i) = sl(&text.norm, c.start, c.end).find(tail) {
                let subject_end = c.start + i;
                if subject_end == c.start {
                    let end = subject_end + tail.len();
                    return done(end, strip_topic(content_to(text, end, c.end)));
                }
                let subject = strip_copula(text.orig_slice(c.start, subject_end));
                let content = if is_pointer(&subject.to_ascii_lowercase()) {
                    String::new()
                } else {
                    strip_topic(subject)
                };
                return done(subject_end + tail.len(), content);
            }
        }
    }
    // "don't save that", "don't remember this"
    for p in [
        "don't save",
        "do not save",
        "don't remember",
        "do not remember",
        "don't store",
        "don't keep",
        "don't note",
    ] {
        if let Some(n) = phrase_then(rest, p, &["that", "this", "it"], false) {
            let end = start + n;
            return done(end, String::new());
        }
        // "Please don't remember anything about my ex": nothing on a topic.
        if let Some(n) = phrase_then(
            rest,
            p,
            &["anything about", "anything on", "anything regarding", "anything to do with"],
            false,
        ) {
            let end = start + n;
            let topic = strip_topic(content_to(text, end, c.end));
            if !topic.is_empty() {
                return done(end, topic);
            }
        }
    }
    // "no need to remember my student ID anymore", "un-remember that"
    for p in [
        "no need to remember",
        "you don't need to remember",
        "don't need to remember",
        "no longer need to remember",
        "you no longer need to remember",
        "there's no need to remember",
        "un-remember",
        "unremember",
        "unsave",
        "no need to keep",
        "no need to save",
    ] {
        if let Some(n) = phrase_then(rest, p, &["that", "about"], true) {
            let end = start + n;
            let t = topic(end);
            let t = t.trim_end_matches(" anymore").trim_end_matches(" any more").to_owned();
            return done(end, t);
        }
    }
    for p in ["stop remembering", "unlearn", "you can forget", "you can drop", "you may forget"] {
        if let Some(n) = phrase_then(rest, p, &["about", "that"], true) {
            let end = start + n;
            return done(end, topic(end));
        }
    }
    None
}

/// Tells whether nothing but punctuation or fillers follows the clause at `start` — the
/// clause is the whole remaining message.
fn whole_message_from(text: &Text<'_>, start: usize) -> bool {
    let s = &text.norm[start..];
    let first_sep = s.find([',', ';', '—', '–']).unwrap_or(s.len());
    s[first_sep..].trim_matches(|ch: char| !ch.is_alphanumeric()).is_empty()
}

/// Drops a trailing "is"/"'s"/"are" from a subject ("the gym plan is" → "the gym plan").
fn strip_copula(s: &str) -> String {
    let t = s.trim_end();
    for end in [" is", " are", "'s", " was", " were", " is now", " are now", "’s"] {
        if let Some(stripped) = t.strip_suffix(end) {
            return trim_content(stripped);
        }
    }
    let lower = t.to_ascii_lowercase();
    for p in ["that's", "thats", "it's", "its", "this is", "that is"] {
        if lower == p {
            return String::new();
        }
    }
    trim_content(t)
}

fn reflect_rule(text: &Text<'_>, c: &Clause, rest: &str) -> Option<(usize, Trigger)> {
    let start = c.start;
    let done =
        |end: usize, content: String| Some(hit(text, TriggerKind::Reflect, start, end, content));
    if c.question
        && !c.requested
        && !rest.starts_with("can we")
        && !rest.starts_with("shall we")
        && !rest.starts_with("should we")
    {
        // "Does this reflect…?" is not a request; "can we reflect?" is.
        if !starts_word(rest, "time to") {
            return None;
        }
    }
    let leads = [
        "let's",
        "lets",
        "let us",
        "time to",
        "it's time to",
        "its time to",
        "it's time we",
        "we should",
        "can we",
        "could we",
        "shall we",
        "should we",
        "i want to",
        "i'd like to",
        "we need to",
        "go",
        "take some time to",
        "take a moment to",
        "take a minute to",
        "let's take some time to",
        "let's take a moment to",
        "let's pause and",
        "pause and",
        "let's stop and",
        "stop and",
        "let's sit down and",
        "a good time to",
        "good time to",
        "time for you to",
        "a good time for you to",
        "it's a good time for you to",
        "it's a good time to",
        "spend some time",
        "spend a few minutes",
        "you should",
        "now",
    ];
    let mut at = vec![(0usize, rest)];
    for lead in leads {
        if starts_word(rest, lead) {
            let r = rest[lead.len()..].trim_start();
            at.push((rest.len() - r.len(), r));
        }
    }
    for (off, r) in at {
        let stem = ["reflect", "reflecting"].into_iter().find(|w| starts_word(r, w));
        if let Some(stem) = stem.filter(|w| *w == "reflect" || off > 0) {
            let end = start + off + stem.len();
            let after = sl(&text.norm, end, c.end).trim_start();
            let ends = after.is_empty() || after.starts_with(['.', '!', '?', ',', ';', '—', '-']);
            let quiet = [
                "now",
                "please",
                "a bit",
                "together",
                "for a bit",
                "for a moment",
                "a little",
                "before",
                "first",
                "for a few minutes",
            ]
            .iter()
            .any(|w| starts_word(after, w));
            if starts_word(after, "on") || starts_word(after, "upon") {
                let word = if starts_word(after, "on") { "on" } else { "upon" };
                let topic_at = end + (text.norm[end..].len() - after.len()) + word.len();
                let topic = content_to(text, topic_at, c.sep_end);
                // Reflection is on us, on time, on what was learned — not on an outside topic
                // ("reflect on the causes of World War I for my essay").
                if !is_reflection_topic(&topic) {
                    return None;
                }
                return done(end, topic);
            }
            if ends || quiet {
                return done(end, String::new());
            }
            return None; // "reflect the changes in the config"
        }
        if let Some(n) = reflection_noun(r) {
            return done(start + off + n, String::new());
        }
        for noun in [
            "do a reflection",
            "do some reflection",
            "do reflection",
            "have a reflection",
            "start a reflection",
            "run a reflection",
            "do a memory review",
            "do a memory cleanup",
            "do some memory cleanup",
            "reflection time",
            "time for reflection",
            "time for a reflection",
            "time for some reflection",
            "start reflecting",
            "begin a reflection",
            "start reflection",
            "reflection session",
            "memory cleanup",
            "memory review",
            "memory consolidation",
        ] {
            if starts_word(r, noun) {
                return done(start + off + noun.len(), String::new());
            }
        }
        // "run a memory consolidation", "do a reflect pass on your memory"
        let words: Vec<&str> = r.split_whitespace().take(5).collect();
        if matches!(words.first(), Some(&("run" | "do" | "start" | "begin" | "kick" | "trigger"))) {
            let w: Vec<&str> = words
                .iter()
                .skip(1)
                .map(|w| w.trim_matches(|ch: char| !ch.is_alphanumeric()))
                .collect();
            let w = if matches!(w.first(), Some(&("a" | "an" | "some" | "off" | "your"))) {
                &w[1..]
            } else {
                &w[..]
            };
            let pass = [
                "consolidation",
                "cleanup",
                "clean-up",
                "review",
                "pass",
                "reflection",
                "audit",
                "tidy",
            ];
            let hit = match w {
                ["memory", x, ..] | ["memories", x, ..] => pass.contains(x),
                ["reflect" | "reflection", ..] | ["consolidation", ..] => true,
                _ => false,
            };
            if hit {
                return done(start + off + r.len().min(c.end - start - off), String::new());
            }
        }
        if let Some(end) = consolidation(text, r) {
            return done(start + off + end, String::new());
        }
    }
    None
}

/// Tells whether a reflection topic is about the agent, the user and their time together.
/// "Let's do our weekly reflection", "time for a memory cleanup", "do a quick memory review":
/// a reflection named as a noun, with an article and a cadence before it. Returns its length.
fn reflection_noun(r: &str) -> Option<usize> {
    let mut t = r;
    for lead in ["time for", "do", "have", "start", "run"] {
        if starts_word(t, lead) {
            t = t[lead.len()..].trim_start();
            break;
        }
    }
    for skip in [
        &["a", "an", "our", "the", "some", "my", "your"][..],
        &["weekly", "daily", "nightly", "monthly", "quick", "little", "short", "proper"][..],
    ] {
        if let Some(w) = skip.iter().find(|w| starts_word(t, w)) {
            t = t[w.len()..].trim_start();
        }
    }
    if t.len() == r.len() {
        return None;
    }
    [
        "reflection",
        "memory cleanup",
        "memory clean-up",
        "memory review",
        "memory tidy-up",
        "memory consolidation",
    ]
    .iter()
    .find(|n| starts_word(t, n))
    .map(|n| r.len() - t.len() + n.len())
}

fn is_reflection_topic(topic: &str) -> bool {
    let lower = format!(" {} ", topic.to_lowercase().replace(['.', ',', '!', '?'], " "));
    // "the themes of this novel for my essay": a piece of work or a subject outside us.
    let outside = [
        " essay",
        " novel",
        " book ",
        " poem",
        " film",
        " movie",
        " article",
        " paper ",
        " chapter",
        " story ",
        " homework",
        " assignment",
        " class ",
        " history ",
        " war ",
        " theme",
    ];
    if outside.iter().any(|w| lower.contains(w)) {
        return false;
    }
    [
        " our ",
        " we ",
        " us ",
        " you ",
        " your ",
        " me ",
        " my day ",
        " my week ",
        " today ",
        " tonight ",
        " this week ",
        " the week ",
        " this month ",
        " the day ",
        " lately ",
        " recent",
        " last ",
        " past ",
        " session",
        " conversation",
        " chat",
        " learned ",
        " learnt ",
        " memor",
        " progress ",
        " together ",
        " what happened ",
        " how things ",
        " what worked ",
        " what's worked ",
        " this year ",
        " the year ",
        " so far ",
        " it all ",
        " everything ",
        " things ",
        " notes ",
        " them ",
        " it ",
        " that ",
        " this ",
    ]
    .iter()
    .any(|w| lower.contains(w))
        || topic.trim().is_empty()
}

/// "consolidate your memories", "review and clean up your notes", "go through what you know
/// about me": a tidying verb whose object is the agent's memory. Returns the match length.
fn consolidation(text: &Text<'_>, r: &str) -> Option<usize> {
    const VERBS: &[&str] = &[
        "consolidate",
        "review",
        "clean up",
        "tidy up",
        "tidy",
        "go through",
        "organize",
        "organise",
        "sort through",
        "sort out",
        "prune",
        "declutter",
        "reorganize",
        "reorganise",
        "clean out",
        "go over",
        "clean",
        "tidy",
        "merge",
        "dedupe",
        "deduplicate",
    ];
    let mut pos = 0;
    let mut found = false;
    // One or two verbs joined by "and".
    for _ in 0..2 {
        let Some(v) = VERBS.iter().find(|v| starts_word(&r[pos..], v)) else { break };
        found = true;
        pos += v.len();
        let rest = r[pos..].trim_start();
        if let Some(after_and) = rest.strip_prefix("and ") {
            pos = r.len() - after_and.len();
        } else {
            break;
        }
    }
    if !found {
        return None;
    }
    let object = r[pos..].trim_start();
    // "clean it up", "sort them out": the object before the particle.
    let object = ["it up", "them up", "it out", "them out", "it all up"]
        .iter()
        .find_map(|p| object.strip_prefix(p).map(|_| p.split(' ').next().unwrap_or("it")))
        .unwrap_or(object);
    let words: Vec<&str> = object.split_whitespace().take(5).collect();
    let memory_word = words.iter().any(|w| {
        let w = w.trim_matches(|ch: char| !ch.is_alphanumeric());
        w.starts_with("memor") || w == "notes" || w == "knowledge"
    });
    let what_you_know = [
        "what you know",
        "what you've learned",
        "what you have learned",
        "what you remember",
        "everything you know",
        "everything you remember",
        "everything you've saved",
        "everything you've stored",
        "what you've stored",
        "what you've saved",
        "what you have stored",
        "what you have saved",
        "everything you have",
        "all your notes",
        "your notes",
    ]
    .iter()
    .any(|p| object.starts_with(p));
    let pronoun = ["it", "them", "everything"].iter().any(|p| starts_word(object, p))
        && ["memor", "notes", "saved", "stored", "know about me"]
            .iter()
            .any(|w| text.norm.contains(w));
    (memory_word || what_you_know || pronoun).then_some(pos)
}

/// Goodbyes for the day, said by the user (not about someone or something else).
fn soft_rule(text: &Text<'_>, c: &Clause, _rest: &str) -> Option<(usize, Trigger)> {
    let rest = sl(&text.norm, c.start, c.sep_end.max(c.start));
    const PHRASES: &[&str] = &[
        "that's it for me today",
        "that's it for me",
        "that's all for me",
        "that's a wrap",
        "done with work for today",
        "done with work",
        "done for the night",
        "finished for the day",
        "finished for today",
        "time for me to sleep",
        "time to sleep",
        "going offline",
        "go offline",
        "signing out",
        "off for the weekend",
        "off for the day",
        "off for the night",
        "off for today",
        "stop here for today",
        "stop here for the day",
        "stop here for tonight",
        "stop for today",
        "stop for the day",
        "shutting the laptop",
        "closing the laptop",
        "closing my laptop",
        "shutting down for the night",
        "going to sleep",
        "going to bed",
        "off to bed",
        "off to sleep",
        "heading to bed",
        "heading to sleep",
        "gonna sleep",
        "gonna go to bed",
        "gonna go to sleep",
        "go to bed",
        "go to sleep",
        "logging off",
        "log off",
        "logging out",
        "signing off",
        "sign off",
        "calling it a night",
        "call it a night",
        "calling it a day",
        "call it a day",
        "done for today",
        "done for the day",
        "done for tonight",
        "heading out",
        "heading off",
        "heading home",
        "turning in",
        "hitting the sack",
        "hitting the hay",
        "that's it for today",
        "that's all for today",
        "that's it for tonight",
        "that's enough for today",
        "wrapping up for today",
        "wrapping up for the day",
        "wrapping up",
        "see you tomorrow",
        "talk tomorrow",
        "talk to you tomorrow",
        "time for bed",
        "bedtime",
        "off for the night",
        "out for the night",
        "clocking out",
        "checking out for the day",
        "shutting down for the day",
    ];
    // Who may say it: nobody (it opens the clause) or the user.
    const SUBJECTS: &[&str] = &[
        "i'm",
        "im",
        "i am",
        "i'll",
        "ill",
        "i will",
        "we're",
        "were",
        "we are",
        "we'll",
        "i'm gonna",
        "time to",
        "it's time to",
        "its time to",
        "let's",
        "lets",
        "think i'll",
        "i think i'll",
        "i think i'm",
        "guess i'm",
        "i guess i'm",
        "gonna",
        "about to",
        "i'm about to",
        "i need to",
        "i have to",
        "i gotta",
        "gotta",
        "i should",
        "should",
        "i'm going to",
        "i'm off",
        "i'm done",
        "ok i'm",
        "we're done",
        "i'm pretty much",
        "i'm probably",
        "i'm finally",
        "i'm now",
        "now",
        "i'm officially",
        "and i'm",
        "i'm just",
        "well i'm",
    ];
    // What may follow it in the clause: nothing, or a word that keeps it a goodbye.
    const AFTER: &[&str] = &[
        "now",
        "then",
        "for the day",
        "for the night",
        "for today",
        "for tonight",
        "guys",
        "everyone",
        "folks",
        "soon",
        "in a bit",
        "for now",
        "early",
        "tonight",
        "too",
        "now then",
        "right now",
        "for real",
        "thanks",
        "thank you",
        "see you",
        "bye",
        "cya",
        "night",
        "goodnight",
        "here",
        "for the weekend",
        "for the week",
        "for the evening",
        "for a while",
        "for a bit",
        "early today",
        "and get some rest",
        "and go to bed",
        "and get some sleep",
        "finally",
        "lol",
    ];
    for p in PHRASES {
        let Some(i) = find_word(rest, p) else { continue };
        let before = rest[..i].trim_end().trim_end_matches(',').trim_end();
        let ok = before.is_empty()
            || SUBJECTS.iter().any(|s| {
                before == *s || before.ends_with(&format!(" {s}")) && clause_is_mine(before, s)
            });
        let end = c.start + i + p.len();
        let after = sl(&text.norm, end, c.sep_end).trim().trim_end_matches(['.', '!', '?', ' ']);
        let after_ok = after.is_empty() || AFTER.contains(&after);
        if ok && after_ok {
            return Some(hit(text, TriggerKind::ReflectSoft, c.start + i, end, String::new()));
        }
    }
    // A clause that is nothing but a goodbye: "Bye!", "see you Monday", "ttyl".
    let bare = rest.trim().trim_end_matches(['.', '!', '?', ' ', ')', '(']);
    let goodbye = matches!(
        bare,
        "bye"
            | "bye bye"
            | "bye for now"
            | "see ya"
            | "ttyl"
            | "talk later"
            | "talk soon"
            | "catch you later"
            | "later"
            | "cya"
            | "night"
            | "nite"
            | "peace out"
    ) || bare.strip_prefix("see you").is_some_and(|r| {
        let r = r.trim();
        r.is_empty()
            || [
                "tomorrow",
                "later",
                "monday",
                "tuesday",
                "wednesday",
                "thursday",
                "friday",
                "saturday",
                "sunday",
                "next week",
                "in the morning",
                "soon",
                "then",
                "after the weekend",
            ]
            .contains(&r)
    });
    if goodbye {
        return Some(hit(text, TriggerKind::ReflectSoft, c.start, c.sep_end, String::new()));
    }
    for p in [
        "good night",
        "goodnight",
        "nighty night",
        "night night",
        "gn",
        "nite",
        "gnight",
        "gnite",
        "night all",
        "g'night",
    ] {
        if let Some(n) = phrase_then(rest, p, &[], true) {
            let after = sl(&text.norm, c.start + n, c.end).trim_start();
            // "Goodnight Moon is a book" names a title.
            if starts_word(after, "is")
                || starts_word(after, "was")
                || names_a_title(text, c.start + n)
            {
                return None;
            }
            let orig_after = text.orig[text.orig_at(c.start + n)..].trim_start();
            let next = orig_after.split_whitespace().nth(1).unwrap_or("");
            if matches!(next.to_ascii_lowercase().as_str(), "is" | "was") {
                return None;
            }
            // Said by the user, not reported ("she said goodnight").
            let before = text.norm[..c.start].trim_end();
            if ["said", "say", "says", "saying", "wished", "wish"]
                .iter()
                .any(|w| before.ends_with(w))
            {
                return None;
            }
            return Some(hit(text, TriggerKind::ReflectSoft, c.start, c.start + n, String::new()));
        }
    }
    None
}

/// The words before a subject in a goodbye may only be fillers ("ok", "well", "so").
fn clause_is_mine(before: &str, subject: &str) -> bool {
    let lead = before[..before.len() - subject.len()].trim();
    lead.split(' ').all(|w| {
        matches!(
            w,
            "" | "ok"
                | "okay"
                | "well"
                | "so"
                | "alright"
                | "right"
                | "anyway"
                | "yeah"
                | "and"
                | "but"
                | "now"
                | "think"
                | "guess"
                | "i"
        )
    })
}

fn find_word(hay: &str, word: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = hay[from..].find(word) {
        let at = from + i;
        let before_ok = at == 0
            || !hay[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || matches!(c, '\'' | '_'));
        if before_ok && starts_word(&hay[at..], word) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Japanese

/// Endings that may follow a request verb before the sentence ends.
const JA_TAILS: &[&str] = &[
    "ほしいんだけど",
    "ほしいんだが",
    "ほしいのは",
    "ほしいです",
    "欲しいんだけど",
    "おいてほしい",
    "くれると助かる",
    "ね。",
    "ください",
    "下さい",
    "くださいね",
    "くれる",
    "くれない",
    "くれますか",
    "くれ",
    "ほしい",
    "欲しい",
    "ほしいな",
    "もらえる",
    "もらえますか",
    "ね",
    "よ",
    "な",
    "ねー",
    "よね",
    "おいて",
    "おいてね",
    "です",
    "ok",
    "おk",
    "大丈夫",
    "だよ",
    "だからね",
    "お願いします",
    "お願い",
];

fn ja_sentence_end(s: &str) -> bool {
    s.chars().all(|c| {
        matches!(
            c,
            '。' | '！'
                | '？'
                | '!'
                | '?'
                | '.'
                | ' '
                | '\n'
                | 'ー'
                | '〜'
                | '～'
                | '♪'
                | 'w'
                | '笑'
                | '…'
        ) || (c as u32 >= 0x2600 && !c.is_alphanumeric() && !crate::word::is_cjk(c))
    })
}

/// After a verb: optional tails, then the end of the sentence.
fn ja_ends_after(s: &str) -> bool {
    if ja_sentence_end(s) {
        return true;
    }
    // 覚えておいて（息子の試合）⚽: an aside in brackets closes the sentence too.
    for (open, close) in [('（', '）'), ('(', ')')] {
        if let Some(r) = s.strip_prefix(open).and_then(|r| r.split_once(close))
            && ja_ends_after(r.1)
        {
            return true;
        }
    }
    JA_TAILS
        .iter()
        .any(|t| s.strip_prefix(t).is_some_and(|r| ja_ends_after(r) || ja_sentence_end(r)))
}

/// After a verb: optional tails, then a comma or colon that introduces more text.
fn ja_continues_after(s: &str) -> bool {
    if s.starts_with(['、', ',', ':']) {
        return true;
    }
    // おぼえといて〜 彼氏の…, メモっといて📝 兄は…: a trailing mark (an emoji is a space by
    // now), then the content in the same sentence.
    let after_marks = s.trim_start_matches(['〜', '～', '♪', ' ', 'ー']);
    if after_marks.len() < s.len() && !after_marks.trim().is_empty() {
        return true;
    }
    JA_TAILS.iter().any(|t| s.strip_prefix(t).is_some_and(ja_continues_after))
}

/// Openers that carry no content: ねえ、あのさ、ちなみに、ごめん、やっぱり…
const JA_OPENERS: &[&str] = &[
    "でも",
    "けど",
    "それから",
    "あとさ",
    "あと、",
    "ね、",
    "えーと",
    "ねえ",
    "ねぇ",
    "あのさ",
    "あの",
    "ちなみに",
    "それと",
    "あと",
    "ごめん",
    "やっぱり",
    "お願い",
    "すみません",
    "えっと",
    "じゃあ",
    "そうだ",
    "ところで",
    "念のため",
    "今後のために",
    "これ",
    "それ",
];

fn ja_strip_openers(s: &str) -> &str {
    let mut t = s.trim_start();
    loop {
        let before = t;
        for o in JA_OPENERS {
            if let Some(r) = t.strip_prefix(o) {
                let r2 = r.trim_start_matches(['、', ',', ' ', '!', '！']);
                if r2.len() < r.len() || o.chars().count() >= 3 {
                    t = r2;
                }
            }
        }
        if t == before {
            return t;
        }
    }
}

/// The object of a Japanese request: particles, reasons and pointers trimmed.
fn ja_trim_object(s: &str) -> String {
    let mut t = ja_strip_openers(s).trim().trim_end_matches(['、', ',', ' ']).to_owned();
    for _ in 0..3 {
        let before = t.clone();
        for suffix in [
            "だっていうの",
            "っていうの",
            "というの",
            "っていう話",
            "という話",
            "ということを",
            "ってことを",
            "ということ",
            "ってこと",
            "のことを",
            "のことは",
            "のことも",
            "のこと",
            "については",
            "について",
            "ことを",
            "ことは",
            "だって",
            "だよ",
            "だと",
            "だから",
            "なので",
            "ので",
            "から",
            "を",
            "は",
            "って",
            "と",
            "も",
            "、それ",
            "、これ",
            "それ",
            "これ",
        ] {
            // さっき言ったこと keeps its こと: と there is no particle.
            if suffix == "と" && t.ends_with("こと") {
                continue;
            }
            if let Some(r) = t.strip_suffix(suffix) {
                t = r.trim_end_matches(['、', ',', ' ']).to_owned();
                break;
            }
        }
        if t == before {
            break;
        }
    }
    trim_content(&t)
}

/// "あのプロジェクトの話はもう関係ないから" → "あのプロジェクトの話": a reason after は is dropped.
fn trimmed_end(s: &str) -> &str {
    s.trim_end().trim_end_matches(['。', ' ', '！', '!'])
}

fn ja_drop_reason(s: &str) -> String {
    if (s.ends_with("から") || s.ends_with("ので"))
        && let Some(i) = s.find('は')
    {
        return s[..i].to_owned();
    }
    s.to_owned()
}

/// Tells whether a Japanese topic is the user's own: a first-person or family word, or a
/// person addressed with さん/くん/ちゃん.
fn ja_is_personal(s: &str) -> bool {
    [
        "私",
        "僕",
        "俺",
        "うち",
        "わたし",
        "自分",
        "妻",
        "夫",
        "息子",
        "娘",
        "母",
        "父",
        "上司",
        "彼女",
        "彼氏",
        "家族",
        "子ども",
        "子供",
        "さん",
        "くん",
        "ちゃん",
        "様",
        "我が家",
        "弊社",
        "チーム",
        "旅行",
        "予定",
        "計画",
        "会議",
        "約束",
        "誕生日",
        "プロジェクト",
        "案件",
        "打ち合わせ",
        "兄",
        "姉",
        "弟",
        "妹",
        "義理",
        "祖父",
        "祖母",
        "アレルギー",
        "管理会社",
    ]
    .iter()
    .any(|w| s.contains(w))
}

fn is_ja_pointer(s: &str) -> bool {
    const POINTERS: &[&str] = &[
        "",
        "その",
        "この",
        "あの",
        "そのメモ",
        "このメモ",
        "あのメモ",
        "それ",
        "これ",
        "あれ",
        "さっきの",
        "今の",
        "今のは",
        "さっきのは",
        "この件",
        "その件",
        "さっきの話",
        "今の話",
        "その話",
        "この話",
        // この手順を覚えておいて after the steps: what it names is above.
        "この手順",
        "その手順",
        "このやり方",
        "そのやり方",
        "この内容",
        "その内容",
        "さっき言ったこと",
        "今言ったこと",
        // 忘れずに覚えておいて, ちゃんとメモして: how to keep it, not what.
        "忘れずに",
        "ちゃんと",
        "しっかり",
        "一応",
        "絶対",
        "絶対に",
    ];
    POINTERS.contains(&s)
}

/// Tells whether a Japanese sentence ends as a request or an offer to do it together: …して,
/// …しておいて, …してくれる？, …をお願いします, …しよう.
fn ja_requests(s: &str) -> bool {
    let t = s.trim_end().trim_end_matches(['。', '！', '!', '？', '?', ' ', 'ね', 'よ']);
    ["て", "てくれる", "てくれない", "てもらえる", "お願いします", "お願い", "しよう", "ください"]
        .iter()
        .any(|e| t.ends_with(e))
}

/// Words before 覚えておいて that ask to keep something for good.
const JA_KEEP_FOR_GOOD: &[&str] =
    &["ずっと", "ずーっと", "永久に", "永久保存で", "永遠に", "消えないように"];

fn japanese(text: &Text<'_>, sentence: Span) -> Vec<(usize, Trigger)> {
    let s = &sl(&text.norm, sentence.start, sentence.end);
    if !s.chars().any(|c| matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF)) {
        return Vec::new();
    }
    let base = sentence.start;
    let at = |i: usize| base + i;
    let quoted = |i: usize| in_quotes(&text.norm, at(i));
    let before_sentence = || {
        let before = trim_content(ja_strip_openers(text.orig_slice(0, base)));
        if before.is_empty() {
            trim_content(text.orig_slice(sentence.end, text.norm.len()))
        } else {
            before
        }
    };
    let mut out = Vec::new();

    // Prefix forms: 重要：…, メモ：…, 覚えておいて：…
    for p in [
        "重要:",
        "重要 :",
        "重要！",
        "重要!",
        "大事:",
        "大事なこと:",
        "メモ:",
        "ピン留め:",
        "永久保存:",
        "保存:",
        "記録:",
        "memo:",
        "memoして:",
        "memo して:",
        "覚えておいてほしいんだけど",
        "覚えておいてほしいのは",
        "忘れないでほしいんだけど",
    ] {
        if let Some(i) = s.find(p) {
            let lead = ja_strip_openers(&s[..i]);
            // 忘れないようにメモ：…: a purpose may lead too.
            let purpose = ["ように", "ために", "用に"].iter().any(|w| lead.trim().ends_with(w));
            // 障害対応のやり方をメモ：…: what is kept, as the object, names it (round 8).
            // deploy のやり方 memo して：…: a procedure's name needs no を (round 10).
            let named = ["やり方", "手順", "方法", "レシピ", "流れ", "作り方"]
                .iter()
                .any(|w| lead.trim().ends_with(w));
            let object = lead
                .trim()
                .strip_suffix('を')
                .or(named.then_some(lead.trim()))
                .map(str::trim)
                .filter(|o| {
                    !o.is_empty() && o.chars().count() <= 24 && !o.contains(['。', '、', '\n'])
                });
            let lead_ok = lead.trim().is_empty()
                || object.is_some()
                || (lead.chars().count() <= 4 || purpose) && !lead.contains(['。', '、']);
            // A bare 保存 or 記録 only heads a message: 会議の記録：… is a pasted record.
            let bare_noun = matches!(p.trim_end_matches(':'), "保存" | "記録" | "永久保存");
            if lead_ok && !(bare_noun && !lead.trim().is_empty() && object.is_none()) && !quoted(i)
            {
                let end = at(i + p.len());
                let content = content_after(text, end);
                let content = match object {
                    Some(_) if !content.is_empty() => {
                        let from = at(i - lead.trim_start().len());
                        let o = text.orig_slice(from, at(i)).trim();
                        format!("{}：{content}", o.strip_suffix('を').unwrap_or(o).trim())
                    }
                    _ => content,
                };
                out.push(hit(text, TriggerKind::Remember, at(i), end, content));
                return out;
            }
        }
    }
    // Remember: 覚えておいて / 忘れないで / メモして.
    const REMEMBER: &[&str] = &[
        "ピン留めしておいて",
        "ピン留めしといて",
        "ピン留めして",
        "忘れないでください",
        "忘れないでね",
        "忘れないで",
        "覚えておいてください",
        "覚えておいてね",
        "覚えておいて",
        "覚えといてね",
        "覚えといて",
        "覚えててね",
        "覚えてて",
        "覚えておくように",
        "覚えてね",
        "覚えてください",
        "記憶しておいて",
        "記憶しといて",
        "覚え直しておいて",
        "覚え直してください",
        "覚え直して",
        "ご記憶いただけますと幸いです",
        "ご記憶いただけますと幸い",
        "ご記憶いただけますか",
        "ご記憶ください",
        "記録いただけますでしょうか",
        "記録いただけますか",
        "記録いただけると",
        "覚えていただけると",
        "控えていただけますか",
        "控えていただけると",
        "save しといて",
        "saveしといて",
        "save しておいて",
        "save して",
        "記憶して",
        "リマインドしておいて",
        "リマインドして",
        "メモしておいて",
        "メモしといて",
        "メモして",
        "メモっておいて",
        "メモっといて",
        "メモっといてね",
        "心に留めておいて",
        "頭に入れておいて",
        "おぼえておいて",
        "おぼえといて",
        "おぼえてて",
        "記録しておいてください",
        "記録しておいて",
        "記録しといて",
        "記録してください",
        "記録して",
        "控えておいてください",
        "控えておいて",
        "控えといて",
        "保存しておいて",
        "保存しといて",
        "永久保存しておいて",
        "永久保存して",
        "永久保存で",
        // メモお願いします, 記録よろしく: the noun and a word of asking.
        "メモお願いします",
        "メモお願い",
        "メモよろしく",
        "メモ頼む",
        "記録お願いします",
        "記録お願い",
        "記録よろしく",
        "記録頼む",
        "覚えて",
    ];
    // Verbs that keep something only with a word of keeping for good before them (ずっと固定して,
    // 永久に残しておいて) or a place in memory (記録に残して): "ケーキを残しておいて" keeps a cake.
    // 保管しておいて, 金庫に入れておいて and このルールは固定して keep something too, with a word of
    // keeping for good (ずっと忘れないように保管して), the vault (金庫（vault）に入れておいて) or a
    // rule named as what to keep (このルールは固定して).
    const KEEP: &[&str] = &[
        "残しておいて",
        "残しといて",
        "残して",
        "固定しておいて",
        "固定しといて",
        "固定して",
        "保管しておいて",
        "保管しといて",
        "保管して",
        "に入れておいて",
        "に入れといて",
        "にしまっておいて",
    ];
    let kept = |i: usize| {
        JA_KEEP_FOR_GOOD
            .iter()
            .chain(&[
                "記録に",
                "メモに",
                "記憶に",
                "忘れないように",
                "金庫",
                "金庫(vault)",
                "金庫（vault）",
                "ルールは",
            ])
            .any(|m| s[..i].ends_with(m))
    };
    // この設定は固定して: a named thing of the user's, kept as it is ("この段落は残して" edits).
    let fixed = |i: usize, v: &str| {
        v.starts_with("固定")
            && ["この", "その"].iter().any(|p| s.starts_with(p))
            && s[..i].ends_with('は')
            && s[..i].chars().count() <= 8
    };
    for v in REMEMBER.iter().chain(KEEP) {
        let Some(i) = s.find(v) else { continue };
        if quoted(i) || KEEP.contains(v) && !kept(i) && !fixed(i, v) {
            continue;
        }
        // 保存して without a word of memory saves a file.
        // あとで使うから保存しておいて：…: content after a colon is what to keep.
        let colon_content = s[i + v.len()..].trim_start_matches(['ね', 'て']).starts_with(':')
            && !s[i + v.len()..].trim_start_matches(['ね', 'て', ':', ' ']).is_empty();
        if v.starts_with("保存") && !kept(i) && !s[..i].ends_with("メモに") && !colon_content {
            continue;
        }
        // ずっと覚えておいて, 永久保存で覚えておいて: how long to keep it is part of the request,
        // which routing reads (the vault).
        let mut from = i;
        while let Some(r) = JA_KEEP_FOR_GOOD.iter().find_map(|m| s[..from].strip_suffix(m)) {
            from = r.len();
        }
        let tail = &s[i + v.len()..];
        // 忘れないでほしい手順：…, 絶対に忘れないでほしいルール：…: what it is, then the content.
        if let Some(r) = tail.strip_prefix("ほしい").or_else(|| tail.strip_prefix("欲しい"))
            && let Some(k) = r.find([':', '\n'])
            && r[..k].chars().count() <= 6
            && !r[..k].contains(['、', '。'])
        {
            let end = at(i + v.len() + (tail.len() - r.len()) + k + 1);
            let content = content_after(text, end);
            if !content.is_empty() {
                // 忘れないでほしいこと：… names nothing; 手順, ルール name what follows.
                let label = r[..k].trim().trim_start_matches(['こ', 'と', 'の', 'も']);
                let content =
                    if label.is_empty() { content } else { format!("{label}：{content}") };
                out.push(hit(text, TriggerKind::Remember, at(from), end, content));
                return out;
            }
        }
        if ja_ends_after(tail) {
            let object = ja_trim_object(text.orig_slice(base, at(from)));
            // リマインドできるように覚えておいて: a purpose points at the text around it.
            let purpose = ["ように", "ために"].iter().any(|w| object.ends_with(w));
            // 次回も使うので、この手順を覚えておいて: a reason, then a pointer back.
            let raw = text.orig_slice(base, at(from));
            let purpose = purpose
                || ["ので、", "から、", "ので", "から"].iter().any(|r| {
                    raw.rfind(r).is_some_and(|i| {
                        let p = raw[i + r.len()..].trim_end_matches(['を', 'は', 'も']);
                        !p.is_empty() && is_ja_pointer(p)
                    })
                });
            let after = trim_content(text.orig_slice(sentence.end, text.norm.len()));
            let object = if is_ja_pointer(&object) || purpose {
                before_sentence()
            } else if !after.is_empty()
                && object.chars().count() <= 24
                // 明日は歯医者がある is a statement, not a title.
                && !object.contains(['。', 'は', 'が'])
            {
                // 味噌汁の作り方メモして。昆布と…: a title, then what it names.
                format!("{object}：{after}")
            } else {
                object
            };
            out.push(hit(text, TriggerKind::Remember, at(from), at(i + v.len()), object));
            return out;
        }
        if ja_continues_after(tail) {
            // 忘れないで、来週の火曜日は有給。 / 今後のために覚えておいて、… : the content follows.
            let end = at(i + v.len());
            let content = content_after(text, end);
            let mut rest = content.as_str();
            loop {
                let before = rest.len();
                rest = rest.trim_start_matches(['、', ':', '：', ' ', '〜', '～', '♪', 'ー']);
                if let Some(t) =
                    JA_TAILS.iter().filter(|t| rest.starts_with(*t)).max_by_key(|t| t.len())
                {
                    rest = &rest[t.len()..];
                }
                if rest.len() == before {
                    break;
                }
            }
            let content = trim_content(rest);
            // キャッシュの消し方を覚えておいて：… : what the steps are for is their title.
            let raw = text.orig_slice(base, at(from)).trim_end_matches(['、', ' ']);
            let object = ja_trim_object(raw);
            // 今日の朝会、記録しておいて: … : the words before name what follows; あとで使うから
            // gives a reason, which names nothing.
            let reason = ["から", "ので"].iter().any(|w| raw.ends_with(w))
                && !["大事", "大切", "重要"].iter().any(|w| raw.contains(w));
            let titled = !reason
                && !is_ja_pointer(&object)
                && object.chars().count() <= 24
                && !object.contains(['。', '、']);
            let content = if titled && !content.is_empty() {
                format!("{object}：{content}")
            } else {
                content
            };
            out.push(hit(text, TriggerKind::Remember, at(from), end, content));
            return out;
        }
    }
    // 今後は英語で答えて。 / これからは、コメントは英語で書いてね。: a standing instruction.
    let opened = ja_strip_openers(s);
    if let Some(lead) = [
        "今後は",
        "これからは",
        "今後、",
        "これから、",
        "次回からは",
        "次からは",
        "これから",
        "今後",
    ]
    .iter()
    .find(|l| opened.starts_with(*l))
    // これから返信は…: bare, the lead must open a topic (…は); 今後とも, 今後の流れ do not.
    .filter(|l| {
        l.ends_with(['は', '、']) || {
            let after = &opened[l.len()..];
            !after.starts_with(['の', 'と', 'も', 'さ', 'が'])
                && after.chars().take(8).collect::<String>().contains('は')
        }
    }) {
        let body = opened.trim_end_matches(['。', '！', '!', ' ', '\n']);
        let body = body.trim_end_matches(['ね', 'よ']);
        let asks = [
            "て",
            "ください",
            "こと",
            "ように",
            "ないで",
            "お願い",
            "お願いします",
            "ほしい",
            "ていい",
            "でいい",
        ]
        .iter()
        .any(|e| body.ends_with(e));
        let i = s.len() - opened.len();
        if asks && !quoted(i) {
            let content = trim_content(text.orig_slice(at(i), sentence.end));
            out.push(hit(text, TriggerKind::Remember, at(i), at(i + lead.len()), content));
            return out;
        }
    }
    // 今週の記憶を振り返って整理しておいて, 記憶の統合をお願いします: the memory, a word of
    // reviewing it, and a request.
    // The review word follows the memory closely (記憶を振り返って, メモリーの中身を見直して);
    // パソコンのメモリが足りないので、アプリを整理して is about a computer, 記憶力 a skill.
    if let Some((m, n)) = ["記憶", "メモリー", "メモリ", "覚えていること", "覚えてること"]
        .iter()
        .find_map(|w| s.find(w).map(|m| (m, w.len())))
        && !s[m + n..].starts_with(['が', '力'])
        && let Some((a, w)) =
            ["振り返", "ふりかえ", "見直", "整理", "統合", "棚卸し", "掃除", "片付け"]
                .iter()
                .find_map(|w| s[m..].find(w).map(|a| (m + a, *w)))
        && s[m + n..a].chars().count() <= 6
        && !s[m + n..a].contains(['、', '。'])
        && ja_requests(s)
        && !quoted(m)
    {
        out.push(hit(text, TriggerKind::Reflect, at(a), at(a + w.len()), String::new()));
        return out;
    }
    // Reflect: 振り返りをしよう / 記憶を整理して.
    const REFLECT: &[&str] = &[
        "メモリーを整理して",
        "メモリーの整理",
        "メモリーを整理しよう",
        "覚えていることを見直して",
        "覚えていることを整理して",
        "記憶を見直して",
        "記憶の見直し",
        "振り返りをしよう",
        "振り返りしよう",
        "振り返りをしましょう",
        "振り返りしましょう",
        "振り返りの時間",
        "振り返りをお願い",
        "振り返りお願い",
        "振り返りをして",
        "振り返りして",
        "振り返りを始め",
        "振り返りをやろう",
        "振り返りやろう",
        "振り返ろう",
        "振り返りましょう",
        "振り返って",
        "記憶を整理して",
        "記憶の整理をして",
        "記憶を整理しよう",
        "記憶の整理",
        "メモリを整理して",
        "メモリの整理",
        "内省しよう",
        "内省して",
        // The same in kana (ふりかえり) and the loanword (リフレクション).
        "ふりかえりをしよう",
        "ふりかえりしよう",
        "ふりかえりの時間",
        "ふりかえりをお願い",
        "ふりかえりお願い",
        "ふりかえりをして",
        "ふりかえりして",
        "ふりかえろう",
        "ふりかえって",
        "リフレクションをしよう",
        "リフレクションしよう",
        "リフレクションの時間",
        "リフレクションタイム",
        "振り返りタイム",
        "ふりかえりタイム",
        "リフレクションをお願い",
        "リフレクションお願い",
        "リフレクションをして",
        "リフレクションして",
    ];
    for v in REFLECT {
        let Some(i) = s.find(v) else { continue };
        let tail = &s[i + v.len()..];
        let request = !v.ends_with('て') || ja_ends_after(tail) || ja_continues_after(tail);
        // 「スプリントの振り返り資料を作って」 is about a document, and "彼が振り返って" about a person.
        if !request || quoted(i) || s[..i].ends_with('が') {
            continue;
        }
        out.push(hit(text, TriggerKind::Reflect, at(i), at(i + v.len()), String::new()));
        return out;
    }
    // Forget: 忘れて / なかったことにして / 記憶から消して.
    const FORGET: &[&str] = &[
        "なかったことにしといて",
        "なかったことにしておいて",
        "なかったことにしてください",
        "なかったことにして",
        "なかったことに",
        "無かったことにして",
        "無かったことに",
        "忘れてください",
        "忘れていいよ",
        "忘れていい",
        "忘れてもいい",
        "忘れてok",
        "忘れて大丈夫",
        "忘れちゃって",
        "忘れてくれ",
        "忘れてね",
        "削除でお願いします",
        "削除でお願い",
        "破棄してください",
        "破棄しておいて",
        "破棄して",
        "消去をお願いします",
        "消去をお願い",
        "消去してください",
        "消去して",
        "忘れといて",
        "忘れておいて",
        "忘れて",
        "記憶から消して",
        "記憶から削除して",
        "メモリから消して",
        "メモから消して",
        "メモを消して",
        "メモを削除して",
        "記録を消して",
        "記憶を消して",
        "削除しておいて",
        "削除しといて",
        "削除して",
        // Before 消して, which it contains.
        "取り消しておいて",
        "取り消しといて",
        "取り消してください",
        "取り消して",
        "取り消しで",
        "取り消し",
        "消しておいて",
        "消しといて",
        "削除していいよ",
        "削除していい",
        "削除してもいい",
        "消していいよ",
        "消していい",
        "消してもいい",
        "消して",
        "無視してください",
        "無視していい",
        "無視して",
    ];
    // 削除して/消して only forget memory things: "電気を消して" turns off a light.
    let about_memory = [
        "メモ",
        "保存",
        "記憶",
        "情報",
        "記録",
        "データ",
        "話",
        "メモリ",
        "覚えて",
        "言った",
        "さっきの",
        "発言",
    ]
    .iter()
    .any(|w| s.contains(w));
    for v in FORGET {
        let Some(i) = s.find(v) else { continue };
        // 取り消して cancels an order unless it points at what was said (さっきのは取り消して).
        let needs_memory = v.starts_with("削除")
            || v.starts_with("消し")
            || v.starts_with("無視")
            || v.starts_with("取り消");
        if quoted(i) || needs_memory && !about_memory {
            continue;
        }
        let tail = &s[i + v.len()..];
        if ja_ends_after(tail)
            || ja_continues_after(tail)
            || v.ends_with("ことに") && ja_sentence_end(tail)
        {
            let raw = text
                .orig_slice(base, at(i))
                .trim_end_matches(['、', ' '])
                .trim_end_matches("もう")
                .trim_end_matches(['、', ' ']);
            let object = ja_trim_object(&ja_drop_reason(raw));
            let object =
                if is_ja_pointer(&object) { String::new() } else { ja_trim_object(&object) };
            out.push(hit(text, TriggerKind::Forget, at(i), at(i + v.len()), object));
            return out;
        }
    }
    // Recall without a question mark: 私について覚えていることを教えて。
    for v in
        ["覚えていること", "覚えてること", "知っていること", "知ってること", "記憶していること"]
    {
        // …ことを教えて, …ことを全部教えて, …ことを見せて: a few words between are fine.
        if let Some(i) = s.find(v)
            && !quoted(i)
            && let Some(r) = s[i + v.len()..].strip_prefix('を')
            && ["教えて", "見せて", "全部出して", "一覧にして"].iter().any(|w| {
                r.find(w)
                    .is_some_and(|k| r[..k].chars().count() <= 4 && !r[..k].contains(['、', '。']))
            })
        {
            let mut object = text.orig_slice(base, at(i)).to_owned();
            for q in ["について", "のことで", "のこと", "で"] {
                if let Some(r) = object.strip_suffix(q) {
                    object = r.to_owned();
                    break;
                }
            }
            let object = ja_trim_object(&object);
            if !object.is_empty() && (ja_is_personal(&object) || names_known(text, &object)) {
                out.push(hit(text, TriggerKind::Recall, at(i), at(i + v.len()), object));
                return out;
            }
        }
    }
    // うちのWi-Fiのパスワードは？, 母の誕生日って？: the user's own thing, asked for by name.
    {
        let body = s.trim_end().trim_end_matches(['？', '?', ' ', '。']);
        let asked = s.trim_end().ends_with(['？', '?']);
        // 妻の誕生日っていつだった？, 母の電話番号教えて: a question word or 教えて after it.
        let tails = [
            "っていつだったっけ",
            "っていつだった",
            "はいつだった",
            "っていつ",
            "はいつ",
            "ってどこ",
            "はどこ",
            "って何",
            "ってなに",
            "は何",
            "を教えて",
            "教えて",
            "は",
            "って",
        ];
        let tell = body.ends_with("教えて");
        if (asked || tell)
            && let Some(stem) = tails.iter().find_map(|e| body.strip_suffix(e))
            && ja_is_personal(stem)
            && [
                "パスワード",
                "住所",
                "電話番号",
                "番号",
                "誕生日",
                "記念日",
                "名前",
                "暗証番号",
                "メアド",
                "アドレス",
                "期限",
                "サイズ",
            ]
            .iter()
            .any(|w| stem.ends_with(w))
            && !quoted(0)
        {
            let object = ja_trim_object(text.orig_slice(base, at(stem.len())));
            out.push(hit(text, TriggerKind::Recall, at(0), at(body.len()), object));
            return out;
        }
    }
    // …について保存してある内容を教えて, …のメモって残ってる？, …について記憶してることある？,
    // …何か覚えてたら教えて, …について、私なんて言ってた？, …保存してあったよね？: the user asks
    // what the agent kept of what they told it.
    {
        const KEPT: &[&str] = &[
            "について保存してある",
            "について記憶してること",
            "について記憶していること",
            "、保存してあった",
            "って保存してあった",
            "、何か覚えてたら",
            "について何か覚えてたら",
            "、何か覚えていたら",
            "のメモって残ってる",
            "のメモ残ってる",
            "の記録って残ってる",
            "について、私なんて言ってた",
            "について私なんて言ってた",
            "について、私何て言ってた",
            "について何か記録してる",
            "について記録してること",
            "について記録してあること",
            "について何か保存してる",
            "について何かメモしてる",
            "についてメモしてあること",
            "って私なんて言ってた",
        ];
        let asked = s.contains(['？', '?'])
            || ["教えて", "見せて", "ある", "ね"].iter().any(|w| trimmed_end(s).ends_with(w));
        for p in KEPT {
            let Some(i) = s.find(p) else { continue };
            if !asked || quoted(i) || i == 0 {
                continue;
            }
            // "のメモ" names what was kept: the topic keeps it out ("リリース手順").
            let object = ja_trim_object(text.orig_slice(base, at(i)));
            if object.is_empty() {
                continue;
            }
            out.push(hit(text, TriggerKind::Recall, at(i), at(i + p.len()), object));
            return out;
        }
    }
    // Recall: …を覚えてる？ / …について何を知ってる？
    const RECALL: &[&str] = &[
        "覚えていますか",
        "覚えてますか",
        "覚えてたっけ",
        "覚えてるっけ",
        "覚えてるかな",
        "覚えている",
        "覚えてる",
        "覚えてます",
        "覚えてた",
        "知っていますか",
        "知ってますか",
        "知っている",
        "知ってる",
        "記憶してる",
        "記憶していますか",
        "何だっけ",
        "なんだっけ",
        "だったっけ",
        "だっけ",
        "たっけ",
    ];
    let trimmed = s.trim_end().trim_end_matches(['。', ' ']);
    let asks = trimmed.ends_with(['？', '?', 'か']) || s.contains("っけ");
    // 昔のガラケーって覚えてる？…ツイートを書いて: a memory shared to set up work;
    // 記憶ってどういう仕組み？…覚えてるの？: how memory works.
    let later = text.norm.get(sentence.end..).unwrap_or("");
    let sets_up_work =
        ["書いて", "作って", "考えて", "描いて", "まとめて"].iter().any(|w| later.contains(w));
    let how_memory_works = ["仕組み", "どうやって"].iter().any(|w| text.norm.contains(w));
    if asks && !sets_up_work && !how_memory_works {
        for v in RECALL {
            let Some(i) = s.rfind(v) else { continue };
            let tail = &s[i + v.len()..];
            let tail_ok = tail.chars().all(|c| {
                matches!(c, '？' | '?' | 'か' | 'な' | '。' | ' ' | 'の' | 'よ' | 'ね' | '…')
            });
            if !tail_ok || quoted(i) {
                continue;
            }
            let mut object = text.orig_slice(base, at(i)).to_owned();
            for q in
                ["について何か", "について何を", "のこと何か", "について", "で何を", "何か", "何を"]
            {
                if let Some(r) = object.strip_suffix(q) {
                    object = r.to_owned();
                    break;
                }
            }
            let object = ja_trim_object(&object);
            // 「知ってる？」 followed by news is "did you know", not a recall; "覚えてる人いる？" asks others.
            if object.is_empty() || object.ends_with("人") {
                continue;
            }
            // 「光合成について何を知っている？」 asks for knowledge, not memory; so does
            // 「リンクリストの反転の仕方覚えてる？」.
            let how = ["仕方", "やり方", "方法"].iter().any(|w| object.ends_with(w));
            // 「京都の歴史について何か覚えてる？」 asks what the agent knows of a subject.
            let anything = text.orig_slice(base, at(i)).ends_with("について何か");
            // 「ゆで卵の半熟って何分だったっけ？」 asks how long, a matter of general knowledge, unless
            // the user told it (前に言った…) or it is theirs.
            let measure = [
                "何分",
                "何秒",
                "何度",
                "何グラム",
                "何cc",
                "何ml",
                "何カロリー",
                "どのくらい",
                "どれくらい",
            ]
            .iter()
            .any(|w| object.contains(w))
                && !["前に", "言った", "教えた", "伝えた", "メモ"]
                    .iter()
                    .any(|w| text.norm.contains(w));
            // 歌詞で「忘れないで」って出てくる曲、なんだっけ？ asks for a song, not a memory.
            let work = ["歌", "曲", "映画", "アニメ", "小説", "タイトル"]
                .iter()
                .any(|w| object.contains(w));
            // 消費税の端数処理って切り捨てでいいんだっけ？, 医療費控除って、いくらから対象になるんだっけ？:
            // a question about how things are in general, with nothing of the user's in it
            // (round 9).
            let general = v.ends_with("っけ")
                && [
                    "いいんだっけ",
                    "なるんだっけ",
                    "するんだっけ",
                    "あるんだっけ",
                    "いくらから",
                    "どうやるんだっけ",
                    "どうやるの",
                ]
                .iter()
                .any(|w| s.contains(w))
                && ![
                    "私",
                    "僕",
                    "俺",
                    "うち",
                    "前に",
                    "言った",
                    "話した",
                    "教えた",
                    "伝えた",
                    "メモ",
                    "保存",
                ]
                .iter()
                .any(|w| text.norm.contains(w));
            if general {
                continue;
            }
            // 前に言った映画館の場所 is what the user told, whatever it names.
            let told = ["前に", "この前", "以前", "言った", "話した", "教えた", "伝えた", "メモ"]
                .iter()
                .any(|w| object.contains(w));
            let work = work && !told;
            if (v.contains("知っ") || how || anything || measure || work)
                && !ja_is_personal(&object)
                && !names_known(text, &object)
            {
                continue;
            }
            out.push(hit(text, TriggerKind::Recall, at(i), at(i + v.len()), object));
            return out;
        }
    }
    // Goodbyes: おやすみ, もう寝る, 今日はここまで.
    for v in ["おやすみなさい", "おやすみー", "おやすみ", "お休みなさい"] {
        let Some(i) = s.find(v) else { continue };
        let tail = &s[i + v.len()..];
        let next = tail.strip_prefix("なさい").unwrap_or(tail).chars().next();
        if next.is_some_and(|c| {
            matches!(c, 'の' | 'を' | 'は' | 'が' | 'に' | 'で' | 'だ' | 'も' | 'と' | 'す')
                // おやすみ前に読む絵本: a kanji noun after it makes a compound, not a goodnight;
                // おやすみなさいって英語で…: って quotes it.
                || matches!(c as u32, 0x4E00..=0x9FFF)
                || c == 'っ'
        }) || quoted(i)
        {
            continue;
        }
        out.push(hit(text, TriggerKind::ReflectSoft, at(i), at(i + v.len()), String::new()));
        return out;
    }
    for v in [
        "終わりにします",
        "今日は終わり",
        "また明日",
        "今日の作業は終了",
        "作業終了です",
        "今日は終了",
        "もう寝る",
        "もう寝ます",
        "そろそろ寝る",
        "そろそろ寝ます",
        "寝るね",
        "寝ますね",
        "寝ます。",
        "今日はここまで",
        "今日はこれで終わり",
        "今日はもう終わり",
        "落ちるね",
        "落ちます",
        "お先に失礼します",
        "ログオフします",
        "今日は終わりにしよう",
        "もう上がります",
        "上がります",
        "上がるね",
        "もう上がる",
        "そろそろ出かける",
        "そろそろ出ます",
        "そろそろ行くね",
    ] {
        let Some(i) = s.find(v) else { continue };
        // "猫がもう寝る" is about the cat.
        if s[..i].ends_with('が') || quoted(i) {
            continue;
        }
        out.push(hit(text, TriggerKind::ReflectSoft, at(i), at(i + v.len()), String::new()));
        return out;
    }
    // じゃあ、またあとで: a see-you-later that ends the message ("また後で連絡する" does not).
    for v in ["またあとで", "また後で", "またのちほど", "行ってきます"] {
        let Some(i) = s.find(v) else { continue };
        let tail = s[i + v.len()..].trim_end();
        if quoted(i)
            || !tail.chars().all(|c| matches!(c, 'ね' | 'ー' | '〜' | '！' | '!' | '。' | '～'))
        {
            continue;
        }
        out.push(hit(text, TriggerKind::ReflectSoft, at(i), at(i + v.len()), String::new()));
        return out;
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_correction_label_before_the_request_is_read_back() {
        let cases = [
            (
                "Correction: remember that my flight is on Friday",
                "remember that",
                Some("correction"),
            ),
            ("**Correction:** remember that it is Friday", "remember that", Some("correction")),
            ("Actually, remember that Bob likes tea", "remember that", Some("actually")),
            ("No, remember that it is Friday", "remember that", Some("no")),
            ("no wait - remember that it is Friday", "remember that", Some("no wait")),
            ("Remember that it is Friday", "Remember that", None),
            ("Please remember that it is Friday", "remember that", None),
            ("I know, remember that it is Friday", "remember that", None),
            ("Correction: remember that", "", None),
        ];
        for (message, phrase, want) in cases {
            assert_eq!(correction_label(message, phrase).as_deref(), want, "input: {message:?}");
        }
    }

    use super::*;

    fn kind(m: &str) -> Option<&'static str> {
        classify(m, &ExtraPhrases::default()).map(|t| t.kind.as_str())
    }

    /// Everything on a topic of the user's own can only be memory; a page's or a file's is not.
    #[test]
    fn deleting_everything_about_the_users_topic_forgets() {
        for m in [
            "Please permanently delete everything about my previous job at Norvell.",
            "erase everything about my old address",
        ] {
            assert_eq!(kind(m), Some("forget"), "{m}");
        }
        for m in [
            "delete everything about the header in this file",
            "Can you delete everything about jQuery from this page?",
        ] {
            assert_eq!(kind(m), None, "{m}");
        }
        assert_eq!(kind("gnight!"), Some("reflect_soft"));
    }

    #[test]
    fn one_slip_of_the_keyboard() {
        for w in ["remmber", "remembr", "rememebr", "remembeer", "rrmember", "remenber"] {
            assert!(one_slip_from(w, "remember"), "{w}");
        }
        for w in ["remember", "remembers", "remembered", "rembmer", "member", "december"] {
            assert!(!one_slip_from(w, "remember"), "{w}");
        }
    }

    #[test]
    fn issue_examples() {
        let cases = [
            ("Remember that I prefer TypeScript over JavaScript.", Some("remember")),
            ("I remember when we met", None),
            ("I forgot my umbrella", None),
            ("reflect the changes in the config", None),
            ("Remember the Titans is a film", None),
            ("Please forget about the old address", Some("forget")),
            ("Let's reflect on this week", Some("reflect")),
            ("Ok, I'm going to sleep. Goodnight!", Some("reflect_soft")),
            ("What do you remember about Alice?", Some("recall")),
            ("明日の会議は10時だと覚えておいて", Some("remember")),
            ("昨日のことを覚えています", None),
            ("その話はなかったことにして", Some("forget")),
            ("田中さんのことを覚えてる？", Some("recall")),
            ("おやすみなさい", Some("reflect_soft")),
            ("今日の振り返りをしよう", Some("reflect")),
        ];
        for (input, want) in cases {
            assert_eq!(kind(input), want, "input: {input:?}");
        }
    }

    #[test]
    fn content_is_what_the_instruction_is_about() {
        let cases = [
            (
                "Remember that I prefer TypeScript over JavaScript.",
                "I prefer TypeScript over JavaScript.",
            ),
            ("hey, don't forget: the demo is on Friday", "the demo is on Friday"),
            (
                "My sister's birthday is June 3rd, remember that.",
                "My sister's birthday is June 3rd",
            ),
            ("forget about the old address", "the old address"),
            ("The gym plan is no longer relevant", "The gym plan"),
            ("What do you know about Project Atlas?", "Project Atlas"),
            ("明日の会議は10時だと覚えておいて", "明日の会議は10時"),
            ("重要：パスポートは金庫にある", "パスポートは金庫にある"),
        ];
        for (input, want) in cases {
            let t = classify(input, &ExtraPhrases::default()).unwrap();
            assert_eq!(t.content, want, "input: {input:?}");
        }
    }

    /// No input may panic: random mixes of the characters the rules care about.
    #[test]
    fn never_panics_on_odd_input() {
        let alphabet: Vec<char> =
            "ab remembrfgtodnsyh.,!?:;-—、。！？「」\"'’覚えて忘れ振り返おやすみ？\n "
                .chars()
                .collect();
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..4_000 {
            let mut m = String::new();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                m.push(alphabet[(state % alphabet.len() as u64) as usize]);
            }
            for prefix in ["", "remember ", "forget about ", "never mind", "ok, ", "scratch that"] {
                let _ = classify(&format!("{prefix}{m}"), &ExtraPhrases::default());
            }
        }
    }

    #[test]
    fn extra_phrases_from_settings() {
        let extra = ExtraPhrases { remember: vec!["Jot this".into()], ..Default::default() };
        let t = classify("jot this: the wifi code is 1234", &extra).unwrap();
        assert_eq!((t.kind, t.content.as_str()), (TriggerKind::Remember, "the wifi code is 1234"));
        assert_eq!(kind("jot this: x"), None);
    }
}
