//! Store choice: what kind of memory a text is (steps, a rule for the agent, a decision, a
//! preference, an event, a fact) and so which stores it belongs in, each with the words that
//! decided it. English and Japanese. Pure; the labelling guide it follows is in docs/guide.md
//! ("How a memory is routed") and the choices where the skill is silent in docs/decisions.md.
//!
//! Invariant: every store in [`Choice::stores`] has a reason in [`Choice::why`] that names the
//! words of the text (or of the request) that chose it.

use super::{contains_words, first_hit};
use crate::model::Store;
use crate::trigger::learned;

/// What kind of content a memory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A like, dislike or standing wish (the user's own, or someone else's).
    Preference,
    /// Something decided.
    Decision,
    /// How to do something, as steps.
    Procedure,
    /// Something that happened or will happen at a time, or how things stand now.
    Event,
    /// Something to do.
    Task,
    /// A fix to something said before.
    Correction,
    /// A fact about a person, place, thing or setting.
    Fact,
    /// A rule for the agent: always, never, from now on.
    Rule,
}

/// The stores chosen for a text, main first, and why.
#[derive(Debug, Clone)]
pub(super) struct Choice {
    /// The kind of content.
    pub(super) kind: Kind,
    /// Main store first; semantic still needs an entity (the caller checks).
    pub(super) stores: Vec<Store>,
    /// One `(store, why)` per store chosen.
    pub(super) why: Vec<(Store, String)>,
}

impl Choice {
    /// The reason lines, `store X: why`, in the order of the stores.
    pub(super) fn reasons(&self) -> Vec<String> {
        self.stores
            .iter()
            .filter_map(|s| {
                self.why
                    .iter()
                    .find(|(w, _)| w == s)
                    .map(|(_, why)| format!("store {}: {why}", s.as_str()))
            })
            .collect()
    }
}

/// Chooses the stores for `content`; `phrase` is the request's own words ("remember forever",
/// "from now on"), which may ask for the vault or mark a standing rule.
pub(super) fn choose(content: &str, phrase: &str, first_person: bool, learn: bool) -> Choice {
    let lc = content.to_lowercase().replace(['\u{2019}', '\u{2018}'], "'");
    let phrase_lc = phrase.to_lowercase();
    let both = format!("{phrase_lc} {lc}");
    let mut why: Vec<(Store, String)> = Vec::new();
    let event = event_words(&lc);
    let user_pref = first_hit(&lc, USER_PREFERENCE)
        .filter(|_| first_person)
        .or_else(|| ja_first_person(content).then(|| first_sub(content, JA_PREFERENCE)).flatten())
        // "I'm a designer, so skip the detail", 私は糖尿病だから…: who the user is, when it is
        // not about a time, shapes the answers too.
        .or_else(|| event.is_none().then(|| user_identity(content, &lc)).flatten());
    let user_pref =
        user_pref.or_else(|| household_diet(&lc)).or_else(|| ja_unsaid_subject_pref(content));
    let (kind, main) = if let Some(w) = ja_standing_order(content) {
        (Kind::Rule, vec![(Store::Core, format!("a rule for the agent ({w})"))])
    } else if let Some(w) = steps(content, &lc).or_else(|| labelled_steps(&phrase_lc, &lc)) {
        (Kind::Procedure, vec![(Store::Procedural, format!("how to do something, as steps ({w})"))])
    } else if let Some(w) = rule(content, &lc, &phrase_lc) {
        // 私は菜食主義なので、肉を使わないで: who the user is, and the rule it brings, like
        // "I'm a night owl, don't suggest morning meetings".
        let reason = ["なので", "だから", "ですので"].iter().any(|r| {
            content.find(r).is_some_and(|i| {
                user_identity(content, &lc).is_some() && content[..i].chars().count() <= 20
            })
        });
        if reason {
            (
                Kind::Preference,
                vec![
                    (Store::Semantic, format!("who the user is, as the reason for a rule ({w})")),
                    (Store::Core, format!("a rule for the agent ({w})")),
                ],
            )
        } else {
            (Kind::Rule, vec![(Store::Core, format!("a rule for the agent ({w})"))])
        }
    } else if let Some(w) = first_hit(&lc, DECISION).or_else(|| first_sub(content, JA_DECISION)) {
        (
            Kind::Decision,
            vec![
                (Store::Episodic, format!("a decision, logged on the day it was made ({w:?})")),
                (Store::Semantic, format!("the choice holds from now on ({w:?})")),
            ],
        )
    } else if let Some(w) = user_pref {
        (
            Kind::Preference,
            vec![
                (Store::Semantic, format!("a preference of the user's ({w:?})")),
                (Store::Core, format!("a standing preference shapes most answers ({w:?})")),
            ],
        )
    } else if let Some(w) =
        first_hit(&lc, PREFERENCE_OTHER).or_else(|| first_sub(content, JA_PREFERENCE_OTHER))
    {
        (Kind::Preference, vec![(Store::Semantic, format!("a preference ({w:?})"))])
    } else if let Some(w) = first_hit(&lc, CORRECTION) {
        let store = if event.is_some() { Store::Episodic } else { Store::Semantic };
        let about = event.map_or("a fact".to_owned(), |e| format!("an event ({e:?})"));
        (Kind::Correction, vec![(store, format!("a correction ({w:?}) of {about}"))])
    } else if let Some(w) = event {
        (Kind::Event, vec![(Store::Episodic, format!("an event or how things stand now ({w:?})"))])
    } else if let Some(w) = task(content, &lc, &phrase_lc) {
        (Kind::Task, vec![(Store::Episodic, format!("something to do ({w})"))])
    } else {
        (
            Kind::Fact,
            vec![(Store::Semantic, "a fact: no steps, rule, decision or time named".into())],
        )
    };
    let (kind, main) = if learn { with_learned(kind, main, content, phrase) } else { (kind, main) };
    why.extend(main);
    let mut stores: Vec<Store> = why.iter().map(|(s, _)| *s).collect();
    if let Some(w) = first_hit(&both, IMPORTANT).or_else(|| first_sub(&both, JA_IMPORTANT))
        && !stores.contains(&Store::Core)
    {
        stores.push(Store::Core);
        why.push((Store::Core, format!("marked important ({w:?})")));
    }
    // "vault this: …": the request's own verb asks for the vault.
    let vault_verb = (first_word(phrase_lc.trim_start()) == "vault").then_some("vault");
    // "the vault UI", "the Vault CLI": a product named Vault, not the memory's vault.
    let both_pin = ["ui", "cli", "server", "app", "console", "token", "policy", "path"]
        .iter()
        .fold(both.clone(), |b, n| b.replace(&format!("vault {n}"), &format!("vault-{n}")));
    if let Some(w) =
        first_hit(&both_pin, PIN).or_else(|| ja_pin(&phrase_lc, content)).or(vault_verb)
    {
        // A pinned rule stays a rule first; anything else is a vault note, then its own store.
        if kind == Kind::Rule {
            stores.push(Store::Vault);
        } else {
            stores.insert(0, Store::Vault);
        }
        why.push((Store::Vault, format!("the user asked to keep it for good ({w:?})")));
    }
    Choice { kind, stores, why }
}

/// The rules' kind and stores, or the learned store model's where it is sure of another main
/// store ([`learned::STORE_AT`]); the reasons then name both. The vault and "important" are the
/// rules' to add after this, from the words that ask for them, so the model's set is compared and
/// taken without the vault (issue 18).
fn with_learned(
    kind: Kind,
    main: Vec<(Store, String)>,
    content: &str,
    phrase: &str,
) -> (Kind, Vec<(Store, String)>) {
    let message =
        if phrase.trim().is_empty() { content.to_owned() } else { format!("{phrase} {content}") };
    let (set, p) = learned::store_opinion(&message);
    let stores: Vec<Store> = set
        .split('+')
        .filter_map(|name| Store::ALL.into_iter().find(|s| s.as_str() == name))
        .filter(|s| *s != Store::Vault)
        .collect();
    let rules_main = main.first().map(|(s, _)| *s);
    if p < learned::STORE_AT || stores.is_empty() || stores.first().copied() == rules_main {
        return (kind, main);
    }
    let kind = match stores[..] {
        [Store::Core, ..] => Kind::Rule,
        [Store::Procedural, ..] => Kind::Procedure,
        [Store::Episodic, Store::Semantic] => Kind::Decision,
        [Store::Episodic, ..] => Kind::Event,
        [Store::Semantic, Store::Core] => Kind::Preference,
        _ => Kind::Fact,
    };
    let percent = (p * 100.0).round();
    let was = main.first().map_or(String::new(), |(s, why)| format!("{}: {why}", s.as_str()));
    let mut out: Vec<(Store, String)> = stores
        .iter()
        .map(|s| {
            (*s, format!("the learned model is {percent}% sure of {set} (the rules chose {was})"))
        })
        .collect();
    // "Alice moved to Lisbon" as an event still keeps where Alice lives: a fact the rules gave
    // the semantic store stays there, after the episode the model chose.
    if let Some((_, why)) = main.iter().find(|(s, _)| *s == Store::Semantic)
        && stores == [Store::Episodic]
    {
        out.push((Store::Semantic, format!("{why}, as the rules chose")));
    }
    (kind, out)
}

