#!/usr/bin/env python3
"""Retrieval-quality evaluation of `cogmem search` on LoCoMo (recall@5 / recall@10 of evidence turns).

For each LoCoMo conversation:
  1. a fresh workspace in a temporary folder (`cogmem init`);
  2. its turns imported with `cogmem import --format jsonl` (one episode entry per turn, the turn's
     dia_id kept as the entry's source; see locomo_to_jsonl.py);
  3. every question asked with `cogmem --workspace WS --json search --limit 10 "<question>"`, the
     hits mapped back to dia_ids through their `source` field.
COGMEM_NOW is fixed one day after the conversation's last session (so decay hides nothing) and
COGMEM_ACTOR=eval.

Two baselines run on exactly the same turns (one turn per unit, the same text cogmem indexes:
"Speaker: text [image: caption]"):
  * bm25    -- plain Okapi BM25 (k1 1.2, b 0.75), lower-cased, split on non-alphanumerics,
               English stop words removed (no stemming);
  * ripgrep -- keyword matching: one `rg --ignore-case --fixed-strings` per query keyword (stop
               words removed, same tokens as bm25) over a file of one turn per line; turns ranked
               by how many distinct keywords they contain, ties by conversation order. Substring
               matches by default (what `rg -i WORD` does); --rg-word for whole words. If `rg` is
               not installed the same matching is done in Python (the output says which).
With --baseline-no-speaker the baselines see the turn text without the "Speaker:" label.

With --entities (graph activation, see entities.py): each turn's JSON line gets an `entities` field
from a deterministic extraction over the conversation, the entity files with their `relates-to`
relations are written into the workspace and checked with `cogmem graph rebuild`, and every
question is asked twice, with `[search] activation = false` and `= true` in cogmem.toml (both
with `--store episodic`, so entity files do not take turns' places). --no-speaker-links leaves the
speaker out of each turn's entities.

recall@k of a question = |evidence ∩ top-k| / |evidence|, averaged over questions, per LoCoMo
category and overall. Questions without (valid) evidence are skipped and counted.

Prints a Markdown table and timings; writes per-question results as JSON under /tmp.
LoCoMo is CC BY-NC 4.0: it is read from its path at run time and never copied into the repository.
Python 3.11 standard library only.

Usage (from the repository root):
    python3 benches/retrieval/evaluate.py --cogmem target/debug/cogmem
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ in the repository
sys.path.insert(0, str(Path(__file__).resolve().parent))
import entities as extraction  # noqa: E402
import locomo_to_jsonl as conv  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
KS = (5, 10)
LIMIT = 10
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
# The dev half is split in two (issue 22): every ranking constant is chosen on the tune split
# only, and the report split is what the figures are read on. Both are always printed.
SPLITS = {"tune": ("conv-26", "conv-30", "conv-41"), "report": ("conv-42", "conv-43")}

# English stop words (the NLTK list, 179 words): what the baselines remove from turns and queries.
STOP_WORDS = frozenset(
    """
    i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
    yourselves he him his himself she she's her hers herself it it's its itself they them their
    theirs themselves what which who whom this that that'll these those am is are was were be been
    being have has had having do does did doing a an the and but if or because as until while of
    at by for with about against between into through during before after above below to from up
    down in out on off over under again further then once here there when where why how all any
    both each few more most other some such no nor not only own same so than too very s t can will
    just don don't should should've now d ll m o re ve y ain aren aren't couldn couldn't didn
    didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn
    mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn
    wouldn't
    """.split()
)

_WORD = re.compile(r"[^\W_]+")  # runs of Unicode letters and digits


def tokens(text: str) -> list[str]:
    """Lower-cased alphanumeric runs with stop words removed (both baselines)."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOP_WORDS]


def unit_text(rec: dict, speaker: bool = True) -> str:
    """A turn as one retrievable unit, on one line: what cogmem indexes, without the Markdown
    bold (or, with `speaker` false, the text alone)."""
    text = " ".join(rec["text"].split())
    return f"{rec['speaker']}: {text}" if speaker else text


