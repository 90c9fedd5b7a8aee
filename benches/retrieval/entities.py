"""Deterministic entity extraction over one LoCoMo conversation, for `evaluate.py --entities`.

No model calls, no word lists beyond the few below; the same conversation always gives the same
entities, turn links and relations.

1. **Speakers**: the two speakers are `person--SLUG`.
2. **Names**: a name is a run of capitalised words in a turn's text (``Pride Parade``,
   ``Sweden``; a trailing ``'s`` is dropped). A name is kept when it occurs in at least two turns
   of the conversation, at least once *not* at the start of a sentence (mid-sentence capitals
   are what marks a proper noun in English), and its first word is not one of the
   ``NOT_NAMES`` (pronoun "I", greetings, interjections, weekdays and months). A name whose
   first word is a speaker's first name, or the start of one ("Mel"), is that speaker. Leading
   greetings and interjections are dropped from a run ("Hey Caroline" is "Caroline"), and a
   one-word name that occurs in lower case at least as often as it does capitalised
   mid-sentence is a common word ("Here"), not a name. It is a `place--SLUG` when at least
   half of its occurrences follow "in", "to", "from", "at", "near", "around", "visit" or
   "visited"; otherwise a `concept--SLUG`. The slug is the name lower-cased, runs of other
   characters than letters and digits turned into one `-`.
3. **Turn links**: a turn's entities are the kept names it contains, plus (unless
   ``speaker_links`` is false) its speaker.
4. **Relations** (all `relates-to`, the vocabulary's symmetric "any other link", written once on
   the file of the smaller id): two non-speaker entities named in the same session are linked,
   with confidence n/(n+1) for n sessions in which both are named (0.5, 0.67, 0.75, ...); a speaker
   is linked to each entity named in their own turns, with confidence n/(n+1) for n such turns.
   `since` is the date of the first session that supports the link.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

NOT_NAMES = frozenset(
    """
    I I'm I've I'll I'd Im Ive Ill Id Oh Hey Hi Hello Wow Yeah Yes No Ok Okay OK Thanks Thank
    Aww Aw Awesome Cool Great Nice Sure Haha Hmm Um Uh Ah Omg Lol Bye Congrats Congratulations
    Btw Yep Yup Nope Dear
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
    June July August September October November December
    """.split()
)
PLACE_CUES = frozenset("in to from at near around visit visited".split())

# A run of capitalised words (letters, apostrophes and hyphens inside a word).
_NAME = re.compile(r"\b[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*")
_SENTENCE_START = re.compile(r"(?:^|[.!?…]\s*|[\"“(\[]\s*)$")
_PREV_WORD = re.compile(r"(\w+)\W*$")


def slug(name: str) -> str:
    s = re.sub(r"[^0-9a-z]+", "-", name.lower()).strip("-")
    return s


def _clean(raw: str) -> str:
    return re.sub(r"['’]s$", "", raw).strip("'’-")


def _occurrences(text: str):
    """(name, sentence-initial, previous word) for every capitalised run in `text`."""
    text = re.sub(r"\[image:[^\]]*\]", " ", text)  # captions are lower-case BLIP text
    for m in _NAME.finditer(text):
        words = m.group(0).split()
        start = m.start()
        # Greetings and interjections before a name are not part of it ("Hey Caroline").
        while words and _clean(words[0]) in NOT_NAMES:
            start = text.index(words[0], start) + len(words[0])
            words = words[1:]
        name = _clean(" ".join(words))
        if not name:
            continue
        start = text.index(words[0], start)
        before = text[:start]
        initial = bool(_SENTENCE_START.search(before))
        prev = _PREV_WORD.search(before)
        yield name, initial, (prev.group(1).lower() if prev else "")


def extract(recs: list[dict], speaker_links: bool = True) -> tuple[list[list[str]], dict]:
    """Entities of each turn (parallel to `recs`) and the relations to write:
    {(from, to): (confidence, since)} with from < to."""
    speakers = []
    for r in recs:
        if r["speaker"] not in speakers:
            speakers.append(r["speaker"])
    speaker_id = {s: f"person--{slug(s)}" for s in speakers}
    first_names = {s.split()[0]: speaker_id[s] for s in speakers}

    turns_with: Counter = Counter()
    mid_sentence: Counter = Counter()
    cue: Counter = Counter()
    seen: Counter = Counter()
    per_turn: list[list[str]] = []
    lower: Counter = Counter()
    for r in recs:
        lower.update(w for w in re.findall(r"[\w'’-]+", r["text"]) if w.islower())
    for r in recs:
        names = []
        for name, initial, prev in _occurrences(r["text"]):
            if name.split()[0] in NOT_NAMES:
                continue
            seen[name] += 1
            mid_sentence[name] += not initial
            cue[name] += prev in PLACE_CUES
            if name not in names:
                names.append(name)
        per_turn.append(names)
        turns_with.update(names)

    def entity_of(name: str) -> str | None:
        if turns_with[name] < 2 or mid_sentence[name] == 0:
            return None
        # A capitalised common word ("Here", "The"): as frequent in lower case as mid-sentence
        # in capitals.
        if " " not in name and lower[name.lower()] >= mid_sentence[name]:
            return None
        first = name.split()[0]
        for given, sid in first_names.items():
            if given == first or (len(first) >= 2 and given.startswith(first)):
                return sid  # the speaker, or a short form of the name ("Mel")
        kind = "place" if cue[name] * 2 >= seen[name] else "concept"
        s = slug(name)
        return f"{kind}--{s}" if s and s.isascii() else None

    ids = {n: entity_of(n) for n in turns_with}
    turn_entities: list[list[str]] = []
    for r, names in zip(recs, per_turn):
        ents = [ids[n] for n in names if ids[n]]
        if speaker_links:
            ents.insert(0, speaker_id[r["speaker"]])
        turn_entities.append(list(dict.fromkeys(ents)))

    # Relations.
    speaker_ids = set(speaker_id.values())
    co: Counter = Counter()
    said: Counter = Counter()
    since: dict = {}
    by_session: dict = defaultdict(set)
    for r, names in zip(recs, per_turn):
        day = r["timestamp"][:10]
        session = r["id"].split(":")[0]
        mentioned = {ids[n] for n in names if ids[n]}
        for e in mentioned - {speaker_id[r["speaker"]]}:
            key = tuple(sorted((speaker_id[r["speaker"]], e)))
            said[key] += 1
            since.setdefault(key, day)
        for e in mentioned - speaker_ids:
            by_session[(session, day)].add(e)
    for (_, day), ents in sorted(by_session.items(), key=lambda kv: kv[0][1]):
        ordered = sorted(ents)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                co[(a, b)] += 1
                since.setdefault((a, b), day)
    relations = {}
    for key, n in list(co.items()) + list(said.items()):
        n = co.get(key, 0) + said.get(key, 0)
        relations[key] = (round(n / (n + 1), 2), since[key])
    return turn_entities, relations


def entity_files(relations: dict, entities: set[str], date: str) -> dict[str, str]:
    """The entity files to write: {file name: content}, relations on the smaller id's file."""
    out = {}
    for e in sorted(entities):
        kind = e.split("--")[0]
        lines = [
            f"# {e}",
            f"<!-- Type: {kind} | Created: {date} | Last updated: {date} -->",
            "<!-- Decay score: 1.00 | Access count: 1 | Pinned: no -->",
            "",
            "## Summary",
            "",
            "## Facts",
            "",
            "## Timeline",
            "",
            "## Open Questions",
            "",
            "## Relations",
        ]
        for (a, b), (conf, since) in sorted(relations.items()):
            if a == e:
                lines.append(f"- relates-to: [[{b}]] (since {since}) (confidence {conf})")
        out[f"{e}.md"] = "\n".join(lines) + "\n"
    return out