/// "save this recipe for my stretches: calf raises, toe walks, then foam rolling": the request
/// names a procedure and the content lists its parts.
fn labelled_steps(phrase_lc: &str, lc: &str) -> Option<String> {
    // "the way I study vocab: …" is a routine; "the way I like my coffee: …" a preference.
    let way = lc.strip_prefix("the way i ").is_some_and(|r| {
        r.contains(':')
            && !["like", "love", "prefer", "want", "take", "drink", "eat", "feel"]
                .contains(&first_word(r))
    });
    let w = ["recipe", "procedure", "routine", "the steps", "checklist"]
        .into_iter()
        .find(|w| phrase_lc.contains(w))
        .or(way.then_some("the way I"))?;
    (lc.split([',', ';', '\n']).filter(|p| !p.trim().is_empty()).count() >= 2)
        .then(|| format!("{w:?}, then a list"))
}

/// 今後ずっと、要約するときは最初に一行で結論を書いて, これから、翻訳を頼んだときは意訳にして:
/// "from now on, when …, do X" is one order for the agent, a rule, not a procedure of steps.
fn ja_standing_order(content: &str) -> Option<String> {
    let t = content.trim_start();
    let opener = ["今後ずっと", "今後は", "今後", "これからは", "これから", "これからずっと"]
        .into_iter()
        .find(|o| t.starts_with(o))?;
    let when = ["ときは", "時は", "場合は"].into_iter().find(|w| t.contains(w))?;
    let steps = ["次に", "それから", "その後", "そのあと", "最後に", "→", "->", "\n", "①", "1."];
    if steps.iter().any(|w| t.contains(w)) {
        return None;
    }
    let body = t.trim_end_matches(['。', '！', '!', ' ', 'ね']);
    let directive = ["て", "で", "こと", "ください"].iter().any(|e| body.ends_with(e));
    directive.then(|| format!("{opener:?} then {when:?}"))
}

/// Finds the first of `needles` that occurs in `hay` (for scripts without spaces).
fn first_sub<'a>(hay: &str, needles: &[&'a str]) -> Option<&'a str> {
    needles.iter().copied().find(|n| hay.contains(n))
}

/// Counts the places where `needle` stands as a word (or words) of `hay`.
fn count_words(hay: &str, needle: &str) -> usize {
    let joins = |c: char| c.is_alphanumeric() || c == '-' || c == '_';
    hay.match_indices(needle)
        .filter(|(at, _)| {
            let before = hay[..*at].chars().next_back();
            let after = hay[at + needle.len()..].chars().next();
            before.is_none_or(|c| !joins(c))
                && (after.is_none_or(|c| !joins(c)) || needle.ends_with([' ', ',']))
        })
        .count()
}

// ---------------------------------------------------------------------------------------------
// Steps

const HOW_TO: &[&str] = &[
    "how to",
    "how-to",
    "here's how",
    "here is how",
    "the way to",
    "the steps",
    "steps to",
    "steps for",
    "step 1",
    "step one",
    "procedure",
    "process",
    "workflow",
    "checklist",
    "instructions",
    "recipe",
    // "the order for repainting: …": a named routine, then its parts.
    "the order for",
    "the order to",
    "the order of",
    "in order to",
    "how we",
    "how i",
    "means running",
];

const SEQUENCE: &[&str] =
    &["then", "first you", "first,", "after that", "afterwards", "next,", "finally", "→", "->"];

/// Verbs that open a step ("open settings, then storage, then tap clear").
const STEP_VERBS: &[&str] = &[
    "add",
    "apply",
    "assign",
    "attach",
    "boil",
    "branch",
    "build",
    "bump",
    "charge",
    "check",
    "choose",
    "clear",
    "click",
    "close",
    "commit",
    "copy",
    "create",
    "delete",
    "deploy",
    "disconnect",
    "dissolve",
    "download",
    "drain",
    "edit",
    "enable",
    "disable",
    "enter",
    "export",
    "fill",
    "filter",
    "fix",
    "generate",
    "get",
    "heat",
    "hold",
    "install",
    "let",
    "log",
    "merge",
    "mix",
    "open",
    "paste",
    "pick",
    "plug",
    "pour",
    "press",
    "pull",
    "punch",
    "push",
    "reboot",
    "reconnect",
    "redeploy",
    "reload",
    "remove",
    "rename",
    "restart",
    "revoke",
    "rinse",
    "run",
    "save",
    "scan",
    "select",
    "send",
    "set",
    "sign",
    "soak",
    "start",
    "stop",
    "submit",
    "switch",
    "tag",
    "tap",
    "test",
    "try",
    "turn",
    "type",
    "unlock",
    "unplug",
    "update",
    "upload",
    "wait",
    "kill",
    "rerun",
    "retry",
    "refresh",
    "reset",
    "reinstall",
    "flush",
    "wipe",
    "bake",
    "fry",
    "chop",
    "stir",
    "simmer",
    "whisk",
    "cook",
    "grill",
    "roast",
    "knead",
    "layer",
    "serve",
];

/// Commands typed as a step: "rm -rf target/, then build again", "ssh -J bastion …".
const COMMANDS: &[&str] = &[
    "brew", "cargo", "cd", "curl", "docker", "git", "kubectl", "make", "npm", "pip", "rm", "ssh",
    "sudo",
];

const JA_HOW_TO: &[&str] = &[
    "手順",
    "方法",
    "やり方",
    "仕方",
    "流れ",
    "作り方",
    "使い方",
    "レシピ",
    "ときは",
    "時は",
    "場合は",
    "たら",
];
const JA_SEQUENCE: &[&str] = &[
    "まず",
    "最初に",
    "次に",
    "それから",
    "その後",
    "そのあと",
    "最後に",
    "てから",
    "でから",
    "→",
    "->",
    "の順",
    "順番",
];

/// Lines of a list: numbered ones, bulleted ones, and bulleted ones that open with an action
/// ("- close Slack", "- まずSlackに報告").
fn list_lines(content: &str) -> (usize, usize, usize) {
    let (mut numbered, mut bullets, mut actions) = (0, 0, 0);
    for l in content.lines() {
        let t = l.trim_start();
        let circled = t.chars().next().is_some_and(|c| ('\u{2460}'..='\u{2473}').contains(&c));
        if circled
            || t.chars().next().is_some_and(|c| c.is_ascii_digit())
                && t.trim_start_matches(|c: char| c.is_ascii_digit()).starts_with(['.', ')'])
        {
            numbered += 1;
        } else if let Some(item) = ["- ", "* ", "・", "• "].iter().find_map(|b| t.strip_prefix(b))
        {
            bullets += 1;
            let lc = item.to_lowercase();
            let first = lc.split(|c: char| !c.is_alphanumeric() && c != '-').next().unwrap_or("");
            let ja_end = item
                .trim_end_matches(['。', ' '])
                .chars()
                .next_back()
                .is_some_and(|c| "るすくうつむぶぐぬて".contains(c));
            let ja_act =
                ["報告", "更新", "削除", "確認", "実行", "作成", "設定", "再起動", "連絡", "書く"]
                    .iter()
                    .any(|w| item.contains(w));
            if STEP_VERBS.contains(&first) || AGENT_VERBS.contains(&first) || ja_end || ja_act {
                actions += 1;
            }
        }
    }
    (numbered, bullets, actions)
}

