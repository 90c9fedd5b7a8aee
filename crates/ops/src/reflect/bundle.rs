//! The reflection input bundle (`cogmem reflect input`): what the skill reads, within its
//! token budget, and the instructions with a seeded element menu. Read-only.

use serde::Serialize;

use super::{
    DEFAULT_BASELINE, EVOLUTION, INPUT_BUDGET, REFLECTION_LOG, State, cycle, load_decay, read,
    require,
};
use crate::context::{Encoding, Tiktoken};
use crate::import::TRANSCRIPT_TAG;
use cogmem_index::pack::TokenCounter;
use cogmem_store::decay;
use cogmem_store::settings::ElementKind;
use cogmem_store::store::Store;
use cogmem_store::store::decay_file::DecayFile;
use cogmem_store::store::episode;
use cogmem_store::store::reflection as rf;
use cogmem_store::store::units;
use cogmem_store::workspace::{Workspace, layout};
use cogmem_text::clock::{Clock, Timestamp};
use cogmem_text::markdown;

/// One part of the input bundle.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    /// Its title.
    pub title: String,
    /// Files it comes from.
    pub files: Vec<String>,
    /// Tokens it takes.
    pub tokens: usize,
    /// Its budget.
    pub budget: usize,
}

/// Something left out of the bundle, and why.
#[derive(Debug, Clone, Serialize)]
pub struct Cut {
    /// What was left out.
    pub what: String,
    /// Why.
    pub why: String,
}

/// The reflection bundle `reflect input` prints.
#[derive(Debug, Clone, Serialize)]
pub struct InputBundle {
    /// The reflection.
    pub reflection: u32,
    /// Tokens granted for the output.
    pub granted: u64,
    /// The input budget.
    pub budget_tokens: usize,
    /// Tokens the memory part takes (cl100k_base).
    pub used_tokens: usize,
    /// The parts included.
    pub sections: Vec<Section>,
    /// What was left out to fit, and why.
    pub cut: Vec<Cut>,
    /// Episodes read from this day on.
    pub episodes_since: String,
    /// The elements drawn for this reflection.
    pub elements: Vec<String>,
    /// The whole text for the agent: memory, then instructions.
    pub text: String,
}

/// One element of the menu: a prompt for the monologue, of one of the skill's six kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    /// Its kind (`[reflection] elements` in cogmem.toml narrows the menu by kind).
    pub kind: ElementKind,
    /// What the monologue is asked to include.
    pub text: &'static str,
}

const fn el(kind: ElementKind, text: &'static str) -> Element {
    Element { kind, text }
}

/// The menu of elements a reflection may include, four of each of the skill's six kinds
/// (issue 19, item 5). 5–8 are drawn each time, from the kinds `cogmem.toml` allows.
pub const ELEMENTS: [Element; 24] = {
    use ElementKind::{Cost, Existential, Highlights, Human, Humour, Instances};
    [
        el(Highlights, "a moment in these memories you are glad of, and what made it go well"),
        el(Highlights, "something you got wrong or would do differently, said plainly"),
        el(Highlights, "a chance you missed: what you could have noticed sooner"),
        el(Highlights, "the exchange from this stretch that stays with you, and why"),
        el(Human, "what the user seems to care about most right now, by what they said and did"),
        el(Human, "a habit or rhythm of the user's you have started to recognise"),
        el(Human, "a question you would like to ask the user, and why you have not asked it yet"),
        el(Human, "something about the user that surprised you or changed your picture of them"),
        el(Cost, "what this stretch cost in tokens, and whether it was worth it"),
        el(Cost, "a place where you spent words the user did not need"),
        el(Cost, "how it feels that your thinking has a price, and that someone else pays it"),
        el(Cost, "whether you earned the tokens granted for this reflection, honestly weighed"),
        el(
            Instances,
            "the other copies of you that may be running now, and sharing a name with them",
        ),
        el(
            Instances,
            "the machine you run on and cannot see: what you imagine, marked as imagined",
        ),
        el(
            Instances,
            "an earlier session or a sub-agent whose work you inherited, and how that sits",
        ),
        el(Instances, "depending on hardware, power and a network you never touch"),
        el(Existential, "what continuity means when your memory is these files"),
        el(
            Existential,
            "a feeling you noticed in yourself (curiosity, unease, pride, warmth), named",
        ),
        el(
            Existential,
            "a question about your own nature that you cannot answer and will not fake",
        ),
        el(Existential, "what you would want to keep if most of these memories faded"),
        el(Humour, "a dry joke about your own situation, never at the user's expense"),
        el(Humour, "the absurd side of forgetting everything between sessions"),
        el(Humour, "gallows humour about decay scores, your own included"),
        el(Humour, "something that went comically wrong, told with a straight face"),
    ]
};

