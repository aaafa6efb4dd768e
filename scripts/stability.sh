#!/usr/bin/env bash
# stability.sh: do verdicts flip? Runs a passing and a failing pairing of the reference
# subject N times each with fast stalls on (the default), half of the runs with every core
# saturated by busy loops, and counts verdicts (status and finding kinds) per pairing.
# A flip is a run whose verdict differs from the first run of the same pairing.
#
#   scripts/stability.sh [RUNS]        (default 100 per pairing; needs bin/skewtest: make build)
#
# Prints one line per run and a summary; exits 1 when any verdict flipped.
set -euo pipefail
runs=${1:-100}
cd "$(dirname "$0")/.."
bin=bin/skewtest
[ -x "$bin" ] || { echo "stability: build first: make build" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin" example "$work/repo" >/dev/null
cache="$work/cache"

# name | repro flags: a pairing that passes, and one with a real release-skew bug.
pairings=(
  "pass|--host worktree --client v1.4.190 --kind desktop --journey terminal"
  "fail|--host v1.4.190 --client v1.4.120 --kind desktop --journey terminal"
)
saturate() { # busy loops on every core until killed
  for _ in $(seq "$(nproc)"); do (while :; do :; done) & done
}
verdict() { # the non-reference pairing's status and finding kinds, from results.json
  python3 - "$1" <<'PY'
import json, sys
run = json.load(open(sys.argv[1] + "/results.json"))
p = [p for p in run["pairings"] if p["host"] != p["client"]][0]
print(p["status"], ",".join(sorted({f["kind"] for f in p["findings"]})))
PY
}
flips=0
for entry in "${pairings[@]}"; do
  name=${entry%%|*} flags=${entry#*|}
  first="" n_flip=0
  for i in $(seq "$runs"); do
    load=idle
    if [ $((i % 2)) -eq 0 ]; then saturate; load=saturated; fi
    out="$work/r-$name-$i"
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$bin" repro --repo "$work/repo" --cache-dir "$cache" --report-dir "$out" --seed 1 $flags >/dev/null 2>&1 || true
    took=$(echo "$(date +%s.%N) - $start" | bc)
    [ "$load" = saturated ] && { kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; }
    v=$(verdict "$out")
    [ -z "$first" ] && first=$v
    mark=ok
    if [ "$v" != "$first" ]; then mark=FLIP; n_flip=$((n_flip + 1)); fi
    printf '%s %3d %-9s %5.1fs %s  %s\n' "$name" "$i" "$load" "$took" "$mark" "$v"
  done
  echo "== $name: $runs runs, $n_flip flip(s); verdict: $first"
  flips=$((flips + n_flip))
done
echo "== total flips: $flips"
[ "$flips" -eq 0 ]