/// Counts clauses that open with a step verb ("…, run npm ci and try again").
fn step_clauses(lc: &str) -> usize {
    lc.split([',', ';', ':', '\n'])
        .flat_map(|p| p.split(" and "))
        .flat_map(|p| p.split(" then "))
        .filter(|p| {
            let mut t = p.trim();
            for lead in ["and ", "then ", "finally ", "first ", "next ", "you ", "just ", "also "] {
                t = t.strip_prefix(lead).unwrap_or(t).trim_start();
            }
            let first = t.split(|c: char| !c.is_alphanumeric() && c != '-').next().unwrap_or("");
            STEP_VERBS.contains(&first) || COMMANDS.contains(&first)
        })
        .count()
}

/// A purpose or condition that an instruction answers: "to renew the cert, …", "when the build
/// fails you …". The flag is true when "you" and what to do follow ("to renew the cert you run
/// certbot renew"): a how-to by its shape, even with one step.
fn instruction_frame(lc: &str) -> Option<(&'static str, bool)> {
    let t = lc.trim_start().strip_prefix("that ").unwrap_or(lc.trim_start());
    let you_do = t.find(" you ").is_some_and(|i| {
        let mut words = t[i + 5..].split_whitespace();
        let verb = words.next().unwrap_or("");
        // "to SSH in you have to go through the bastion": what to do, as an obligation.
        let must = matches!(verb, "have" | "need") && words.next() == Some("to");
        must || !matches!(verb, "are" | "were" | "have" | "had" | "will" | "would" | "can" | "know")
    });
    // "to be honest, …", "to me, …" are no purpose.
    let aside = ["to be ", "to me", "to my ", "to us", "to you"].iter().any(|w| t.starts_with(w));
    // "to restart the queue just run `sudo cupsctl --restart`": a purpose, then a command.
    let commanded = t.contains('`') && t.matches('`').count() >= 2 || orders_inside(t);
    if t.starts_with("to ") && !aside && (t.contains(", ") || you_do || commanded) {
        return Some(("\"to …\" then what to do", you_do));
    }
    let cond = ["when ", "if ", "whenever "].into_iter().find(|w| t.starts_with(w));
    if let Some(w) = cond
        && you_do
        && !t[w.len()..].starts_with("you ")
    {
        return Some(("\"when … you …\"", true));
    }
    // "when the build cache gets corrupted: rm -rf …, then build again": a condition, a colon,
    // then what to do.
    if let Some(w) = cond
        && let Some((_, then)) = t[w.len()..].split_once(": ").or_else(|| {
            // "if a task touches billing, stop and ask me first" is a rule for the agent.
            t[w.len()..].split_once(", ").filter(|(_, then)| count_words(then, "me") == 0)
        })
        && let first = then.split_whitespace().next().unwrap_or("")
        && (STEP_VERBS.contains(&first) || COMMANDS.contains(&first))
    {
        return Some(("\"when …:\" then what to do", false));
    }
    None
}

/// "to clear the DNS cache on a mac run sudo dscacheutil …": an order inside a purpose.
fn orders_inside(t: &str) -> bool {
    [" run ", " type ", " press ", " hit ", " click ", " tap "].iter().any(|w| t.contains(w))
}

/// A command or a key shortcut in the text: `git reset --soft HEAD~1` in backticks,
/// "Shift+Command+4", "ssh -J bastion …" (a command word, then an option).
fn command(content: &str) -> Option<&'static str> {
    if content.matches('`').count() >= 2 {
        return Some("a command");
    }
    const KEYS: &[&str] = &[
        "shift+", "command+", "cmd+", "ctrl+", "control+", "alt+", "option+", "opt+", "win+", "fn+",
    ];
    let lc = content.to_lowercase();
    if KEYS.iter().any(|k| lc.contains(k)) {
        return Some("a key shortcut");
    }
    let words: Vec<&str> = lc.split_whitespace().collect();
    words
        .windows(2)
        .any(|w| {
            let cmd = w[0].trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
            // "やり方：git reset": a command glued to Japanese before it.
            let cmd = cmd.rsplit(|c: char| !c.is_ascii()).next().unwrap_or(cmd);
            COMMANDS.contains(&cmd)
                && (w[1].starts_with('-')
                    || matches!(cmd, "git" | "docker" | "kubectl" | "cargo" | "npm" | "make"))
        })
        .then_some("a command")
}

/// Returns the words that make `content` a how-to, if it is one.
fn steps(content: &str, lc: &str) -> Option<String> {
    // Numbered lines are steps; bullets are steps when they are actions or the text says it is
    // a how-to (a bulleted list of facts is not).
    let (numbered, bullets, actions) = list_lines(content);
    if numbered >= 2 {
        return Some(format!("{numbered} numbered steps"));
    }
    let how_words = first_hit(lc, HOW_TO).is_some() || first_sub(content, JA_HOW_TO).is_some();
    if bullets >= 2 && (actions * 2 >= bullets || how_words) {
        return Some(format!("{bullets} listed steps"));
    }
    let seq: Vec<&str> = SEQUENCE.iter().copied().filter(|w| count_words(lc, w) > 0).collect();
    let seq_n: usize = SEQUENCE.iter().map(|w| count_words(lc, w)).sum();
    // The frame may open any line: "it's from the wiki:\nTo request prod access: open …".
    let frame = lc.lines().find_map(|l| {
        // "git tip: to undo the last commit, …": the frame may follow a label.
        instruction_frame(l).or_else(|| {
            l.split_once(": ")
                .filter(|(h, _)| h.split_whitespace().count() <= 4)
                .and_then(|(_, r)| instruction_frame(r))
        })
    });
    if let Some((w, true)) = frame {
        return Some(w.to_owned());
    }
    // "to undo the last commit, `git reset --soft HEAD~1`": a purpose, then a command or a step.
    if let Some((w, _)) = frame
        && let Some(c) = command(content)
            .or_else(|| (step_clauses(lc) >= 1 || orders_inside(lc)).then_some("a step"))
    {
        return Some(format!("{w}, {c}"));
    }
    let how = first_hit(lc, HOW_TO)
        .map(|w| format!("{w:?}"))
        .or_else(|| frame.map(|(w, _)| w.to_owned()))
        .or_else(|| (lc.matches('`').count() >= 4).then(|| "two commands".to_owned()));
    let verbs = step_clauses(lc);
    // "1. bump the version 2. tag 3. push" on one line.
    let inline = lc
        .char_indices()
        .filter(|(i, c)| {
            c.is_ascii_digit()
                && lc[..*i].chars().next_back().is_none_or(char::is_whitespace)
                && lc[i + 1..].starts_with(['.', ')'])
                && lc[i + 2..].starts_with(' ')
        })
        .count();
    // "①電源オフ ②レンズを外す": circled numbers in a line.
    let inline = inline.max(lc.chars().filter(|c| ('\u{2460}'..='\u{2473}').contains(c)).count());
    if inline >= 2 {
        return Some(format!("{inline} numbered steps"));
    }
    // "Copy with Ctrl+C and paste with Ctrl+V": actions with a key shortcut or a command.
    if verbs >= 1
        && let Some(c) = command(content)
    {
        return Some(format!("{verbs} steps, {c}"));
    }
    let colon = how.is_some() && lc.contains(':');
    let en = colon
        || seq_n >= 2
        || how.is_some() && (seq_n >= 1 || verbs >= 2)
        || seq_n >= 1 && verbs >= 2;
    if en {
        let mut words: Vec<String> = how.into_iter().collect();
        words.extend(seq.iter().map(|w| format!("{w:?}")));
        if words.is_empty() {
            words.push(format!("{verbs} steps"));
        }
        return Some(words.join(", "));
    }
    if !content.chars().any(crate::word::is_cjk) {
        return None;
    }
    // Terraformのapplyは必ずplanを私に見せてから: "only after" in a rule is its condition.
    let rule_word = first_sub(content, JA_RULE_WORDS).is_some();
    let seq: Vec<&str> = JA_SEQUENCE
        .iter()
        .copied()
        .filter(|w| content.contains(w))
        .filter(|w| !(rule_word && matches!(*w, "てから" | "でから")))
        .collect();
    // 残すには git reset …, スクショを撮るのは Shift+Command+4, … って打つ: a command answers a
    // purpose.
    if let Some(c) = command(content)
        && (ja_purpose(content).is_some()
            || ["って打つ", "と打つ", "を実行", "を叩く", "って叩く", "で実行", "を押す", "のは"]
                .iter()
                .any(|w| content.contains(w))
            // Gitでコミットを取り消すやり方：git reset --soft …: a command under a how-to noun.
            || ["やり方", "方法", "手順", "仕方"].iter().any(|w| content.contains(w))
            || ja_method_noun(content).is_some())
    {
        return Some(c.to_owned());
    }
    let how = first_sub(content, JA_HOW_TO)
        .or_else(|| ja_method_noun(content))
        .or_else(|| ja_purpose(content));
    let te = ["て、", "んで、", "いで、"].iter().map(|w| content.matches(w).count()).sum::<usize>();
    // 掃除してすすぎを回す: a て that joins two actions (not ている, てね, てください…).
    let chars: Vec<char> = content.chars().collect();
    let te_join = chars
        .windows(3)
        .filter(|w| {
            // すすいで陰干し: で after い or ん joins two actions too.
            let te = w[1] == 'て' || w[1] == 'で' && matches!(w[0], 'い' | 'ん');
            // 住んでて, 働いてて: ている cut short is a state, not an action.
            te && crate::word::is_cjk(w[2]) && !"いるねよたほくおもはあて".contains(w[2])
        })
        .count();
    let items = content.matches('、').count();
    let past = content.trim_end_matches(['。', '！', '!', ' ', '\n']).ends_with('た');
    let ja = seq.len() >= 2
        || how.is_some() && (!seq.is_empty() || te >= 1 || te_join >= 1 || items >= 2)
        || !past && (!seq.is_empty() && te >= 1 || te >= 2)
        // 掃除は、…につけて、すすいで陰干し: a topic, then actions joined by て.
        || !past && te >= 1 && te + te_join >= 2 && content.contains('は')
        // フィルター掃除は月1回、外して水洗いして乾かす: three actions in a row.
        || !past && te_join >= 2 && content.contains('は')
        // ロック解除は、QRコードを読み取ってからレバーを引く: a topic, then actions in order.
        || !past
            && seq.first().is_some_and(|w| {
                content.find('は').is_some_and(|t| content.find(w).is_some_and(|q| t < q))
            });
    ja.then(|| {
        let mut words: Vec<String> = how.into_iter().map(|w| format!("{w:?}")).collect();
        words.extend(seq.iter().map(|w| format!("{w:?}")));
        if words.is_empty() {
            words.push(format!("{} actions joined by て", te + te_join));
        }
        words.join(", ")
    })
}