# --------------------------------------------------------------------------------------------
# Baselines


class BM25:
    """Okapi BM25 over a fixed list of documents (Lucene's non-negative idf)."""

    def __init__(self, docs: list[str], k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self.tfs = [Counter(tokens(d)) for d in docs]
        self.lens = [sum(tf.values()) for tf in self.tfs]
        self.avgdl = sum(self.lens) / max(len(self.lens), 1)
        df: Counter = Counter()
        for tf in self.tfs:
            df.update(tf.keys())
        n = len(docs)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    def rank(self, query: str, k: int) -> list[int]:
        q = Counter(tokens(query))
        scores = []
        for i, (tf, dl) in enumerate(zip(self.tfs, self.lens)):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * dl / self.avgdl)
            for t, qf in q.items():
                f = tf.get(t)
                if f:
                    s += qf * self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if s > 0:
                scores.append((-s, i))
        scores.sort()
        return [i for _, i in scores[:k]]


class KeywordMatcher:
    """ripgrep keyword matching: rank turns by how many distinct query keywords they contain."""

    def __init__(self, docs: list[str], workdir: Path, rg: str | None, word: bool = False):
        self.docs = [d.lower() for d in docs]
        self.words = [set(_WORD.findall(d)) for d in self.docs] if word else None
        self.rg = rg
        self.word = word
        self.path = workdir / "turns.txt"
        # One turn per line (turn texts are single-lined by unit_text), line n = docs[n-1].
        self.path.write_text("".join(d + "\n" for d in docs), encoding="utf-8")

    def lines_with(self, keyword: str) -> set[int]:
        if self.rg is None:
            if self.words is not None:
                return {i for i, w in enumerate(self.words) if keyword in w}
            return {i for i, d in enumerate(self.docs) if keyword in d}
        word = ["--word-regexp"] if self.word else []
        out = subprocess.run(
            [self.rg, "--ignore-case", "--fixed-strings", *word, "--line-number", "--no-filename",
             "--only-matching", "--color", "never", "--", keyword, str(self.path)],
            capture_output=True, text=True, check=False,
        )
        if out.returncode not in (0, 1):
            raise RuntimeError(f"rg failed: {out.stderr.strip()}")
        return {int(line.split(":", 1)[0]) - 1 for line in out.stdout.splitlines() if line}

    def rank(self, query: str, k: int) -> list[int]:
        counts: Counter = Counter()
        for kw in dict.fromkeys(tokens(query)):
            counts.update(self.lines_with(kw))
        ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
        return [i for i, _ in ranked[:k]]


# --------------------------------------------------------------------------------------------
# cogmem


