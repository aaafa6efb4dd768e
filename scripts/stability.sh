#!/usr/bin/env bash
# stability.sh: do verdicts flip? Reruns every journey of both example subjects, and the
# planted asynchronous traffic, ROUNDS times each at the default -j, every second round with
# the CPU saturated by busy loops (two per core), and compares every pairing's verdict (its
# status and the kinds of its findings) with the verdict of its first run. A flip is a run
# whose verdict differs.
#
#   scripts/stability.sh [ROUNDS]      (default 6; needs bin/skewtest: make build)
#
# Each round runs four matrices (129 pairings; the builds are cached after round 1):
#   remoteterm   every journey, the working tree against v1.4.190 and v1.4.120 both ways
#                (passes, release-skew bugs and clean refusals outside the protocol window)
#   metadata     remoteterm's compatible change that adds one frame to an existing exchange
#                (metadataOnResize in the working tree), every journey, against v1.4.190
#   notesd       every journey, --matrix full (its slim-push bug included)
#   async        notesd with noticeAfterReply and doubleAck in every build (the host pushes
#                a notification in its own message after each reply, the client acknowledges
#                every notification twice), every journey without its golden frames (which
#                list every frame, so they would fail by construction), --matrix full: the
#                slim-push bug must still be found, every time, under that traffic
#
# It prints one line per matrix run (wall time, load average, verdicts), every flip, and a
# summary; it exits 1 when a verdict flipped. SKEWTEST (default bin/skewtest) picks the
# binary; KEEP=1 keeps the work directory (reports of every run) and prints where it is.
set -euo pipefail
rounds=${1:-6}
cd "$(dirname "$0")/.."
bin=${SKEWTEST:-bin/skewtest}
[ -x "$bin" ] || { echo "stability: build first: make build" >&2; exit 2; }
command -v python3 >/dev/null || { echo "stability: needs python3 to read results.json" >&2; exit 2; }
work=$(mktemp -d)
busy=()
stop_load() {
  [ ${#busy[@]} -eq 0 ] && return
  kill "${busy[@]}" 2>/dev/null || true
  wait "${busy[@]}" 2>/dev/null || true
  busy=()
}
cleanup() {
  stop_load
  if [ "${KEEP:-}" = 1 ]; then echo "stability: kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
saturate() { # two busy loops per core, until stop_load
  for _ in $(seq $((2 * $(nproc)))); do
    (while :; do :; done) &
    busy+=($!)
  done
}

"$bin" example "$work/remoteterm" >/dev/null
"$bin" example --subject notesd "$work/notesd" >/dev/null
# The async matrix's journeys: notesd's own, without their frames sections.
mkdir -p "$work/async-journeys"
for j in "$work"/notesd/journeys/*.txtar; do
  sed '/^-- frames --$/,$d' "$j" >"$work/async-journeys/$(basename "$j")"
done
async_journeys=$(ls "$work"/async-journeys/*.txtar | paste -sd, -)
async_env=()
for label in worktree v0.1.0 v0.2.0 v0.3.0; do
  async_env+=(--env "$label:NOTESD_FEATURES={\"noticeAfterReply\":true,\"doubleAck\":true}")
done

matrices=(remoteterm metadata notesd async)
flags() {
  case $1 in
    remoteterm) echo --repo "$work/remoteterm" --pins v1.4.190,v1.4.120 ;;
    metadata) echo --repo "$work/remoteterm" --env 'worktree:REMOTETERM_FEATURES={"metadataOnResize":true}' ;;
    notesd) echo --repo "$work/notesd" --matrix full ;;
    async) echo --repo "$work/notesd" --matrix full --journey "$async_journeys" "${async_env[@]}" ;;
  esac
}

# verdicts prints one line per pairing of a results.json: its key, then its verdict.
verdicts() {
  python3 - "$1" "$2" <<'PY'
import json, sys
run = json.load(open(sys.argv[2] + "/results.json"))
for p in run["pairings"]:
    key = "|".join([sys.argv[1], p["host"], p["client"], p["clientKind"], p["journey"]] + (["future"] if p.get("future") else []))
    kinds = ",".join(sorted({f["kind"] for f in p["findings"]}))
    print(key + "\t" + p["status"] + (" " + kinds if kinds else ""))
PY
}

cache="$work/cache"
first="$work/first.tsv"
: >"$first"
pairing_runs=0 flips=0 start_all=$(date +%s)
for round in $(seq "$rounds"); do
  load=idle
  if [ $((round % 2)) -eq 0 ]; then saturate; load=saturated; fi
  for m in "${matrices[@]}"; do
    out="$work/r$round-$m"
    start=$(date +%s.%N)
    rc=0
    # shellcheck disable=SC2046
    "$bin" run $(flags "$m") --cache-dir "$cache" --report-dir "$out" --seed 1 >"$out.log" 2>&1 || rc=$?
    took=$(python3 -c "import sys; print('%.0f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")
    avg=$(cut -d' ' -f1 /proc/loadavg)
    if [ ! -f "$out/results.json" ]; then
      echo "round $round $m: no results.json (exit $rc); see $out.log" >&2
      tail -5 "$out.log" >&2
      exit 3
    fi
    n=0 f=0 summary=$(verdicts "$m" "$out" | cut -f2 | cut -d' ' -f1 | sort | uniq -c | awk '{printf "%s %s, ", $1, $2}')
    while IFS=$'\t' read -r key v; do
      n=$((n + 1))
      was=$(awk -F'\t' -v k="$key" '$1 == k {print $2; exit}' "$first")
      if [ -z "$was" ]; then
        printf '%s\t%s\n' "$key" "$v" >>"$first"
      elif [ "$was" != "$v" ]; then
        f=$((f + 1))
        echo "  FLIP round $round ($load) $key: $v (first: $was)"
      fi
    done < <(verdicts "$m" "$out")
    pairing_runs=$((pairing_runs + n)) flips=$((flips + f))
    printf 'round %d %-9s %-10s exit %d  %3d pairings in %4ss  load %5s  %s%d flip(s)\n' \
      "$round" "$load" "$m" "$rc" "$n" "$took" "$avg" "$summary" "$f"
  done
  stop_load
done
echo "== $rounds rounds, $pairing_runs pairing runs, $flips flip(s), $(($(date +%s) - start_all))s, $(nproc) cores, load: every second round saturated by $((2 * $(nproc))) busy loops"
[ "$flips" -eq 0 ]