/// "…を回すには", "…を残すには": a verb in the plain form and には, "in order to".
fn ja_purpose(content: &str) -> Option<&'static str> {
    let chars: Vec<char> = content.chars().collect();
    chars
        .windows(3)
        .any(|w| w[1..] == ['に', 'は'] && "うくぐすつぬぶむる".contains(w[0]))
        .then_some("…には")
}

/// "消し方", "書き方": a verb stem in kana and 方, "the way of doing".
fn ja_method_noun(content: &str) -> Option<&'static str> {
    let chars: Vec<char> = content.chars().collect();
    chars
        .windows(2)
        .any(|w| w[1] == '方' && matches!(w[0] as u32, 0x3041..=0x3093))
        .then_some("…方")
}

// ---------------------------------------------------------------------------------------------
// Rules for the agent

/// Openings that make a clause a standing rule: "always …", "never …", "don't …".
const RULE_OPENERS: &[&str] =
    &["always", "never", "don't ever", "do not ever", "don't", "do not", "dont", "avoid"];

/// Words anywhere that make a text a rule for the agent.
const RULE_WORDS: &[&str] = &[
    "you must",
    "you mustn't",
    "you should",
    "you shouldn't",
    "you need to",
    "you have to",
    "you may not",
    "you can't",
    "you cannot",
    "i want you to",
    "i need you to",
    "make sure you",
    "make sure to",
    "must never",
    "must not",
    "must always",
    "don't ever",
    "never ever",
    "not allowed",
    "is forbidden",
    "without asking me",
    "without my ok",
    "without my approval",
    "without checking with me",
];

/// Verbs of how the agent answers and acts, which make an imperative a rule for it.
const AGENT_VERBS: &[&str] = &[
    "answer",
    "reply",
    "respond",
    "write",
    "speak",
    "talk",
    "address",
    "cite",
    "include",
    "format",
    "ask",
    "avoid",
    "keep",
    "use",
    "default",
    "spell",
    "round",
    "quote",
    "summarise",
    "summarize",
    "explain",
    "structure",
    "sign",
    "refer",
    "skip",
    "limit",
    "prefer",
    "give",
    "show",
    "suggest",
    "recommend",
    "mention",
    "stop",
    "start",
    "put",
    "add",
    "label",
    "present",
    "translate",
    "double-check",
    "check",
    "confirm",
    "treat",
    "assume",
    "respond",
];

/// Request words that mark a standing instruction.
const STANDING: &[&str] = &[
    "from now on",
    "going forward",
    "in future",
    "in the future",
    "for future chats",
    "for future conversations",
    "for future sessions",
    "from today",
];

const JA_RULE_WORDS: &[&str] =
    &["必ず", "絶対", "いつも", "常に", "今後", "これから", "毎回", "二度と", "決して"];
/// Endings of a directive: a request, an order written as こと, or a permission.
const JA_DIRECTIVE: &[&str] = &[
    "ください",
    "お願いします",
    "お願い",
    "こと",
    "ように",
    "ほしい",
    "ていい",
    "でいい",
    "てから",
    "でから",
    "て",
    "べき",
    // 提案するときは必ず2人分の分量で: a rule word, then the noun and で it asks for.
    "で",
    // 朝9時より前に予定を入れるのは絶対NG: a rule word, then a ban.
    "NG",
    "ng",
    "ダメ",
    "だめ",
];
/// Endings that forbid: a rule by themselves.
const JA_PROHIBITION: &[&str] = &[
    "ないで",
    "ないでください",
    "ないこと",
    "ないように",
    "禁止",
    "てはいけない",
    "てはだめ",
    "ちゃだめ",
    "厳禁",
];

fn first_word(s: &str) -> &str {
    s.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'').next().unwrap_or("")
}