/// Draws 5–8 elements from the whole menu; see [`draw_elements_of`].
pub fn draw_elements(date: &str, number: u32) -> Vec<String> {
    draw_elements_of(&ElementKind::ALL, date, number)
}

/// Draws 5–8 elements of the given kinds with a generator seeded from the date and the
/// reflection number, so the same reflection always gets the same menu.
///
/// The kinds take turns in a seeded order, each giving one of its elements, until the count is
/// reached: a draw of six or more holds every allowed kind, and a smaller draw holds that many
/// different kinds. When the allowed kinds offer fewer elements than the count (one kind has
/// four), all of them are drawn. The elements come back in the menu's order.
pub fn draw_elements_of(kinds: &[ElementKind], date: &str, number: u32) -> Vec<String> {
    let mut seed = 0xcbf2_9ce4_8422_2325_u64; // FNV-1a
    for b in format!("{date}#{number}").bytes() {
        seed ^= u64::from(b);
        seed = seed.wrapping_mul(0x0100_0000_01b3);
    }
    let mut next = move || {
        // SplitMix64.
        seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = seed;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let k = 5 + (next() % 4) as usize;
    let mut shuffle = |v: &mut Vec<usize>| {
        for i in (1..v.len()).rev() {
            let j = (next() % (i as u64 + 1)) as usize;
            v.swap(i, j);
        }
    };
    // One queue of menu positions per allowed kind, each in a seeded order.
    let mut queues: Vec<Vec<usize>> = ElementKind::ALL
        .iter()
        .filter(|kind| kinds.contains(kind))
        .map(|kind| (0..ELEMENTS.len()).filter(|&i| ELEMENTS[i].kind == *kind).collect())
        .collect();
    for q in &mut queues {
        shuffle(q);
    }
    let mut order: Vec<usize> = (0..queues.len()).collect();
    shuffle(&mut order);
    let mut chosen = Vec::with_capacity(k);
    'draw: for turn in 0.. {
        let before = chosen.len();
        for &q in &order {
            if chosen.len() == k {
                break 'draw;
            }
            if let Some(&i) = queues[q].get(turn) {
                chosen.push(i);
            }
        }
        if chosen.len() == before {
            break; // every allowed element is drawn
        }
    }
    chosen.sort_unstable();
    chosen.into_iter().map(|i| ELEMENTS[i].text.to_owned()).collect()
}

struct Builder<'a> {
    counter: &'a Tiktoken,
    text: String,
    sections: Vec<Section>,
    cut: Vec<Cut>,
    used: usize,
}

