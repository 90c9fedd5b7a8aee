#!/usr/bin/env python3
"""Convert LoCoMo conversations to `cogmem import --format jsonl` transcripts.

One JSON object per dialogue turn, in conversation order (session 1, 2, ... and the turns of
each session in their order):

    {"timestamp": "2023-05-08T13:56:00Z", "speaker": "Caroline",
     "text": "... [image: a photo of ...]", "id": "D1:3"}

`timestamp` is the session's date-time ("1:56 pm on 8 May, 2023") in RFC 3339 (UTC; LoCoMo
gives no time zone), so every turn of a session carries the session's time. When a turn shares
an image, its BLIP caption is appended to the text as " [image: CAPTION]".

LoCoMo is CC BY-NC 4.0: read it from its path at run time, never copy it (or the converted
transcripts) into the repository. Python 3.11 standard library only.

Usage:
    locomo_to_jsonl.py [--data PATH] [--out-dir DIR] [--sample conv-26 ...]
Without --out-dir the transcripts are written to stdout, one after the other.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
from pathlib import Path

DEFAULT_DATA = Path("/work/shared/data/locomo-dev/locomo-dev.json")

_SESSION = re.compile(r"session_(\d+)")


def parse_session_time(text: str) -> dt.datetime:
    """Parse a LoCoMo session date-time such as "1:56 pm on 8 May, 2023" (taken as UTC)."""
    cleaned = " ".join(text.split())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %d %B %Y"):
        try:
            return dt.datetime.strptime(cleaned, fmt).replace(tzinfo=dt.timezone.utc)
        except ValueError:
            pass
    raise ValueError(f"cannot read session date-time {text!r}")


def rfc3339(t: dt.datetime) -> str:
    return t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def sessions(conversation: dict) -> list[tuple[int, dt.datetime, list[dict]]]:
    """The non-empty sessions of a conversation in order: (number, start time, turns)."""
    out = []
    for key, turns in conversation.items():
        m = _SESSION.fullmatch(key)
        if not m or not turns:
            continue
        n = int(m.group(1))
        when = conversation.get(f"session_{n}_date_time")
        if not when:
            raise ValueError(f"session {n} has no date-time")
        out.append((n, parse_session_time(when), turns))
    out.sort(key=lambda s: s[0])
    return out


def turn_text(turn: dict) -> str:
    """The turn's text, with its image caption appended when it has one."""
    text = turn["text"]
    caption = (turn.get("blip_caption") or "").strip()
    if caption:
        text = f"{text} [image: {caption}]"
    return text


def records(sample: dict) -> list[dict]:
    """The import records of one LoCoMo sample, in turn order."""
    out = []
    for _, when, turns in sessions(sample["conversation"]):
        stamp = rfc3339(when)
        for turn in turns:
            out.append(
                {
                    "timestamp": stamp,
                    "speaker": turn["speaker"],
                    "text": turn_text(turn),
                    "id": turn["dia_id"],
                }
            )
    return out


def last_session_time(sample: dict) -> dt.datetime:
    return max(when for _, when, _ in sessions(sample["conversation"]))


def to_jsonl(recs: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)


def load(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="locomo JSON (default: %(default)s)")
    ap.add_argument("--out-dir", type=Path, help="write SAMPLE_ID.jsonl files here (default: stdout)")
    ap.add_argument("--sample", action="append", help="only this sample id (repeatable)")
    args = ap.parse_args(argv)
    samples = load(args.data)
    if args.sample:
        wanted = set(args.sample)
        samples = [s for s in samples if s["sample_id"] in wanted]
        missing = wanted - {s["sample_id"] for s in samples}
        if missing:
            ap.error(f"no such sample: {', '.join(sorted(missing))}")
    if args.out_dir:
        args.out_dir.mkdir(parents=True, exist_ok=True)
    for s in samples:
        text = to_jsonl(records(s))
        if args.out_dir:
            path = args.out_dir / f"{s['sample_id']}.jsonl"
            path.write_text(text, encoding="utf-8")
            print(f"{path}: {text.count(chr(10))} turns", file=sys.stderr)
        else:
            sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