/// Returns the words that make `content` a rule for the agent, if it is one.
fn rule(content: &str, lc: &str, phrase_lc: &str) -> Option<String> {
    let mut t = lc.trim_start().strip_prefix("that ").unwrap_or(lc.trim_start());
    for lead in ["please ", "and ", "also ", "so ", "you should ", "you must ", "to "] {
        t = t.strip_prefix(lead).unwrap_or(t).trim_start();
    }
    for o in RULE_OPENERS {
        if let Some(rest) = t.strip_prefix(o).filter(|r| r.starts_with(' ')) {
            let next = first_word(rest.trim_start());
            if !next.is_empty() && !matches!(next, "mind" | "again" | "been" | "forget") {
                return Some(format!("{o:?}"));
            }
        }
    }
    if let Some(w) = first_hit(lc, RULE_WORDS) {
        return Some(format!("{w:?}"));
    }
    // "Rule for you: answer in Japanese …", "New rule: …": the user says it is a rule.
    if let Some((head, _)) = t.split_once(':')
        && ["rule", "new rule", "house rule", "rule for you", "a rule", "ground rule"]
            .contains(&head.trim())
    {
        return Some(format!("{:?}", head.trim()));
    }
    // "when you write commit messages always use the imperative mood": a condition on what the
    // agent does, then "always"/"never" and an action, with no comma between.
    if ["when you ", "whenever you ", "if you "].iter().any(|w| t.starts_with(w)) {
        let words: Vec<&str> = t.split_whitespace().collect();
        if let Some(k) = words.iter().position(|w| matches!(*w, "always" | "never"))
            && let Some(verb) = words.get(k + 1)
            && (AGENT_VERBS.contains(verb) || STEP_VERBS.contains(verb))
        {
            return Some(format!("{:?} then {:?} {verb:?}", words[0], words[k]));
        }
    }
    // "…, never merge it directly": a rule opener later in the sentence, before an action.
    let mine = ["i'm ", "i am ", "im ", "i "].iter().any(|w| t.starts_with(w));
    for clause in lc.split([',', ';', ':']).skip(1).filter(|_| !mine) {
        let c = clause.trim_start();
        for o in ["never", "always", "don't", "do not", "dont"] {
            if let Some(rest) = c.strip_prefix(o).filter(|r| r.starts_with(' '))
                && let verb = first_word(rest.trim_start())
                && (AGENT_VERBS.contains(&verb) || STEP_VERBS.contains(&verb))
            {
                return Some(format!("{o:?} {verb:?}"));
            }
        }
    }
    // "no emojis in code comments, ever": a ban.
    if t.starts_with("no ")
        && [", ever", " ever", "at all", "anywhere"]
            .iter()
            .any(|w| lc.trim_end_matches(['.', '!']).ends_with(w))
    {
        return Some("\"no …, ever\"".into());
    }
    // "any email you draft must be reviewed by me", "use 2 spaces in every file you touch": an
    // obligation on what the agent does.
    let you_act = lc.contains(" you ") || lc.starts_with("you ");
    if let Some(w) = ["must ", "has to ", "have to ", "needs to ", "should "]
        .into_iter()
        .find(|w| lc.contains(w))
        .filter(|_| you_act && (lc.contains(" me") || lc.starts_with("any ")))
    {
        return Some(format!("{:?} on what you do", w.trim()));
    }
    if AGENT_VERBS.contains(&first_word(t))
        && you_act
        && ["every", "any", "all", "each", "always"].iter().any(|w| count_words(lc, w) > 0)
    {
        return Some(format!("{:?} for every case", first_word(t)));
    }
    // my boss said "never deploy on Fridays", 上司に「金曜にはデプロイするな」って言われた: a rule
    // quoted from someone.
    if let Some(q) = quoted_rule(content) {
        return Some(format!("a quoted rule ({q:?})"));
    }
    // "when I write in Japanese, answer in Japanese": a condition, then what the agent does.
    let clause_verb = |s: &str| AGENT_VERBS.contains(&first_word(s.trim_start()));
    let conditional = ["when ", "if ", "whenever "].iter().any(|w| t.starts_with(w))
        && t.split_once(", ").is_some_and(|(_, then)| clause_verb(then));
    let standing = first_hit(phrase_lc, STANDING).or_else(|| first_hit(lc, STANDING));
    if conditional {
        return Some(format!("{:?} then an instruction", first_word(t)));
    }
    // "Reply in Spanish to Carlos", "answer briefly": an order about how the agent answers.
    const ANSWER_VERBS: &[&str] = &[
        "answer",
        "reply",
        "respond",
        "speak",
        "talk",
        "address",
        "cite",
        "format",
        "spell",
        "summarise",
        "summarize",
        "translate",
        "refer",
        "default",
    ];
    if ANSWER_VERBS.contains(&first_word(t)) && event_words(lc).is_none() {
        return Some(format!("{:?}: how to answer", first_word(t)));
    }
    // "From now on, no more than 3 bullet points per answer": a standing limit.
    if let Some(s) = standing
        && ["no ", "only ", "at most ", "max ", "never more than ", "not more than "].iter().any(
            |w| t.strip_prefix(s).unwrap_or(t).trim_start_matches([',', ':', ' ']).starts_with(w),
        )
    {
        return Some(format!("{s:?} and a limit"));
    }
    if let Some(s) = standing
        && (clause_verb(t)
            || clause_verb(t.strip_prefix(s).unwrap_or(t).trim_start_matches([',', ':', ' '])))
    {
        return Some(format!("{s:?} and an instruction"));
    }
    if !content.chars().any(crate::word::is_cjk) {
        return None;
    }
    let end = ja_trim_end(content);
    if let Some(p) = JA_PROHIBITION.iter().find(|p| end.ends_with(*p)) {
        return Some(format!("{p:?}"));
    }
    let directive = JA_DIRECTIVE.iter().find(|d| end.ends_with(*d));
    let word = first_sub(content, JA_RULE_WORDS).or_else(|| first_sub(phrase_lc, JA_RULE_WORDS));
    match (word, directive) {
        (Some(w), Some(d)) => Some(format!("{w:?} and {d:?}")),
        // 返事は私が書いた言語でして: a request to the agent with no time is how it should act;
        // 明日10時に起こして is a task.
        (None, Some(d))
            if matches!(*d, "て" | "ください" | "お願い" | "お願いします")
                && event_words(lc).is_none() =>
        {
            Some(format!("a request ({d:?})"))
        }
        // コードのコメントは英語で書くこと: an order written as こと; 私の趣味は読むこと is the
        // user's own.
        // 祖母は電話が聞こえにくいから、メッセージで連絡すること explains a fact about her.
        (None, Some(&"こと"))
            if !ja_first_person(content)
                && !["から、", "ので"].iter().any(|w| content.contains(w))
                && event_words(lc).is_none()
                && end
                    .trim_end_matches("こと")
                    .chars()
                    .next_back()
                    .is_some_and(|c| "うくぐすつぬぶむる".contains(c)) =>
        {
            Some("an order (…こと)".into())
        }
        _ => None,
    }
}

/// A rule in quotation marks: "never deploy on Fridays", 「金曜にはデプロイするな」.
fn quoted_rule(content: &str) -> Option<String> {
    for (open, close) in [('"', '"'), ('“', '”'), ('「', '」'), ('『', '』')] {
        let mut rest = content;
        while let Some(i) = rest.find(open) {
            let after = &rest[i + open.len_utf8()..];
            let Some(j) = after.find(close) else { break };
            let q = after[..j].trim();
            let qlc = q.to_lowercase();
            // "no deploys after 4pm": a ban.
            let ban = qlc.strip_prefix("no ").is_some_and(|r| !first_word(r).is_empty());
            let opens = ban
                || RULE_OPENERS.iter().any(|o| {
                    qlc.strip_prefix(o).is_some_and(|r| {
                        r.starts_with(' ') && !first_word(r.trim_start()).is_empty()
                    })
                });
            // するな, 触るな: a plain verb and な forbids.
            let ja_ban = q
                .trim_end_matches(['。', '!', '！'])
                .strip_suffix('な')
                .and_then(|r| r.chars().next_back())
                .is_some_and(|c| "うくぐすつぬぶむる".contains(c))
                || JA_PROHIBITION
                    .iter()
                    .any(|p| q.trim_end_matches(['。', '!', '！']).ends_with(p));
            if opens || ja_ban {
                return Some(q.to_owned());
            }
            rest = &after[j + close.len_utf8()..];
        }
    }
    None
}

