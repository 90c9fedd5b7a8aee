#!/usr/bin/env python3
"""Paraphrase recall: questions that share no content word with the memory that answers them.

`paraphrase.tsv` holds query/memory pairs written for cogmem (issue 22, item 5). Every memory is
imported into one fresh workspace (each is the others' distractor); each query is asked with
`cogmem search --limit 10`, and the figure is recall@k: the share of queries whose own memory is
among the top k hits.

Before anything runs, the script checks the set itself: a pair whose query and memory share a
content word (lower-cased, stop words removed, a light suffix stemmer) is reported and the run
stops, so the set keeps measuring paraphrase and not keywords.

    benches/retrieval/paraphrase.py [--binary target/release/cogmem] [--model DIR]
                                    [--split tune|report|all] [--check-only] [--json]

Splits: every constant of the embedding rule (crates/index/src/embed) is chosen on the tune half,
pairs p001-p055, and reported on the report half, p056-p110. All 110 memories are imported
whatever the split (each is the others' distractor); only the split's queries are asked.
`--split all` (the default) asks every query and prints the figure of each half beside the whole.

With `COGMEM_EMBEDDING_MODEL` set (or `--model DIR`) the same run measures search with the model;
without it the keyword-only figure.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from evaluate import Cogmem  # noqa: E402

HERE = Path(__file__).resolve().parent
PAIRS = HERE / "paraphrase.tsv"

# Function words only: a word listed here carries no topic. Content words are everything else.
STOP = set("""
a an the and or but if so of to in on at by for with from into over under up down out off about
as than then that this these those there here when where why how what which who whom whose is are
was were be been being am do does did done have has had having will would shall should can could
may might must i me my mine we us our ours you your yours he him his she her hers it its they them
their theirs not no nor too very just only also again ever once both each every any some all most
more many much few other own same such s t now new get got make made need needs go goes going keep
kept use used one two
""".split())


def stem(word: str) -> str:
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def content(text: str) -> set[str]:
    return {stem(w) for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def load() -> list[dict]:
    rows = []
    lines = PAIRS.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    if header != ["id", "memory", "query"]:
        sys.exit(f"error: {PAIRS}:1: the header must be 'id<TAB>memory<TAB>query'")
    for n, line in enumerate(lines[1:], start=2):
        parts = line.split("\t")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            sys.exit(f"error: {PAIRS}:{n}: expected three non-empty tab-separated fields")
        rows.append({"line": n, "id": parts[0], "memory": parts[1], "query": parts[2]})
    return rows


def split_of(pair_id: str) -> str:
    """`tune` for p001-p055, `report` for the rest."""
    return "tune" if int(pair_id.lstrip("p")) <= 55 else "report"


def check(rows: list[dict]) -> list[str]:
    problems = []
    ids = set()
    for r in rows:
        if r["id"] in ids:
            problems.append(f"{PAIRS}:{r['line']}: duplicate id {r['id']}")
        ids.add(r["id"])
        memory, query = content(r["memory"]), content(r["query"])
        shared = memory & query
        # Words that begin alike (five letters or more) count as shared: a stemmer may join them.
        shared |= {m for m in memory for q in query if len(m) >= 5 and len(q) >= 5 and m[:5] == q[:5]}
        if shared:
            problems.append(f"{PAIRS}:{r['line']}: {r['id']} shares {sorted(shared)}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--binary", default=str(HERE.parents[1] / "target/release/cogmem"))
    ap.add_argument("--model", help="an embedding model folder (sets COGMEM_EMBEDDING_MODEL)")
    ap.add_argument("--split", choices=["tune", "report", "all"], default="all")
    ap.add_argument("--check-only", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rows = load()
    problems = check(rows)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print(f"error: {len(problems)} pairs share a content word; reword them", file=sys.stderr)
        return 1
    if args.check_only:
        print(f"{len(rows)} pairs, none sharing a content word")
        return 0
    if args.model:
        os.environ["COGMEM_EMBEDDING_MODEL"] = args.model
    model = os.environ.get("COGMEM_EMBEDDING_MODEL")
    tmp = Path(tempfile.mkdtemp(prefix="cogmem-para-"))
    try:
        binary = tmp / "cogmem"
        shutil.copy2(args.binary, binary)
        cm = Cogmem(binary, tmp / "ws", "2026-06-02T12:00:00Z")
        cm.init()
        jsonl = tmp / "pairs.jsonl"
        with jsonl.open("w", encoding="utf-8") as f:
            for i, r in enumerate(rows):
                ts = f"2026-05-{1 + i % 28:02d}T09:00:00Z"
                f.write(json.dumps({"timestamp": ts, "speaker": "user", "text": r["memory"],
                                    "id": r["id"]}) + "\n")
        cm.import_jsonl(jsonl)
        found: dict[str, tuple[bool, bool]] = {}
        for r in rows:
            if split_of(r["id"]) != args.split and args.split != "all":
                continue
            hits, _, err = cm.search(r["query"], 10)
            if err:
                print(f"warning: {r['id']}: search failed: {err}", file=sys.stderr)
            ranked = [h.get("source") for h in hits]
            found[r["id"]] = (r["id"] in ranked[:5], r["id"] in ranked[:10])
        splits = ["tune", "report", "all"] if args.split == "all" else [args.split]
        result = {"model": model or None}
        for name in splits:
            asked = [v for k, v in found.items() if name == "all" or split_of(k) == name]
            n = len(asked)
            result[name] = {"pairs": n,
                            "recall@5": round(sum(a for a, _ in asked) / max(n, 1), 3),
                            "recall@10": round(sum(b for _, b in asked) / max(n, 1), 3)}
        if args.json:
            print(json.dumps(result))
        else:
            print(f"paraphrase set, model: {model or 'none (keyword-only)'}")
            for name in splits:
                r = result[name]
                print(f"{name:>6} ({r['pairs']:3} pairs)  R@5 {r['recall@5']:.3f}  "
                      f"R@10 {r['recall@10']:.3f}")
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
