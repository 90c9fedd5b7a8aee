#!/usr/bin/env python3
"""Chooses the date factors of `cogmem search` on the tune split of LoCoMo (issue 22).

For each conversation of the split (by default `tune`: conv-26, conv-30, conv-41; never the
report split the figures are read on), imports the turns as evaluate.py does, asks every
question once with `search --limit 50 --json`, and re-ranks those 50 hits offline for every pair
of factors in the grid: a hit marked `dated` (the question wants a time and the hit carries a
date or a length of time) is multiplied by D, one marked `during` (of a day the question names)
by U. The score without them is the hit's score divided by the factors the binary applied
(CURRENT below, which must match crates/index/src/index/when.rs). Prints recall@5 / recall@10 per
category for each pair.

A hit below the 50th cannot move up in this simulation, so figures for factors far from the
current ones are estimates; evaluate.py measures the chosen pair.

Usage (from the repository root, after `cargo build`):
    python3 benches/retrieval/tune.py --cogmem target/debug/cogmem
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent))
import evaluate as ev  # noqa: E402
import locomo_to_jsonl as conv  # noqa: E402

# The factors the binary applies (crates/index/src/index/when.rs: DATED_BOOST, DURING_BOOST).
# The factor on an entry linked to an entity the question names (issue 22:
# crates/index/src/index/people.rs: LINKED_BOOST).
CURRENT = {"dated": 1.25, "during": 2.0, "linked": 1.0}
GRID_DATED = (1.0, 1.25, 1.5, 2.0, 3.0)
GRID_DURING = (1.0, 1.5, 2.0, 3.0)
GRID_LINKED = (1.0, 1.1, 1.25, 1.5, 2.0)
DEPTH = 100


def collect(binary: Path, split: str, data: Path, search: str = "") -> list[dict]:
    """Every question of the split with its evidence and its DEPTH best hits; `search` is
    written into each workspace's cogmem.toml as its `[search]` section."""
    out = []
    for s in conv.load(data):
        if s["sample_id"] not in ev.SPLITS[split]:
            continue
        recs = conv.records(s)
        valid = {r["id"] for r in recs}
        now = conv.rfc3339(conv.last_session_time(s) + dt.timedelta(days=1))
        work = Path(tempfile.mkdtemp(prefix=f"{s['sample_id']}-tune-"))
        try:
            jsonl = work / "turns.jsonl"
            jsonl.write_text(conv.to_jsonl(recs), encoding="utf-8")
            cm = ev.Cogmem(binary, work / "ws", now)
            cm.init()
            if search:
                toml = work / "ws" / "cogmem.toml"
                toml.write_text(toml.read_text(encoding="utf-8") + f"\n[search]\n{search}\n",
                                encoding="utf-8")
            cm.import_jsonl(jsonl)
            for qa in s["qa"]:
                evidence, _ = ev.clean_evidence(qa.get("evidence"), valid)
                if not evidence:
                    continue
                hits, _, err = cm.search(qa["question"], DEPTH)
                if err:
                    raise RuntimeError(f"search failed: {err}")
                out.append({"category": qa["category"], "evidence": evidence, "hits": hits,
                            "question": qa["question"],
                            "speakers": {r["id"]: r["speaker"] for r in recs}})
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return out


def rerank(questions: list[dict], dated: float, during: float, linked: float | None = None) -> dict:
    """Mean recall@k per category (and "all") with the given factors (`linked` None: the
    binary's)."""
    linked = CURRENT["linked"] if linked is None else linked
    sums: dict = {}
    for q in questions:
        scored = []
        for h in q["hits"]:
            applied = (CURRENT["dated"] if h.get("dated") else 1.0) * (
                CURRENT["during"] if h.get("during") else 1.0) * (
                CURRENT["linked"] if h.get("linked") else 1.0)
            f = (dated if h.get("dated") else 1.0) * (during if h.get("during") else 1.0) * (
                linked if h.get("linked") else 1.0)
            # The day's and the neighbours' shares are added after the factors: kept as they are.
            shares = h.get("from_day", 0.0) + h.get("from_near", 0.0)
            scored.append((-((h["score"] - shares) / applied * f + shares), h["id"],
                           h.get("source")))
        scored.sort()
        ranked = [src for _, _, src in scored]
        for k in ev.KS:
            r = ev.recall(ranked, q["evidence"], k)
            for c in (q["category"], "all"):
                sums.setdefault((c, k), []).append(r)
    return {key: sum(v) / len(v) for key, v in sums.items()}