/// The text without its closing punctuation and sentence particles (よ, ね).
fn ja_trim_end(content: &str) -> &str {
    let mut t = content.trim_end();
    loop {
        let before = t;
        t = t.trim_end_matches(['。', '！', '!', '？', '?', '、', ' ', '♪', '〜', '～', 'ー']);
        for p in ["よね", "よ", "ね", "な"] {
            if let Some(r) = t.strip_suffix(p) {
                t = r;
            }
        }
        if t == before {
            return t;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Decisions, preferences, corrections

const DECISION: &[&str] = &[
    "we decided",
    "i decided",
    "decided",
    "agreed",
    "decided to",
    "decided on",
    "we chose",
    "i chose",
    "we're going with",
    "we are going with",
    "we'll go with",
    "we will go with",
    "let's go with",
    "we went with",
    "we picked",
    "decision:",
    "decision from",
    "decision made",
    "the decision is",
    "we agreed",
    "agreed to",
    "agreed on",
    "we settled on",
    "settled on",
    "we're switching to",
    "we are switching to",
    "we switched to",
    "we migrated to",
    "we moved to",
    "we'll use",
    "we will use",
    "going forward we",
    "we opted",
    "opted for",
    "chose to",
];
const JA_DECISION: &[&str] = &[
    "決めた",
    "決めました",
    "決まった",
    "決まりました",
    "ことになりました",
    "にしました",
    "決定",
    "ことにした",
    "にした",
    "に変えた",
    "を選んだ",
    "を採用",
    "合意",
    "ことになった",
    "方針",
];

/// The user's own standing preferences (with a first-person subject).
const USER_PREFERENCE: &[&str] = &[
    "i prefer",
    "i'd prefer",
    "i would prefer",
    "i like",
    "i love",
    "i hate",
    "i dislike",
    "i don't like",
    "i do not like",
    "i'd rather",
    "i would rather",
    "my favorite",
    "my favourite",
    "i always",
    "i never",
    "i can't stand",
    "i enjoy",
    "i'm a fan of",
    "i am a fan of",
    "i'm not a fan of",
    "i usually",
    "i tend to",
    "i'm vegetarian",
    "i am vegetarian",
    "i'm vegan",
    "i am vegan",
    "i'm allergic",
    "i am allergic",
    "intolerant",
    "i don't eat",
    "i dont eat",
    "i do not eat",
    "i don't drink",
    "i dont drink",
    "my name is",
    "call me",
    "i go by",
    "my pronouns",
    "timezone",
    "time zone",
    "i use",
    "i'm using",
    "i'm a beginner",
    "i am a beginner",
    "i'm new to",
    "i'm colorblind",
    "i'm colourblind",
    "i'm color blind",
];
const PREFERENCE_OTHER: &[&str] = &[
    "prefers",
    "likes",
    "loves",
    "hates",
    "dislikes",
    "doesn't like",
    "does not like",
    "favorite",
    "favourite",
    "is allergic to",
    "allergic to",
    "can't stand",
];
const JA_PREFERENCE: &[&str] = &[
    "好き",
    "嫌い",
    "苦手",
    "ダメ",
    "だめ",
    "ほうがいい",
    "方がいい",
    "のがいい",
    "がいい",
    "が好み",
    "アレルギー",
    "ベジタリアン",
    "ヴィーガン",
    "菜食",
    "食べない",
    "食べられない",
    "飲まない",
    "飲めない",
    "使ってる",
    "使っている",
    "使います",
    "わかりやすい",
    "分かりやすい",
    "タイムゾーン",
    "在住",
    "好み",
    "呼んで",
];
const JA_PREFERENCE_OTHER: &[&str] = &["好き", "嫌い", "苦手", "アレルギー"];

/// 単位はメートル法が好みです, 敬語じゃなくてタメ口のほうが好き: a Japanese preference with no one
/// named is the speaker's own, as Japanese leaves out 私. Someone named (佐藤さん, 妻, 猫) makes it
/// theirs.
fn ja_unsaid_subject_pref(content: &str) -> Option<&'static str> {
    // Besides kin and roles (妻, 上司, 担任) and honorifics (さん, 先生): others who may like things.
    const OTHERS: &[&str] = &[
        "彼",
        "友",
        "子ども",
        "子供",
        "猫",
        "犬",
        "家族",
        "みんな",
        "チーム",
        "社",
        "担当",
        "祖",
        "甥",
        "姪",
        "孫",
    ];
    let someone = crate::kin::JA_ROLES.iter().any(|r| content.contains(r.word))
        || crate::kin::JA_HONORIFICS.iter().any(|h| content.contains(h))
        || OTHERS.iter().any(|w| content.contains(w));
    if !content.chars().any(crate::word::is_cjk) || someone {
        return None;
    }
    first_sub(
        content,
        &["好き", "嫌い", "苦手", "が好み", "好み", "のほうがいい", "の方がいい", "ダメ"],
    )
}

/// "we keep halal at home", "our family is vegetarian": the household's diet, which shapes what
/// the agent suggests as much as the user's own.
pub(super) fn household_diet(lc: &str) -> Option<&'static str> {
    const DIETS: &[&str] =
        &["halal", "kosher", "vegetarian", "vegan", "pescatarian", "gluten-free", "dairy-free"];
    let ours = ["we ", "we're ", "our family", "our household", "at home"]
        .iter()
        .any(|w| lc.trim_start().starts_with(w) || lc.contains(&format!(" {w}")));
    DIETS.iter().copied().find(|d| count_words(lc, d) > 0).filter(|_| ours)
}

/// The opening of a statement about who the user is: "I'm …", "I am …", 私は…, 僕は….
fn user_identity(content: &str, lc: &str) -> Option<&'static str> {
    let t = lc.trim_start().strip_prefix("that ").unwrap_or(lc.trim_start());
    ["i'm ", "i am ", "im "]
        .into_iter()
        .find(|w| t.starts_with(w))
        .or_else(|| {
            ["私は", "僕は", "俺は", "わたしは"]
                .into_iter()
                .find(|w| content.trim_start().starts_with(w))
        })
        .map(str::trim_end)
}

/// Tells whether a Japanese text speaks in the first person.
pub(super) fn ja_first_person(content: &str) -> bool {
    ["私", "僕", "俺", "わたし", "あたし", "自分"].iter().any(|w| content.contains(w))
}

const CORRECTION: &[&str] = &[
    "actually",
    "correction",
    "i was wrong",
    "not anymore",
    "no longer",
    "instead of",
    "changed to",
];

const IMPORTANT: &[&str] = &["important", "critical", "crucial", "vital", "top priority"];
const JA_IMPORTANT: &[&str] = &["重要", "大事", "大切"];
/// The user asks to keep it for good: the vault.
const PIN: &[&str] = &[
    "pin this",
    "pin it",
    "pin that",
    "keep it pinned",
    "keep this pinned",
    "keep that pinned",
    "keep pinned",
    "permanently",
    "forever",
    "for good",
    "never let it fade",
    "never let this fade",
    "don't let it fade",
    "don't ever let it fade",
    "don't ever let this fade",
    "do not let it fade",
    "don't let this fade",
    "in the vault",
    "to the vault",
    "into the vault",
    "in your vault",
];
const JA_PIN: &[&str] = &[
    "ずっと",
    "永久",
    "永遠",
    "ピン留め",
    "保管庫",
    "金庫に入れ",
    "金庫にしまって",
    "vaultに入れ",
    "vault に入れ",
    "vaultに保存",
    "vault に保存",
    "vaultにしまって",
    "金庫に保管",
    "金庫(vault)",
    "金庫（vault）",
    "消えないように",
];

/// The vault words of a Japanese request. In the request's own words any of [`JA_PIN`]; in the
/// content ずっと only before a keeping verb (ずっと覚えておいて), for "単位はずっとメートル法が好み"
/// says how long the user has liked it, not how long to keep it.
fn ja_pin(phrase: &str, content: &str) -> Option<&'static str> {
    if let Some(w) = first_sub(phrase, JA_PIN) {
        return Some(w);
    }
    // 金庫にしまっておいて：… leaves "…金庫：…" once the keeping verb is cut off.
    if ["金庫:", "金庫：", "金庫(vault):", "金庫（vault）："].iter().any(|w| content.contains(w))
        || content.trim_end().ends_with("金庫")
    {
        return Some("金庫");
    }
    JA_PIN.iter().copied().find(|w| {
        content.match_indices(w).any(|(i, _)| {
            *w != "ずっと"
                || ["覚え", "残", "保存", "忘れ", "記憶", "取って", "固定"]
                    .iter()
                    .any(|k| content[i + w.len()..].chars().take(6).collect::<String>().contains(k))
        })
    })
}

// ---------------------------------------------------------------------------------------------
// Events and tasks