class Cogmem:
    def __init__(self, binary: Path, workspace: Path, now: str):
        self.binary = str(binary)
        self.ws = str(workspace)
        self.env = dict(os.environ, COGMEM_NOW=now, COGMEM_ACTOR="eval", NO_COLOR="1")
        self.env.pop("COGMEM_WORKSPACE", None)

    def run(self, *args: str) -> tuple[subprocess.CompletedProcess, float]:
        start = time.perf_counter()
        p = subprocess.run(
            [self.binary, "--workspace", self.ws, *args],
            capture_output=True, text=True, env=self.env, check=False,
        )
        return p, time.perf_counter() - start

    def set_activation(self, on: bool) -> None:
        """Writes `[search] activation` into the workspace's cogmem.toml (read by every command)."""
        path = Path(self.ws) / "cogmem.toml"
        base = path.read_text(encoding="utf-8").split("\n[search]\n")[0]
        path.write_text(f"{base}\n[search]\nactivation = {'true' if on else 'false'}\n", encoding="utf-8")

    def write_graph(self, files: dict[str, str]) -> None:
        """Writes entity files, then `cogmem graph rebuild` (checks them, regenerates index.md)."""
        folder = Path(self.ws) / "memory/graph/entities"
        for name, text in files.items():
            (folder / name).write_text(text, encoding="utf-8")
        p, _ = self.run("--quiet", "graph", "rebuild")
        if p.returncode != 0:
            raise RuntimeError(f"cogmem graph rebuild failed ({p.returncode}): {p.stderr.strip()}")

    def init(self, extract: bool = True) -> float:
        """`cogmem init`; with `extract` false, `[capture] extract_entities = false` in
        cogmem.toml (import links no entity)."""
        p, t = self.run("--quiet", "init")
        if p.returncode != 0:
            raise RuntimeError(f"cogmem init failed ({p.returncode}): {p.stderr.strip()}")
        if not extract:
            path = Path(self.ws) / "cogmem.toml"
            text = path.read_text(encoding="utf-8")
            path.write_text(f"{text}\n[capture]\nextract_entities = false\n", encoding="utf-8")
        return t

    def import_jsonl(self, path: Path) -> tuple[dict, float]:
        p, t = self.run("--json", "import", "--format", "jsonl", "--strict", str(path))
        if p.returncode != 0:
            raise RuntimeError(f"cogmem import failed ({p.returncode}): {p.stderr.strip()}")
        return json.loads(p.stdout), t

    def search(self, query: str, limit: int, *extra: str) -> tuple[list[dict], float, str | None]:
        # `--` so a question starting with '-' is not read as an option.
        p, t = self.run("--json", "search", "--limit", str(limit), *extra, "--", query)
        if p.returncode != 0:
            return [], t, p.stderr.strip() or f"exit {p.returncode}"
        return json.loads(p.stdout), t, None


# --------------------------------------------------------------------------------------------
# Evaluation

_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def clean_evidence(raw: list, valid: set[str]) -> tuple[list[str], list[str]]:
    """Normalise evidence ids ("D8:6; D9:17" -> two ids, "D:11:26" -> "D11:26"); return
    (ids present in the conversation, entries dropped)."""
    kept, dropped = [], []
    for item in raw or []:
        parts = [p for p in re.split(r"[;,\s]+", str(item)) if p]
        for p in parts:
            m = _EVIDENCE.fullmatch(p)
            ident = f"D{m.group(1)}:{m.group(2)}" if m else None
            if ident in valid:
                if ident not in kept:
                    kept.append(ident)
            else:
                dropped.append(p)
    return kept, dropped