# The shares of a conversation's context (crates/index/src/index/search.rs: DAY_SHARE,
# NEAR_HITS, NEAR_SPAN, NEAR_SHARE), and the grid `--context` simulates.
CONTEXT = {"day": 0.2, "hits": 5, "span": 2, "near": 0.15}
GRID_CONTEXT = [(d, k, w, n) for d in (0.0, 0.1, 0.2, 0.3) for k in (3, 5, 10) for w in (1, 2, 3)
                for n in (0.0, 0.1, 0.15, 0.2)]
SPEAKER_BOOST = 1.5
DAY_HITS = 10


def context_rerank(questions: list[dict], day: float, hits_n: int, span: int, near: float) -> dict:
    """Mean recall@k with other context shares: each hit's shares are taken out of its score
    and the simulated ones added (a message's neighbours are the turns next to it in the
    conversation; one that is not among the hits enters with its share alone)."""
    sums: dict = {}
    for q in questions:
        words = set(re.findall(r"[a-z]+", q["question"].lower()))
        base = {h["source"]: h["score"] - h.get("from_day", 0.0) - h.get("from_near", 0.0)
                for h in q["hits"] if h.get("source")}
        path = {h["source"]: h["path"] for h in q["hits"] if h.get("source")}
        order = sorted(base, key=lambda s: -base[s])
        best: dict = {}
        for s in order[:DAY_HITS]:
            best.setdefault(path[s], base[s])
        score = {s: v + day * best.get(path[s], 0.0) for s, v in base.items()}
        added: dict = {}
        for s in sorted(score, key=lambda x: -score[x])[:hits_n]:
            m = re.fullmatch(r"D(\d+):(\d+)", s)
            if not m:
                continue
            for d in range(1, span + 1):
                for other in (f"D{m[1]}:{int(m[2]) + d}", f"D{m[1]}:{int(m[2]) - d}"):
                    who = q["speakers"].get(other)
                    if who is None:
                        continue
                    named = all(w in words for w in re.findall(r"[a-z]+", who.lower()))
                    share = near * score[s] / d * (SPEAKER_BOOST if named else 1.0)
                    added[other] = max(added.get(other, 0.0), share)
        for s, v in added.items():
            score[s] = score.get(s, 0.0) + v
        ranked = sorted(score, key=lambda x: -score[x])
        for k in ev.KS:
            r = ev.recall(ranked, q["evidence"], k)
            for c in (q["category"], "all"):
                sums.setdefault((c, k), []).append(r)
    return {key: sum(v) / len(v) for key, v in sums.items()}


def context(binary: Path, args) -> int:
    """The context shares' grid, simulated on each question's DEPTH best hits."""
    questions = collect(binary, args.split, args.data)
    cats = " | ".join(f"{c} {n}" for c, n in ev.CATEGORIES.items())
    print(f"{args.split} split, context shares (simulated); recall@5 / recall@10\n")
    print(f"| day share | near hits | span | near share | {cats} | all |")
    print("|---|---|---|---|" + "---|" * (len(ev.CATEGORIES) + 1))
    for d, k, w, n in GRID_CONTEXT:
        m = context_rerank(questions, d, k, w, n)
        cells = [f"{m[(c, 5)]:.3f} / {m[(c, 10)]:.3f}" if (c, 5) in m else "–"
                 for c in [*ev.CATEGORIES, "all"]]
        mark = " (current)" if (d, k, w, n) == tuple(CONTEXT.values()) else ""
        print(f"| {d}{mark} | {k} | {w} | {n} | " + " | ".join(cells) + " |", flush=True)
    return 0