const EVENT: &[&str] = &[
    "meeting",
    "met with",
    "we met",
    "i met",
    "call with",
    "had a call",
    "yesterday",
    "last week",
    "last night",
    "last month",
    "last weekend",
    "scheduled for",
    "scheduled in",
    "this morning",
    "this afternoon",
    "this evening",
    "tonight",
    "today",
    "tomorrow",
    "tmrw",
    "tmr",
    "tomorow",
    "tommorow",
    "tommorrow",
    "2morrow",
    "next week",
    "next month",
    "next year",
    "this week",
    "this weekend",
    "the weekend",
    "appointment",
    "appt",
    "interview",
    "went to",
    "visited",
    "visiting",
    "happened",
    "party",
    "conference",
    "trip",
    "flight",
    "offsite",
    "off-site",
    "out of office",
    "vacation",
    "holiday",
    "launched",
    "released",
    "shipped",
    "went down",
    "crashed",
    "broke",
    "is coming",
    "are coming",
    "promised",
    "currently",
    "right now",
    "at the moment",
    "got moved",
    "was moved",
    "got cancelled",
    "was cancelled",
    "postponed",
    "rescheduled",
    "standup",
    "got married",
    "wedding",
    // "our anniversary dinner is booked at Dishoom for 7pm": a booking is an event.
    "is booked",
    "are booked",
    "booked at",
    "booked for",
    "reservation",
];
const WEEKDAYS: &[&str] =
    &["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const MONTHS: &[&str] = &[
    "jan",
    "january",
    "feb",
    "february",
    "mar",
    "march",
    "apr",
    "april",
    "may",
    "jun",
    "june",
    "jul",
    "july",
    "aug",
    "august",
    "sep",
    "sept",
    "september",
    "oct",
    "october",
    "nov",
    "november",
    "dec",
    "december",
];
/// Verbs of a standing schedule, which make a time of day a fact ("opens at 9").
const HABITUAL: &[&str] = &[
    "starts at",
    "start at",
    "opens at",
    "open at",
    "closes",
    "opens",
    "begins at",
    "ends at",
    "runs at",
    "is open",
    "are open",
    "weekdays",
    "weekends",
    "on weekdays",
    // "bedtime is 8pm on school nights": a routine.
    "bedtime",
    "school nights",
    "weeknights",
    "usually",
    "normally",
];
const JA_HABITUAL: &[&str] = &[
    "始まる",
    "開く",
    "閉まる",
    "終わる",
    "開店",
    "閉店",
    "平日",
    "土日",
    // 受付は9時から18時: opening hours.
    "営業時間",
    "受付",
    "診療時間",
    "開館",
    "閉館",
    // 月曜定休, 休業日は水曜: a closing day that comes every week.
    "定休",
    "休業日",
];
/// Words that make a date a recurring attribute rather than an event.
const RECURRING: &[&str] = &[
    "every",
    "each",
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "birthday",
    "anniversary",
    "誕生日",
    "記念日",
    "毎月",
    "毎週",
    "毎年",
    "毎日",
    "毎朝",
    "毎晩",
];
const JA_EVENT: &[&str] = &[
    // 2週間後から始まる, 3日後: a time counted from now.
    "週間後",
    "日後",
    "ヶ月後",
    "か月後",
    "カ月後",
    "明日",
    "明後日",
    "今日",
    "昨日",
    "一昨日",
    "昨夜",
    "昨晩",
    "今朝",
    "今夜",
    "今晩",
    "来週",
    "先週",
    "今週",
    "週末",
    "来月",
    "先月",
    "今月",
    "来年",
    "去年",
    "予約",
    "予定",
    "打ち合わせ",
    "ミーティング",
    "会議",
    "有給",
    "休み",
    "出張",
    "約束",
    "健康診断",
    "落ちた",
    "リリースした",
    "の便",
    "便は",
    "調べてる",
    "調べている",
    "対応中",
    "作業中",
    "今は",
    "現在",
];

/// The words that date the text as an event (or today's status), if any.
fn event_words(lc: &str) -> Option<String> {
    // "the Wi-Fi in meeting room B is flaky" names a place, not a meeting.
    let lc = &lc.replace("meeting room", "room");
    // 予約システム, 会議室: a thing named after an event is no event.
    let lc = &["システム", "サイト", "ページ", "アプリ", "室", "枠"].iter().fold(
        lc.clone(),
        |s, tail| {
            ["予約", "会議", "ミーティング"]
                .iter()
                .fold(s, |s, head| s.replace(&format!("{head}{tail}"), tail))
        },
    );
    // "our standup is at 9:30 every day": a meeting that recurs is the schedule, a fact.
    let every = [
        "every day",
        "every week",
        "every morning",
        "every monday",
        "every tuesday",
        "every wednesday",
        "every thursday",
        "every friday",
        "each week",
        "daily",
        "weekly",
    ]
    .iter()
    .any(|w| contains_words(lc, w));
    if let Some(w) = first_hit(lc, EVENT).filter(|_| !every) {
        return Some(w.to_owned());
    }
    if let Some(w) = first_sub(lc, JA_EVENT) {
        return Some(w.to_owned());
    }
    // "in 3 weeks", "in two days": a time counted from now.
    let words: Vec<&str> = lc.split_whitespace().collect();
    for w in words.windows(3) {
        let count = w[1].chars().all(|c| c.is_ascii_digit())
            || ["a", "two", "three", "four", "five", "six", "few", "couple"].contains(&w[1]);
        let unit = w[2].trim_end_matches(['.', ',', '!', ';']);
        if w[0] == "in" && count && ["days", "weeks", "months", "week", "month"].contains(&unit) {
            return Some(format!("in {} {unit}", w[1]));
        }
    }
    // "School starts at 8:15", "the office closes at 6pm on weekdays": a schedule is a fact.
    let recurring = first_sub(lc, RECURRING).is_some()
        || first_hit(lc, RECURRING).is_some()
        || first_hit(lc, HABITUAL).is_some()
        || first_sub(lc, JA_HABITUAL).is_some();
    // A time of day: "at 3pm", "7:40", "15時".
    let chars: Vec<char> = lc.chars().collect();
    for (i, w) in chars.windows(3).enumerate() {
        let digit_before = w[0].is_ascii_digit();
        let am_pm = digit_before
            && (w[1..] == ['a', 'm'] || w[1..] == ['p', 'm'])
            && chars.get(i + 3).is_none_or(|c| !c.is_alphanumeric());
        // 7:40, not 192.168.1.20:5000.
        let clock = digit_before
            && w[1] == ':'
            && w[2].is_ascii_digit()
            && chars.get(i + 3).is_some_and(char::is_ascii_digit)
            && chars.get(i + 4).is_none_or(|c| !c.is_ascii_digit())
            && (i == 0
                || chars[i - 1] != '.'
                    && !(chars[i - 1].is_ascii_digit() && i >= 2 && chars[i - 2].is_ascii_digit()));
        if (am_pm || clock) && !recurring {
            return Some(
                chars[i..(i + 4).min(chars.len())].iter().collect::<String>().trim().to_owned(),
            );
        }
        if digit_before && w[1] == '時' && w[2] != '間' && !recurring {
            return Some("…時".into());
        }
    }
    if recurring {
        return None;
    }
    // 土曜の午前中に…: a weekday, unless every week (毎週土曜, above).
    // 在宅勤務は火曜と木曜: two weekdays are a weekly schedule.
    const JA_DAYS: &[&str] = &["月曜", "火曜", "水曜", "木曜", "金曜", "土曜", "日曜"];
    if let Some(w) = first_sub(lc, JA_DAYS)
        && JA_DAYS.iter().filter(|d| lc.contains(*d)).count() < 2
    {
        return Some(w.to_owned());
    }
    // A weekday or a date: "on Tuesday", "Dec 20", "the 14th", "10月14日".
    let words: Vec<&str> =
        lc.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).collect();
    for (i, w) in words.iter().enumerate() {
        if WEEKDAYS.contains(w) && !recurring_days(&words) {
            return Some((*w).to_owned());
        }
        // "on thurs", "next fri": a weekday cut short, after a word that dates it.
        let short = ["mon", "tue", "tues", "wed", "thu", "thur", "thurs", "fri", "sat", "sun"];
        if short.contains(w) && i > 0 && matches!(words[i - 1], "on" | "next" | "this" | "by") {
            return Some((*w).to_owned());
        }
        let num = |s: &str| {
            s.trim_end_matches(|c: char| c.is_ascii_alphabetic())
                .parse::<u32>()
                .is_ok_and(|n| (1..=31).contains(&n))
        };
        let near = |j: Option<&&str>| j.is_some_and(|x| num(x));
        if MONTHS.contains(w)
            && *w != "may"
            && (near(words.get(i + 1)) || i > 0 && near(words.get(i - 1)))
        {
            return Some(format!("a date ({w})"));
        }
        if *w == "may" && (near(words.get(i + 1)) || i > 0 && near(words.get(i - 1))) {
            return Some("a date (may)".into());
        }
        let ordinal = w.ends_with(|c: char| c.is_ascii_alphabetic()) && num(w);
        // "rent is due on the 1st", "the card is billed on the 15th": a day of every month.
        let monthly = i >= 3
            && words[i - 1] == "the"
            && words[i - 2] == "on"
            && matches!(
                words[i - 3],
                "due" | "paid" | "payable" | "billed" | "charged" | "renews" | "collected"
            );
        if ordinal
            && !monthly
            && (i > 0 && words[i - 1] == "the" || words.get(i + 1) == Some(&"of"))
            && words.get(i + 1) != Some(&"floor")
        {
            return Some(format!("a date (the {w})"));
        }
    }
    // 10月14日, 14日
    let has_day = lc
        .char_indices()
        .any(|(i, c)| c == '日' && lc[..i].chars().next_back().is_some_and(|d| d.is_ascii_digit()));
    has_day.then(|| "a date (…日)".to_owned())
}