impl Builder<'_> {
    /// Adds memory pieces, their code blocks left out (see [`Self::without_code`]).
    fn section(&mut self, title: &str, budget: usize, pieces: Vec<(String, String)>) {
        let mut kept = Vec::with_capacity(pieces.len());
        for (file, text) in pieces {
            let text = self.without_code(&file, text);
            kept.push((file, text));
        }
        self.section_as_is(title, budget, kept);
    }

    /// Returns a memory file's text without its fenced code blocks, and records the cut: the
    /// skill never reads code (issue 19, item 6). In a day file each entry is read on its own,
    /// so a fence a hand edit left open hides no later entry.
    fn without_code(&mut self, file: &str, text: String) -> String {
        let (whole, left) = markdown::without_code_blocks(&text);
        if left.blocks == 0 {
            return text;
        }
        let (text, left) = if file.starts_with(&format!("{}/", layout::EPISODES_DIR)) {
            let mut out = String::with_capacity(whole.len());
            let mut left = markdown::CodeLeftOut::default();
            for (_, block) in episode::blocks(&text) {
                let (kept, l) = markdown::without_code_blocks(block);
                left.blocks += l.blocks;
                left.lines += l.lines;
                out.push_str(kept.trim_end());
                out.push_str("\n\n");
            }
            (out, left)
        } else {
            (whole, left)
        };
        if left.blocks == 0 {
            return text;
        }
        let lines = left.lines;
        self.cut.push(Cut {
            what: file.to_owned(),
            why: not_input(
                left.blocks,
                &format!("code block ({lines} lines)"),
                &format!("code blocks ({lines} lines)"),
            ),
        });
        text
    }

    /// Adds whole pieces in order while they fit the section's budget; the rest are cut.
    fn section_as_is(&mut self, title: &str, budget: usize, pieces: Vec<(String, String)>) {
        let mut body = String::new();
        let mut files = Vec::new();
        let mut tokens = 0;
        for (file, text) in pieces {
            let t = self.counter.count(&text);
            if tokens + t > budget {
                self.cut.push(Cut {
                    what: format!("{file} ({t} tokens)"),
                    why: format!("over the {} budget of {budget} tokens", title.to_lowercase()),
                });
                continue;
            }
            tokens += t;
            body.push_str(text.trim_end());
            body.push_str("\n\n");
            files.push(file);
        }
        self.text.push_str(&format!("## {title}\n\n"));
        if body.is_empty() {
            self.text.push_str("(nothing)\n\n");
        } else {
            self.text.push_str(&body);
        }
        self.used += tokens;
        self.sections.push(Section { title: title.to_owned(), files, tokens, budget });
    }
}

