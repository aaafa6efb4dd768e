#!/usr/bin/env bash
# future-peers-cost.sh: what does --future-peers add to a pull request's run? Writes both
# example subjects' histories, warms one build cache, then runs each subject's default plan
# ROUNDS times without and with --future-peers, alternating, and prints each run's wall time
# and pairing count (docs/ci.md has the figures and the decision they led to).
#
#   scripts/future-peers-cost.sh [ROUNDS]      (default 3; needs bin/skewtest: make build)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
bin=$PWD/bin/skewtest
[ -x "$bin" ] || { echo "future-peers-cost.sh: no $bin: run make build first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/skewtest-future-peers.XXXXXX")
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT

"$bin" example "$work/remoteterm" >/dev/null
"$bin" example --subject notesd "$work/notesd" >/dev/null
for subject in remoteterm notesd; do
  # Build everything the plans need first: the runs below measure the runs, not the builds.
  "$bin" run --repo "$work/$subject" --cache-dir "$work/cache" --report-dir "$work/warm-$subject" \
    --future-peers >/dev/null 2>&1 || true
  for round in $(seq "$rounds"); do
    for flag in "" --future-peers; do
      out=$work/out-$subject-$round${flag:+-future}
      start=$(date +%s%N)
      code=0
      "$bin" run --repo "$work/$subject" --cache-dir "$work/cache" --report-dir "$out.report" \
        $flag >"$out" 2>&1 || code=$?
      end=$(date +%s%N)
      pairings=$(grep -o '^[0-9]* pairings' "$out" | head -1 || true)
      printf '%-10s %-15s round %d: exit %d, %5d ms, %s\n' "$subject" "${flag:-(default)}" \
        "$round" "$code" $(((end - start) / 1000000)) "$pairings"
    done
  done
done