/// Tells whether weekdays are named as habits ("on Sundays").
fn recurring_days(words: &[&str]) -> bool {
    words.iter().any(|w| w.strip_suffix('s').is_some_and(|d| WEEKDAYS.contains(&d)))
}

/// The words that make the text something to do, if it is one.
fn task(content: &str, lc: &str, phrase_lc: &str) -> Option<String> {
    if phrase_lc.ends_with(" to") || phrase_lc.contains("remind me") || lc.starts_with("to ") {
        return Some(format!("{:?}", phrase_lc.trim()));
    }
    const MINE: &[&str] = &[
        "i need to",
        "i have to",
        "i must",
        "i've got to",
        "i gotta",
        "i should",
        "need to",
        "have to",
        "deadline",
        "due",
        "to do",
        "todo",
    ];
    // "rent is due on the 1st": a day of every month, not a deadline.
    let monthly_due = ["due on the ", "due by the "].iter().any(|w| {
        lc.split(w).skip(1).any(|r| {
            let d = r.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
            d.len() >= 3 && d[..d.len() - 2].parse::<u32>().is_ok() && !r.contains(" of ")
        })
    });
    if let Some(w) = first_hit(lc, MINE).filter(|w| !(*w == "due" && monthly_due)) {
        return Some(format!("{w:?}"));
    }
    // 電話しないといけない, 出さなきゃ: something the user has to do.
    if let Some(w) = first_sub(
        content,
        &[
            "ないといけない",
            "なきゃ",
            "なければならない",
            "なくちゃ",
            "しないと",
            "締め切り",
            "締切",
        ],
    ) {
        return Some(format!("{w:?}"));
    }
    // 牛乳を買うの(を覚えておいて): a verb in the plain form, made a noun by の.
    let end = ja_trim_end(content);
    let verb_no = end
        .strip_suffix('の')
        .and_then(|r| r.chars().next_back())
        .is_some_and(|c| matches!(c, 'う' | 'く' | 'ぐ' | 'す' | 'つ' | 'ぬ' | 'ぶ' | 'む' | 'る'));
    verb_no.then(|| "\"…の\": something to do".to_owned())
}

// ---------------------------------------------------------------------------------------------
// The topic of a fact with no name in it

/// Words after the subject of a fact: "our staging host | is staging-02".
const SUBJECT_ENDS: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "runs", "uses", "lives", "starts", "ends",
    "listens", "leads", "means", "costs", "takes", "opens", "closes", "belongs", "needs", "only",
    "gets", "stays", "goes", "sits", "holds", "should", "must", "can", "will", "may", "might",
    "comes",
];
const DETERMINERS: &[&str] =
    &["the", "a", "an", "our", "my", "your", "their", "his", "her", "its", "this", "that", "these"];

/// The entity a fact with no name in it is about: its subject, as a concept
/// ("our staging host is staging-02" → `concept--staging-host`, "会社の最寄り駅は三鷹" →
/// `concept--会社の最寄り駅`). `None` when no short subject stands before the verb.
pub(super) fn topic_entity(content: &str) -> Option<super::RoutedEntity> {
    let text = content.trim().trim_start_matches(|c: char| !c.is_alphanumeric());
    let head: String = text.chars().take(24).collect();
    let cjk = head.chars().any(crate::word::is_cjk);
    // 本番のRedisの設定：maxmemory 4gb…, "Wi-Fi at the cabin: network Maple…": a short title before
    // a colon names what follows.
    let titled = text.find(['：', ':']).map(|k| text[..k].trim()).filter(|t| {
        !t.is_empty()
            && t.chars().count() <= 20
            && !t.contains(['。', '、', ',', '.', '\n', 'は', 'が'])
            && t.split_whitespace().count() <= 4
    });
    let name = if let Some(t) = titled {
        t.chars().filter(|c| !"「」『』\"".contains(*c)).collect()
    } else if cjk && head.contains(['は', 'が']) {
        // The topic is what stands before は (or が): 会社の最寄り駅は三鷹.
        ja_subject(text, text.find('は').or_else(|| text.find('が'))?)?
    } else if cjk && !head.contains(' ') {
        // No topic marker: the first noun, before its particle (歯医者に言われた → 歯医者).
        let end =
            ["に", "を", "で", "と", "の", "から"].iter().filter_map(|p| text.find(p)).min()?;
        ja_subject(text, end)?
    } else {
        english_subject(text)?
    };
    let slug = crate::markdown::slugify(&name);
    let id = crate::model::EntityId::parse(&format!("concept--{slug}")).ok()?;
    Some(super::RoutedEntity { id: id.to_string(), name, kind: "concept".into() })
}

/// The Japanese text before byte `end`, without quotes, when it is a short noun phrase.
fn ja_subject(text: &str, end: usize) -> Option<String> {
    let subject: String = text[..end]
        .trim_end_matches(['の', '、'])
        .chars()
        .filter(|c| !"「」『』\"".contains(*c))
        .collect();
    let ok = !subject.is_empty()
        && subject.chars().count() <= 20
        && !subject.contains(['。', '、', '：', ':', ' ']);
    ok.then_some(subject)
}

/// The words before the verb of an English fact, without a leading determiner, when at most six.
fn english_subject(text: &str) -> Option<String> {
    let words: Vec<&str> = text
        .split_whitespace()
        .take(9)
        .map(|w| w.trim_matches(|c: char| "\"“”'‘’()".contains(c)))
        .filter(|w| !w.is_empty())
        .collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let listed = lower.iter().position(|w| SUBJECT_ENDS.contains(&w.as_str()));
    // Or a verb in -s after the subject: "the studio's door code changes every month".
    let verb_s = (1..lower.len()).find(|&i| {
        let w = &lower[i];
        w.len() > 3
            && w.ends_with('s')
            && !w.ends_with("ss")
            && !w.ends_with("'s")
            && w.chars().all(|c| c.is_ascii_lowercase())
            && !DETERMINERS.contains(&lower[i - 1].as_str())
            && !lower.get(i + 1).is_some_and(|n| SUBJECT_ENDS.contains(&n.as_str()))
    });
    let end = match (listed, verb_s) {
        (Some(a), Some(b)) => a.min(b),
        (a, b) => a.or(b)?,
    };
    let mut subject: Vec<&str> = words[..end].to_vec();
    while subject.first().is_some_and(|w| DETERMINERS.contains(&w.to_lowercase().as_str())) {
        subject.remove(0);
    }
    let ok = (1..=6).contains(&subject.len())
        && subject.iter().all(|w| w.chars().all(|c| c.is_alphanumeric() || "-'’".contains(c)))
        && !subject.iter().all(|w| is_no_topic(&w.to_lowercase()));
    ok.then(|| subject.join(" "))
}

/// Tells whether `word` (lower case) is an indefinite or demonstrative pronoun, which the stop
/// word lists do not hold ("everything", "nobody", "those").
pub(super) fn is_pronoun(word: &str) -> bool {
    const PRONOUNS: &[&str] = &[
        "everything",
        "everyone",
        "everybody",
        "something",
        "someone",
        "somebody",
        "nothing",
        "nobody",
        "noone",
        "anything",
        "anyone",
        "anybody",
        "here",
        "one",
        "all",
        "both",
        "each",
        "none",
        "those",
        "some",
        "many",
        "most",
        "few",
        "others",
    ];
    PRONOUNS.contains(&word)
}

/// Words a fact's subject can be made of without naming anything: pronouns ("we are out of
/// milk", "it is broken", "everything is fine"), other stop words, and days ("Saturdays are
/// for the kids": a day is never an entity).
fn is_no_topic(word: &str) -> bool {
    let word = word.trim_end_matches("'s").trim_end_matches("’s");
    is_pronoun(word)
        || crate::stopword::is_english(word, crate::stopword::Tier::Topic)
        || crate::date::relative::is_calendar_word(word)
}