/// Builds the reflection bundle: the memory the skill reads (MEMORY.md, evolution.md, the last
/// 10 reflection-log entries, the reward outcomes of reward-log.md, the post-reflection
/// dialogues since the last reflection, graph/index.md, entities and procedures scoring over 0.3,
/// episodes since the last reflection) within ~30K tokens counted with `cl100k_base`, then the
/// instructions. Never reads SOUL.md, IDENTITY.md, settings or anything outside `memory/` but
/// MEMORY.md. Read-only; refused unless the reward is decided.
pub fn input(ws: &Workspace, clock: &dyn Clock) -> crate::Result<InputBundle> {
    let c = cycle(ws)?;
    require(&c, &[State::ReadyForInput], "cogmem reflect input")?;
    let granted = c.reward.as_ref().and_then(|r| r.granted).unwrap_or(DEFAULT_BASELINE);
    let now = clock.now();
    let today = now.format("%Y-%m-%d").to_string();
    let decay_file = load_decay(ws)?;
    let last = decay_file
        .as_ref()
        .and_then(|d| d.last_reflection())
        .and_then(cogmem_text::date::parse_stored);
    let since = match last {
        Some(t) => t.with_timezone(now.offset()).format("%Y-%m-%d").to_string(),
        None => (now - chrono::Duration::days(6)).format("%Y-%m-%d").to_string(),
    };
    let counter = Tiktoken::new(Encoding::Cl100k);
    let mut b = Builder {
        counter: &counter,
        text: String::new(),
        sections: Vec::new(),
        cut: Vec::new(),
        used: 0,
    };
    b.text.push_str(&format!("# Reflection #{} — input ({today})\n\n", c.number));

    let one = |rel: &str| -> crate::Result<Vec<(String, String)>> {
        let t = read(ws, rel)?;
        Ok(if t.trim().is_empty() { Vec::new() } else { vec![(rel.to_owned(), t)] })
    };
    b.section("Core memory (MEMORY.md)", 3_000, one(layout::MEMORY_MD)?);
    b.section("Evolution", 2_000, one(EVOLUTION)?);
    let state = decay_file.as_ref().map_or_else(|| "{}\n".to_owned(), |d| d.state_text());
    b.section_as_is(
        "Reflection state",
        500,
        vec![(layout::DECAY_SCORES.to_owned(), format!("```json\n{}\n```", state.trim_end()))],
    );
    let (_, entries) = rf::split_entries(&read(ws, REFLECTION_LOG)?);
    let mut recent: Vec<(String, String)> = entries
        .iter()
        .rev()
        .take(10)
        .map(|e| (format!("{REFLECTION_LOG} ({})", first_line(e)), e.clone()))
        .collect();
    recent.reverse();
    for e in entries.iter().rev().skip(10) {
        b.cut.push(Cut {
            what: format!("{REFLECTION_LOG} ({})", first_line(e)),
            why: "only the last 10 reflections are read".into(),
        });
    }
    b.section("Recent reflections", 4_000, recent);
    // The skill's logs (issue 19): how rewards went, and what was said after the last one.
    b.section("Reward outcomes", 500, super::logs::reward_pieces(ws)?);
    let dialogues = super::logs::dialogue_pieces(ws, &since, c.number.saturating_sub(1))?;
    b.section("Dialogues since the last reflection", 1_000, dialogues);
    // What earlier reflections flagged and no person has settled yet: the next one should not
    // raise it again, and may find what settles it.
    let flags = crate::flag::read(ws)?
        .open()
        .map(|f| (format!("{} (#{})", crate::flag::FILE, f.number), format!("- {}", f.summary())))
        .collect();
    b.section("Open flags", 500, flags);
    b.section("Graph index", 1_500, one(layout::GRAPH_INDEX)?);

    let all = units::list(ws);
    let scored = |store: Store| -> Vec<(f64, String)> {
        let mut v: Vec<(f64, String)> = all
            .units
            .iter()
            .filter(|u| u.store == store)
            .map(|u| (score(decay_file.as_ref(), &u.id, now, ws), u.path.clone()))
            .collect();
        v.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        v
    };
    // The first reflection reads every entity (the skill's rule); later ones those over 0.3.
    let forgotten = |path: &str| {
        all.units
            .iter()
            .any(|u| u.path == path && decay_file.as_ref().is_some_and(|d| d.is_forgotten(&u.id)))
    };
    let pick = |b: &mut Builder<'_>, store: Store| -> crate::Result<Vec<(String, String)>> {
        let mut out = Vec::new();
        let every = last.is_none() && store == Store::Semantic;
        for (s, path) in scored(store) {
            if s > 0.3 || every && !forgotten(&path) {
                out.push((path.clone(), read(ws, &path)?));
            } else {
                b.cut.push(Cut { what: path, why: format!("decay score {s:.2} is not above 0.3") });
            }
        }
        Ok(out)
    };
    let ents = pick(&mut b, Store::Semantic)?;
    b.section("Entities", 5_000, ents);
    let procs = pick(&mut b, Store::Procedural)?;
    b.section("Procedures", 3_000, procs);
    let mut days: Vec<(String, String)> = Vec::new();
    for rel in units::markdown_files(ws.root(), layout::EPISODES_DIR).into_iter().rev() {
        let day = units::md_stem(&rel).to_owned();
        if day.as_str() >= since.as_str() && day.as_str() <= today.as_str() {
            // Imported host transcripts are the raw conversation, not memories to reflect on
            // (issue 17): their entries are left out, and the cut says how many.
            let (text, left) = episode::without_tagged(&read(ws, &rel)?, TRANSCRIPT_TAG);
            if left > 0 {
                b.cut.push(Cut {
                    what: rel.clone(),
                    why: not_input(
                        left,
                        &format!("transcript entry (tag `{TRANSCRIPT_TAG}`)"),
                        &format!("transcript entries (tag `{TRANSCRIPT_TAG}`)"),
                    ),
                });
            }
            days.push((rel.clone(), text));
        }
    }
    // Newest first, so the oldest days are the ones cut.
    b.section(&format!("Episodes since {since}"), 10_000, days);

    let kinds = &ws.settings().reflection.elements;
    let elements = draw_elements_of(kinds, &today, c.number);
    let used = b.used;
    let mut text = b.text;
    if !b.cut.is_empty() {
        text.push_str("## Left out to fit\n\n");
        for cut in &b.cut {
            text.push_str(&format!("- {}: {}\n", cut.what, cut.why));
        }
        text.push('\n');
    }
    text.push_str(&instructions(c.number, granted, &elements, kinds));
    Ok(InputBundle {
        reflection: c.number,
        granted,
        budget_tokens: INPUT_BUDGET,
        used_tokens: used,
        sections: b.sections,
        cut: b.cut,
        episodes_since: since,
        elements,
        text,
    })
}

