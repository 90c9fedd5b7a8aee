"""What the benchmark scripts share: finding a Python that runs basic-memory, naming the
machine's processor (scripts/bench-search, bench-growth, bench-status), and the queries the
search-timing scripts ask (bench-search-phases, bench-ab-search, bench-mcp-search, bench-web-search). Standard
library only; imported with scripts/ on sys.path."""

import os
import re
import shutil
import subprocess

# The queries of the search-timing scripts, asked in turn: words the generated workspaces hold.
SEARCH_QUERIES = ["garden party plans", "atlas deadline", "postgres migration", "omar vogel",
                  "budget review"]


def bm_python():
    """A Python 3.12 or newer that runs (pyenv shims exist for versions that are not selected)."""
    cands = ["python3.13", "python3.12", "python3"]
    pyenv = os.path.expanduser("~/.pyenv/versions")
    if os.path.isdir(pyenv):
        for v in sorted(os.listdir(pyenv), reverse=True):
            if re.match(r"3\.1[2-9]", v):
                cands.append(os.path.join(pyenv, v, "bin", "python3"))
    for c in cands:
        exe = shutil.which(c) or (c if os.path.exists(c) else None)
        if not exe:
            continue
        p = subprocess.run([exe, "-c", "import sys; sys.exit(sys.version_info < (3, 12))"],
                           capture_output=True)
        if p.returncode == 0:
            return exe
    return None


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return cpu, os.cpu_count()