# (words added, weight of each) for `--expansion`; (0, 0) is no expansion.
# (Expansion applies to list questions only, "what activities …": the binary's rule.)
GRID_EXPANSION = ((0, 0.0), (5, 0.2), (5, 0.5), (10, 0.3))


def expansion(binary: Path, args) -> int:
    """One search per question for each expansion setting (the split re-imported each time)."""
    cats = " | ".join(f"{c} {n}" for c, n in ev.CATEGORIES.items())
    print(f"{args.split} split, query expansion; recall@5 / recall@10\n")
    print(f"| words | weight | {cats} | all |")
    print("|---|---|" + "---|" * (len(ev.CATEGORIES) + 1))
    for terms, weight in GRID_EXPANSION:
        search = f"expansion_terms = {terms}\nexpansion_weight = {weight}"
        m = rerank(collect(binary, args.split, args.data, search), CURRENT["dated"], CURRENT["during"])
        cells = [f"{m[(c, 5)]:.3f} / {m[(c, 10)]:.3f}" if (c, 5) in m else "–"
                 for c in [*ev.CATEGORIES, "all"]]
        print(f"| {terms} | {weight} | " + " | ".join(cells) + " |", flush=True)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cogmem", type=Path, default=ev.REPO / "target/debug/cogmem")
    ap.add_argument("--data", type=Path, default=conv.DEFAULT_DATA)
    ap.add_argument("--split", choices=sorted(ev.SPLITS), default="tune",
                    help="the conversations to tune on (default: %(default)s)")
    ap.add_argument("--expansion", action="store_true",
                    help="instead: measure query expansion (`[search] expansion_terms`, "
                         "`expansion_weight`) over GRID_EXPANSION, one run of the split each")
    ap.add_argument("--context", action="store_true",
                    help="instead: simulate the shares of a conversation's context (the day's "
                         "and the neighbours', GRID_CONTEXT) on each question's hits")
    args = ap.parse_args()
    binary = args.cogmem.resolve()
    if not os.access(binary, os.X_OK):
        ap.error(f"{binary} is not an executable (build it with `cargo build`)")
    if args.expansion:
        return expansion(binary, args)
    if args.context:
        return context(binary, args)
    questions = collect(binary, args.split, args.data)
    cats = " | ".join(f"{c} {n}" for c, n in ev.CATEGORIES.items())
    print(f"{args.split} split, {len(questions)} questions, {DEPTH} hits each; "
          f"recall@5 / recall@10\n")
    print(f"| dated × | during × | {cats} | all |")
    print("|---|---|" + "---|" * (len(ev.CATEGORIES) + 1))
    for d in GRID_DATED:
        for u in GRID_DURING:
            m = rerank(questions, d, u)
            cells = [f"{m[(c, 5)]:.3f} / {m[(c, 10)]:.3f}" if (c, 5) in m else "–"
                     for c in [*ev.CATEGORIES, "all"]]
            mark = " (current)" if (d, u) == (CURRENT["dated"], CURRENT["during"]) else ""
            print(f"| {d}{mark} | {u} | " + " | ".join(cells) + " |")
    print(f"\nLinked to an entity the question names (issue 22), dates at the binary's factors; "
          f"{sum(1 for q in questions for h in q['hits'] if h.get('linked'))} linked hits\n")
    print(f"| linked × | {cats} | all |")
    print("|---|" + "---|" * (len(ev.CATEGORIES) + 1))
    for x in GRID_LINKED:
        m = rerank(questions, CURRENT["dated"], CURRENT["during"], x)
        cells = [f"{m[(c, 5)]:.3f} / {m[(c, 10)]:.3f}" if (c, 5) in m else "–"
                 for c in [*ev.CATEGORIES, "all"]]
        mark = " (current)" if x == CURRENT["linked"] else ""
        print(f"| {x}{mark} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