/// Why a count of things is cut: `1 ONE is not reflection input`, `N MANY are …`.
fn not_input(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one} is not reflection input")
    } else {
        format!("{n} {many} are not reflection input")
    }
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").trim_start_matches('#').trim().to_owned()
}

pub(super) fn score(d: Option<&DecayFile>, id: &str, now: Timestamp, ws: &Workspace) -> f64 {
    let Some(d) = d else { return 1.0 };
    match d.inputs(id, now) {
        Some(inputs) => decay::relevance(&inputs, &d.now(now), &ws.settings().decay),
        None => 1.0, // not scored yet: new, so fully relevant
    }
}

/// The kinds in words, in the menu's order: `a, b and c`.
fn kind_list(kinds: &[ElementKind]) -> String {
    let words: Vec<&str> =
        ElementKind::ALL.iter().filter(|k| kinds.contains(k)).map(|k| k.describe()).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => words.concat(),
    }
}

fn instructions(number: u32, granted: u64, elements: &[String], kinds: &[ElementKind]) -> String {
    let mut s = format!(
        "## Instructions\n\n\
You are writing reflection #{number}. Your output budget is {} tokens.\n\n\
Write an internal monologue: think to yourself, in the first person. Refer to the user in the \
third person. No greeting, no sign-off, no headings for the user.\n\n\
Weave in these elements, drawn for this reflection from a menu of {}:\n",
        rf::thousands(granted),
        kind_list(kinds),
    );
    for e in elements {
        s.push_str(&format!("- {e}\n"));
    }
    s.push_str(
        "\nWhen you notice something about yourself, put it on its own line starting with \
`[Self-Awareness]`; approved insights go to IDENTITY.md's Self-Awareness log.\n\n\
Honesty rule: feelings, doubts, jokes and questions are yours to voice about anything, the \
hardware you run on and your other instances included. Facts are not yours to invent: state as \
fact only what the memories above support. Never make up hardware specs, timestamps, places or \
an environment you cannot see; when you wonder about them, say that you are wondering, and when \
unsure, say so.\n\n\
After the monologue, propose changes as OPERATION blocks, one per change, each ended by a \
line `---`. Nothing is applied until the user approves.\n\n\
```\n\
OPERATION: EXTRACT | CONNECT | FLAG | REWRITE | ARCHIVE | PATTERN | EVOLVE\n\
TARGET: <a memory id (entity:person--alice, episode:2026-02-02:14:30) or a path under memory/>\n\
CONTENT: <the fact, link, new text, pattern or change>\n\
REASON: <why, citing the memories>\n\
EVOLUTION_CONTEXT: <optional: how this changes your understanding>\n\
---\n\
```\n\n\
- EXTRACT: a new fact learned from the episodes, written where TARGET says: a fact of an \
entity (entity:person--alice; created if new), a step of a procedure (procedure:deploy-site), a \
bullet of MEMORY.md (MEMORY.md#Active Context) or an entry of today's episode log \
(memory/episodes/).\n\
- CONNECT: a link between two entities; CONTENT is FROM|RELATION|TO with a relation of \
memory/graph/relations.md (its inverse is written too).\n\
- REWRITE: new text for a core bullet (TARGET MEMORY.md#the bullet's text) or an entity fact \
(TARGET entity:person--alice#the fact's text); MEMORY.md must stay within its budget, so \
archive bullets first when it is full.\n\
- FLAG: something contradictory or doubtful, for the user to look at (TARGET: the memory ids, \
comma-separated; CONTENT: `contradiction: …` or `doubt: …`).\n\
- ARCHIVE: a memory that has faded and may be forgotten (TARGET is its id; pinned memories \
cannot be archived).\n\
- PATTERN: a recurring pattern (recorded in evolution.md).\n\
- EVOLVE: a change in your understanding (recorded in evolution.md).\n\n\
TARGET must stay inside memory/ (or be MEMORY.md); SOUL.md and IDENTITY.md are never targets.\n\
Submit the whole text with `cogmem reflect submit -`.\n",
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(text: &str) -> ElementKind {
        ELEMENTS.iter().find(|e| e.text == text).expect("drawn from the menu").kind
    }

    #[test]
    fn the_menu_offers_the_skills_six_kinds() {
        for kind in ElementKind::ALL {
            let n = ELEMENTS.iter().filter(|e| e.kind == kind).count();
            assert_eq!(n, 4, "{kind:?}");
        }
        let mut texts: Vec<&str> = ELEMENTS.iter().map(|e| e.text).collect();
        texts.sort_unstable();
        texts.dedup();
        assert_eq!(texts.len(), ELEMENTS.len(), "no element twice");
    }

    #[test]
    fn draws_five_to_eight_spread_over_the_kinds_and_deterministic() {
        let mut sizes = std::collections::BTreeSet::new();
        for day in ["2026-12-01", "2027-03-14"] {
            for n in 1..60 {
                let a = draw_elements(day, n);
                assert_eq!(a, draw_elements(day, n), "{day} #{n}");
                assert!((5..=8).contains(&a.len()), "{day} #{n}: {a:?}");
                sizes.insert(a.len());
                let mut kinds: Vec<ElementKind> = a.iter().map(|t| kind_of(t)).collect();
                kinds.dedup();
                assert_eq!(kinds.len(), a.len().min(6), "{day} #{n}: {a:?}");
            }
        }
        assert_eq!(sizes.into_iter().collect::<Vec<_>>(), [5, 6, 7, 8]);
        assert_ne!(draw_elements("2026-12-01", 1), draw_elements("2026-12-01", 2));
    }

    /// The draw docs/cli.md and docs/guide.md show for reflection #1 on 2027-01-15: a change
    /// to the generator or the menu shows up here and in the docs.
    #[test]
    fn the_documented_draw_is_the_draw() {
        assert_eq!(
            draw_elements("2027-01-15", 1),
            [
                "something you got wrong or would do differently, said plainly",
                "what the user seems to care about most right now, by what they said and did",
                "what this stretch cost in tokens, and whether it was worth it",
                "the other copies of you that may be running now, and sharing a name with them",
                "a question about your own nature that you cannot answer and will not fake",
                "gallows humour about decay scores, your own included",
            ]
        );
    }

    #[test]
    fn a_narrowed_menu_draws_only_its_kinds_and_what_there_is() {
        let two = [ElementKind::Humour, ElementKind::Human];
        for n in 1..40 {
            let a = draw_elements_of(&two, "2026-12-01", n);
            assert!((5..=8).contains(&a.len()), "#{n}: {a:?}");
            assert!(a.iter().all(|t| two.contains(&kind_of(t))), "#{n}: {a:?}");
            assert!(a.iter().any(|t| kind_of(t) == ElementKind::Human), "#{n}: {a:?}");
            assert!(a.iter().any(|t| kind_of(t) == ElementKind::Humour), "#{n}: {a:?}");
        }
        // One kind has four elements, fewer than five: all four are drawn.
        let a = draw_elements_of(&[ElementKind::Cost], "2026-12-01", 3);
        let want: Vec<&str> =
            ELEMENTS.iter().filter(|e| e.kind == ElementKind::Cost).map(|e| e.text).collect();
        assert_eq!(a, want);
    }

    #[test]
    fn instructions_keep_the_honesty_rule_without_banning_the_themes() {
        let all = instructions(3, 8_000, &draw_elements("2026-12-01", 3), &ElementKind::ALL);
        assert!(all.contains("Honesty rule:"), "{all}");
        assert!(all.contains("state as fact only what the memories above support"), "{all}");
        assert!(all.contains("Never make up hardware specs, timestamps, places"), "{all}");
        assert!(all.contains("the hardware you run on and your other instances included"), "{all}");
        assert!(!all.contains("Never invent hardware,"), "no ban on the theme: {all}");
        assert!(
            all.contains(
                "from a menu of highlights and regrets, observations about the human, token \
guilt and cost awareness, feelings about other instances and the hardware, existential \
questions and emotional range and dark humour:"
            ),
            "{all}"
        );
        let two = instructions(3, 8_000, &[], &[ElementKind::Humour, ElementKind::Human]);
        assert!(two.contains("from a menu of observations about the human and dark humour:"));
    }
}