def recall(ranked: list[str], evidence: list[str], k: int) -> float:
    top = set(ranked[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def evaluate_sample(sample: dict, args, rg: str | None, tmp_root: Path) -> dict:
    sid = sample["sample_id"]
    recs = conv.records(sample)
    dia_ids = [r["id"] for r in recs]
    valid = set(dia_ids)
    docs = [unit_text(r, speaker=not args.baseline_no_speaker) for r in recs]
    now = conv.rfc3339(conv.last_session_time(sample) + dt.timedelta(days=1))

    work = Path(tempfile.mkdtemp(prefix=f"{sid}-", dir=tmp_root))
    ws = work / "ws"
    jsonl = work / f"{sid}.jsonl"
    graph = {}
    if args.entities:
        turn_entities, relations = extraction.extract(recs, speaker_links=not args.no_speaker_links)
        recs = [dict(r, entities=e) if e else r for r, e in zip(recs, turn_entities)]
        named = {e for es in turn_entities for e in es} | {x for k in relations for x in k}
        graph = {"entities": len(named), "relations": len(relations),
                 "linked_turns": sum(1 for e in turn_entities if e)}
    jsonl.write_text(conv.to_jsonl(recs), encoding="utf-8")

    cm = Cogmem(args.run_binary, ws, now)
    t_init = cm.init(extract=not (args.no_extract or args.entities))
    if args.no_activation:
        cm.set_activation(False)
    report, t_import = cm.import_jsonl(jsonl)
    if report.get("imported") != len(recs):
        raise RuntimeError(f"{sid}: imported {report.get('imported')} of {len(recs)} turns")
    if args.entities:
        cm.write_graph(extraction.entity_files(relations, named, now[:10]))

    bm25 = BM25(docs, k1=1.2, b=0.75)
    kw = KeywordMatcher(docs, work, rg, word=args.rg_word)

    questions, skipped, dropped_ids = [], [], []
    search_times = []
    for qi, qa in enumerate(sample["qa"]):
        evidence, dropped = clean_evidence(qa.get("evidence"), valid)
        dropped_ids += [{"question": qi, "evidence": d} for d in dropped]
        if not evidence:
            skipped.append({"question": qi, "text": qa["question"], "evidence": qa.get("evidence")})
            continue
        ranked, err, foreign = {}, None, 0
        for method, activation in cogmem_runs(args):
            if activation is not None:
                cm.set_activation(activation)
            extra = ("--store", "episodic") if args.entities else ()
            hits, t, e = cm.search(qa["question"], LIMIT, *extra)
            search_times.append(t)
            err = err or e
            foreign += sum(1 for h in hits if not h.get("source"))
            ranked[method] = [h.get("source") or f"<{h.get('id')}>" for h in hits]
        ranked["bm25"] = [dia_ids[i] for i in bm25.rank(qa["question"], LIMIT)]
        ranked["ripgrep"] = [dia_ids[i] for i in kw.rank(qa["question"], LIMIT)]
        questions.append(
            {
                "sample": sid,
                "index": qi,
                "question": qa["question"],
                "answer": qa.get("answer", qa.get("adversarial_answer")),
                "category": qa["category"],
                "evidence": evidence,
                "search_seconds": round(t, 5),
                "cogmem_error": err,
                "cogmem_foreign_hits": foreign,
                "ranked": ranked,
                "recall": {m: {k: recall(r, evidence, k) for k in KS} for m, r in ranked.items()},
            }
        )
        if args.progress and len(questions) % 50 == 0:
            print(f"  {sid}: {len(questions)} questions", file=sys.stderr)

    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return {
        "sample": sid,
        "turns": len(recs),
        "now": now,
        "workspace": str(ws) if args.keep else None,
        "init_seconds": t_init,
        "import_seconds": t_import,
        "search_seconds": search_times,
        "questions": questions,
        "skipped": skipped,
        "dropped_evidence": dropped_ids,
        "graph": graph,
    }


def cogmem_runs(args) -> list[tuple[str, bool | None]]:
    """The cogmem rankings to collect per question: (method, `search.activation` or None)."""
    if not args.entities:
        return [("cogmem", None)]
    # Per question, so the two rankings see the same index; the setting is read per command.
    return [("cogmem-act-off", False), ("cogmem-act-on", True)]


def table(questions: list[dict], rg_label: str) -> str:
    names = {"cogmem": "cogmem search", "cogmem-act-off": "cogmem, entities, activation off",
             "cogmem-act-on": "cogmem, entities, activation on", "bm25": "BM25 (Python)",
             "ripgrep": rg_label}
    methods = [m for m in names if questions and m in questions[0]["ranked"]]
    lines = ["| method | category | recall@5 | recall@10 | n |", "|---|---|---:|---:|---:|"]
    for m in methods:
        groups = [(f"{c} {CATEGORIES[c]}", [q for q in questions if q["category"] == c]) for c in CATEGORIES]
        groups.append(("**all**", questions))
        for label, qs in groups:
            if not qs:
                continue
            r = [sum(q["recall"][m][k] for q in qs) / len(qs) for k in KS]
            bold = label == "**all**"
            cells = [f"**{x:.3f}**" if bold else f"{x:.3f}" for x in r]
            lines.append(f"| {names[m]} | {label} | {cells[0]} | {cells[1]} | {len(qs)} |")
    return "\n".join(lines)


def split_of(sample: str) -> str | None:
    """The split a conversation belongs to (`tune`, `report`), or None."""
    return next((name for name, ids in SPLITS.items() if sample in ids), None)


def split_table(questions: list[dict]) -> str:
    """Recall@5 / recall@10 per category, one row per method and split (tune, report, all)."""
    methods = [m for m in ("cogmem", "cogmem-act-off", "cogmem-act-on", "bm25", "ripgrep")
               if questions and m in questions[0]["ranked"]]
    head = " | ".join(f"{c} {n}" for c, n in CATEGORIES.items())
    lines = [f"| method | split | {head} | all |", "|---|---|" + "---|" * (len(CATEGORIES) + 1)]
    groups = [(name, [q for q in questions if q["sample"] in ids]) for name, ids in SPLITS.items()]
    groups.append(("whole dev half", questions))
    for m in methods:
        for label, qs in groups:
            if not qs:
                continue
            cells = []
            for c in [*CATEGORIES, None]:
                sel = [q for q in qs if c is None or q["category"] == c]
                if not sel:
                    cells.append("–")
                    continue
                r = [sum(q["recall"][m][k] for q in sel) / len(sel) for k in KS]
                cells.append(f"{r[0]:.3f} / {r[1]:.3f} ({len(sel)})")
            lines.append(f"| {m} | {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cogmem", type=Path, default=REPO / "target/debug/cogmem",
                    help="the cogmem binary (default: %(default)s)")
    ap.add_argument("--data", type=Path, default=conv.DEFAULT_DATA, help="LoCoMo JSON (default: %(default)s)")
    ap.add_argument("--sample", action="append", help="only this conversation (repeatable)")
    ap.add_argument("--split", choices=sorted(SPLITS),
                    help="only the conversations of this split (tune: conv-26, 30, 41; report: 42, 43)")
    ap.add_argument("--out", type=Path,
                    help="per-question results JSON (default: /tmp/cogmem-locomo-YYYYMMDD-HHMMSS.json)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary workspaces")
    ap.add_argument("--no-rg", action="store_true", help="use the Python keyword matcher even if rg is installed")
    ap.add_argument("--rg-word", action="store_true",
                    help="keyword baseline matches whole words only (rg --word-regexp); default: substrings")
    ap.add_argument("--baseline-no-speaker", action="store_true",
                    help="baselines index the turn text without the 'Speaker:' label")
    ap.add_argument("--progress", action="store_true", help="report progress on stderr")
    ap.add_argument("--no-extract", action="store_true",
                    help="`[capture] extract_entities = false`: import links no entity (the ranking "
                         "before issue 22's extraction, for a comparison on the same binary)")
    ap.add_argument("--no-activation", action="store_true",
                    help="`[search] activation = false` in each workspace (graph activation off)")
    ap.add_argument("--entities", action="store_true",
                    help="link each turn to the entities extracted from the conversation (entities.py), "
                         "write the entity graph, and rank with search.activation off and on")
    ap.add_argument("--no-speaker-links", action="store_true",
                    help="with --entities: do not link each turn to its speaker")
    args = ap.parse_args(argv)

    args.cogmem = args.cogmem.resolve()
    if not os.access(args.cogmem, os.X_OK):
        ap.error(f"{args.cogmem} is not an executable (build it with `cargo build`)")
    out = args.out or Path(f"/tmp/cogmem-locomo-{dt.datetime.now():%Y%m%d-%H%M%S}.json")
    out = out.resolve()
    if out.is_relative_to(REPO):
        ap.error("write the results outside the repository (LoCoMo is CC BY-NC 4.0)")

    rg = None if args.no_rg else shutil.which("rg")
    if rg:
        v = subprocess.run([rg, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
        rg_label = f"ripgrep keywords ({v}{', -w' if args.rg_word else ''})"
    else:
        why = "--no-rg" if args.no_rg else "rg not installed"
        rg_label = f"keyword match (Python, {why}{', whole words' if args.rg_word else ''})"

    samples = conv.load(args.data)
    if args.split:
        samples = [s for s in samples if split_of(s["sample_id"]) == args.split]
    if args.sample:
        samples = [s for s in samples if s["sample_id"] in set(args.sample)]
        missing = set(args.sample) - {s["sample_id"] for s in samples}
        if missing:
            ap.error(f"no such conversation: {', '.join(sorted(missing))}")
    results = []
    with tempfile.TemporaryDirectory(prefix="cogmem-locomo-") as tmp:
        tmp_root = Path(tmp) if not args.keep else Path(tempfile.mkdtemp(prefix="cogmem-locomo-"))
        # Run a private copy of the binary, so a `cargo build` during the run cannot swap it.
        binary = Path(tmp) / "cogmem"
        shutil.copy2(args.cogmem, binary)
        args.run_binary = binary
        version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
        with open(binary, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        built = dt.datetime.fromtimestamp(args.cogmem.stat().st_mtime).isoformat(timespec="seconds")
        for s in samples:
            if args.progress:
                print(f"{s['sample_id']} ...", file=sys.stderr)
            results.append(evaluate_sample(s, args, rg, tmp_root))

    questions = [q for r in results for q in r["questions"]]
    skipped = sum(len(r["skipped"]) for r in results)
    dropped = sum(len(r["dropped_evidence"]) for r in results)
    searches = [t for r in results for t in r["search_seconds"]]
    errors = [q for q in questions if q["cogmem_error"]]
    foreign = sum(1 for q in questions if q["cogmem_foreign_hits"])

    print(f"# cogmem retrieval on LoCoMo ({', '.join(r['sample'] for r in results)})\n")
    print(f"date: {dt.date.today().isoformat()}; binary: {args.cogmem} ({version}, built {built}, "
          f"sha256 {digest[:12]}); top {LIMIT} hits per question; keyword baseline: {rg_label}; "
          f"baseline units: {'text only' if args.baseline_no_speaker else 'Speaker: text'}\n")
    print(table(questions, rg_label))
    print("\nBy split (recall@5 / recall@10 (questions); constants are chosen on the tune split only):\n")
    print(split_table(questions))
    if args.entities:
        for r in results:
            g = r["graph"]
            print(f"\n{r['sample']}: {g['entities']} entities, {g['relations']} relations, "
                  f"{g['linked_turns']} of {r['turns']} turns linked", end="")
        print(f"\n\ncogmem searches restricted to `--store episodic` (entity files are not turns); "
              f"speaker linked to each turn: {'no' if args.no_speaker_links else 'yes'}")
    print(
        f"\n{len(questions)} questions evaluated; {skipped} skipped (no valid evidence); "
        f"{dropped} malformed or unknown evidence ids dropped; "
        f"{len(errors)} cogmem searches failed (counted as no hits); "
        f"{foreign} questions had hits without a source (not imported turns) in cogmem's top {LIMIT}."
    )
    print("\n| timing (cogmem, whole process) | value |\n|---|---:|")
    for r in results:
        print(f"| init + import {r['sample']} ({r['turns']} turns) | "
              f"{r['init_seconds']:.3f} s + {r['import_seconds']:.3f} s |")
    if len(searches) >= 2:
        q = statistics.quantiles(searches, n=10)
        print(f"| search: median per question | {statistics.median(searches) * 1000:.1f} ms |")
        print(f"| search: p90 / max | {q[-1] * 1000:.1f} ms / {max(searches) * 1000:.1f} ms |")
        print(f"| search: total ({len(searches)} searches) | {sum(searches):.1f} s |")

    payload = {
        "date": dt.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join([Path(sys.argv[0]).name, *(argv if argv is not None else sys.argv[1:])]),
        "cogmem": str(args.cogmem),
        "cogmem_version": version,
        "cogmem_sha256": digest,
        "cogmem_built": built,
        "keyword_baseline": rg_label,
        "limit": LIMIT,
        "conversations": results,
    }
    out.write_text(json.dumps(payload, indent=1, ensure_ascii=False), encoding="utf-8")
    print(f"\nper-question results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
