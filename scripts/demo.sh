#!/usr/bin/env bash
# A realistic agent session on a fresh temporary workspace, printing what the agent sees:
# build cogmem, init (with the AGENTS.md block), a conversation passed through `hear`, a
# sub-agent's proposal and the main agent's approval, search, a context pack, the graph, and
# what git and the audit log recorded. Nothing outside the temporary folder is touched.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
echo "==> building cogmem (debug)"
cargo build --locked --quiet
cogmem="$repo/target/debug/cogmem"

ws=$(mktemp -d "${TMPDIR:-/tmp}/cogmem-demo.XXXXXX")/memory
export NO_COLOR=1
# The session's clock: every command reads the same fixed time, so the demo is repeatable.
export COGMEM_NOW=2027-01-15T09:30:00Z

say() { printf '\n### %s\n' "$*"; }
run() {
  printf '\n$ cogmem'
  printf ' %q' "$@"
  printf '\n'
  "$cogmem" "$@"
}
user() {
  printf '\nuser> %s\n$ cogmem hear -   # the agent passes the message on stdin\n' "$1"
  printf '%s' "$1" | "$cogmem" hear -
}

say "A new workspace, with instructions for the agent in AGENTS.md"
run init --agents-md "$ws"
cd "$ws"
sed -n '1,12p' AGENTS.md

export COGMEM_ACTOR=agent:main
say "The agent stores facts about people and projects with entities and relations"
run remember "Alice leads the Atlas project" --relation 'person--alice|works-on|project--atlas'
run remember "Bob reviews every Atlas release" --relation 'person--bob|works-on|project--atlas'

say "A conversation: the agent passes every user message to hear (known names are recognised)"
user "Hi! I'm planning the Atlas launch for next month."
user "Remember that Alice prefers tea over coffee."
user "Remember that we decided to use Postgres for Atlas."
user "Please remember: the staging deploy needs the VPN on."
user "What do you remember about Alice?"
user "Ok, I'm done for today, goodnight!"

say "A research sub-agent may only propose; the main agent reviews"
COGMEM_ACTOR=subagent:researcher run propose --entity person--bob "Bob is allergic to peanuts" --confidence high
COGMEM_ACTOR=subagent:researcher run propose --entity person--bob "Bob is allergic to shellfish" || true
run pending list
run pending approve 1
run pending reject 2 --reason "the user said peanuts"

say "Finding things again"
run search postgres
run recall "who works on atlas"
run graph neighbors project--atlas

say "The pack an agent puts in its prompt: core memory first, packed to 400 tokens"
run context "atlas launch" --budget 400

say "The graph, for a person to look at"
run graph export --mermaid

say "What was recorded: one commit per change, with its actor"
run status
printf '\n$ git log --format="%%h %%an: %%s"\n'
git log --format="%h %an: %s"
printf '\nThe workspace is %s — open the files, or run `git log -p` there.\n' "$ws"
