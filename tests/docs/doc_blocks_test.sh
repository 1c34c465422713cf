#!/usr/bin/env bash
# Usage: doc_blocks_test.sh PAGE.md IDEM_DIR MINIMAL_CONSUMER [SERVERS_ENV]
# Runs the shell blocks of one documentation page, so a documented command that
# stops working fails the suite. The page's fences say what each block is:
#   ```sh       a command a reader runs: run with `bash -e`, in order, all of the
#               page's blocks in one fresh scratch folder (a page is one session);
#   ```console  a sample session (`$ command` and its output), not run;
#   ```text, ```cpp, ```toml, ... anything else, not run.
# A fence without a language is refused: nothing is left unjudged by accident.
# The line before a ```sh fence may say how to treat it:
#   <!-- docs-test: skip (why) -->   not run; the reason is required
#   <!-- docs-test: needs postgres --> (or mysql, redis, rabbitmq) run only where
#               that test server runs; the block reads its URL from
#               $POSTGRES_URL, $MYSQL_URL, $REDIS_URL or $AMQP_URL.
# A page that goes on with another page's session says so on a line of its own:
#   <!-- docs-test: continues library.md -->  (that page's blocks run first)
# IDEM_DIR (the folder of the built idem tool) is first on PATH; the scratch
# folder starts with MINIMAL_CONSUMER (examples/minimal built in this tree, as
# a reader who followed docs/library.md has it there) and a copy of the
# repository's examples/ folder, as if run from a checkout.
# SERVERS_ENV (build/test-servers.env) is read when it exists.
# A failing block is reported with its file and line, its text and its output.
set -uo pipefail
page=$1 idem_dir=$2 minimal_consumer=$3 servers_env=${4:-}
idem_dir=$(cd "$idem_dir" && pwd)  # the blocks run in another folder
repo=$(cd "$(dirname "$0")/../.." && pwd)
name=${page#"$repo"/}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/blocks" "$work/scratch"
cp -r "$repo/examples" "$work/scratch/examples"
cp "$minimal_consumer" "$work/scratch/minimal_consumer"

if [ -n "$servers_env" ] && [ -f "$servers_env" ]; then
  set -a
  # shellcheck disable=SC1090  # the test servers' URLs, written by scripts/servers/*.sh
  . "$servers_env"
  set +a
fi
export POSTGRES_URL=${IDEM_TEST_POSTGRES_URL:-} MYSQL_URL=${IDEM_TEST_MYSQL_URL:-}
export REDIS_URL=${IDEM_TEST_REDIS_URL:-} AMQP_URL=${IDEM_TEST_AMQP_URL:-}
export PATH="$idem_dir:$PATH"
# As in a reader's shell: the audited commands record the OS account.
unset IDEM_OPERATOR IDEM_OPERATOR_SECRET

# Splits PAGE into blocks/TAG-N.sh files and prints one line per ```sh block:
# N LINE ACTION [ARGUMENT]; ACTION is run, skip or needs. Problems with the
# fences themselves are printed as "error LINE message".
split_page() {  # PAGE TAG
  awk -v dir="$work/blocks" -v tag="$2" '
    function marker(line) {
      if (line !~ /^[ \t]*<!-- docs-test:/ || line ~ /<!-- docs-test: continues /) return "run"
      if (match(line, /<!-- docs-test: skip \(.+\) -->/)) return "skip"
      if (line ~ /<!-- docs-test: skip/) return "noreason"
      if (match(line, /<!-- docs-test: needs (postgres|mysql|redis|rabbitmq) -->/)) {
        split(substr(line, RSTART, RLENGTH), w, " "); return "needs " w[4]
      }
      return "bad"
    }
    {
      line = $0
      if (!inside && match(line, /^[ \t]*```/)) {
        indent = RLENGTH - 3
        lang = substr(line, RLENGTH + 1); sub(/[ \t]+$/, "", lang)
        inside = 1; start = NR; n++
        if (lang == "") { print "error", NR, "a fence without a language: say sh (run), console (a sample session) or text"; kind = "" }
        else if (lang == "sh") {
          kind = marker(prev)
          if (kind == "noreason") { print "error", NR - 1, "a skipped block says why: <!-- docs-test: skip (the reason) -->"; kind = "" }
          else if (kind == "bad") { print "error", NR - 1, "unknown docs-test marker (use skip (why) or needs postgres|mysql|redis|rabbitmq)"; kind = "" }
          else print n, NR, kind
        } else {
          kind = ""
          if (lang ~ /^(bash|shell|shell-session|zsh)$/) print "error", NR, "```" lang ": say sh (run) or console (a sample session)"
        }
        file = dir "/" tag "-" n ".sh"
        next
      }
      if (inside && match(line, /^[ \t]*```[ \t]*$/)) { inside = 0; close(file); prev = line; next }
      if (inside) {
        if (kind == "") next
        for (i = 0; i < indent && substr(line, 1, 1) ~ /[ \t]/; i++) line = substr(line, 2)
        print line > file
        next
      }
      if (line !~ /^[ \t]*$/) prev = line
    }
    END { if (inside) print "error", start, "a fence that is never closed" }
  ' "$1"
}

failed=0 ran=0 skipped=0
run_page() {  # PAGE TAG: runs its blocks in the scratch folder, in order
  local page=$1 tag=$2 shown=${1#"$repo"/} n line action arg var rc
  split_page "$page" "$tag" >"$work/plan-$tag" || { echo "$shown: cannot read the page"; failed=$((failed + 1)); return; }
  while read -r n line action arg; do
    if [ "$n" = "error" ]; then
      echo "$shown:$line: $action${arg:+ $arg}"
      failed=$((failed + 1))
      continue
    fi
    case "$action" in
      skip) skipped=$((skipped + 1)); continue ;;
      needs)
        case "$arg" in postgres) var=POSTGRES_URL ;; mysql) var=MYSQL_URL ;; redis) var=REDIS_URL ;; *) var=AMQP_URL ;; esac
        if [ -z "${!var}" ]; then
          echo "$shown:$line: not run: needs the $arg test server ($var is empty; start scripts/servers/*.sh)"
          skipped=$((skipped + 1))
          continue
        fi ;;
    esac
    if (cd "$work/scratch" && timeout 60 bash -e "$work/blocks/$tag-$n.sh") >"$work/out" 2>&1; then
      ran=$((ran + 1))
    else
      rc=$?
      failed=$((failed + 1))
      echo "$shown:$line: this \`\`\`sh block failed (exit $rc):"
      sed 's/^/    | /' "$work/blocks/$tag-$n.sh"
      echo "  its output:"
      sed 's/^/    > /' "$work/out"
    fi
  done <"$work/plan-$tag"
}

# A page that goes on with another page's session says so on a line of its own,
# <!-- docs-test: continues OTHER.md --> (OTHER.md beside it): OTHER.md's blocks
# run first, in the same folder.
before=$(sed -n 's/^<!-- docs-test: continues \([A-Za-z0-9_.-]*\.md\) -->$/\1/p' "$page" | head -n 1)
if [ -n "$before" ]; then
  if [ -f "$(dirname "$page")/$before" ]; then
    run_page "$(dirname "$page")/$before" before
  else
    echo "$name: continues $before, which is not beside it"
    failed=$((failed + 1))
  fi
fi
run_page "$page" page

echo "$name: $ran block(s) ran, $skipped skipped, $failed failed"
[ "$failed" -eq 0 ]
