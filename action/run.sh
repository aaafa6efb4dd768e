#!/usr/bin/env bash
# The shell steps of the skewtest GitHub Action (action.yml, at the repository's root). Each
# step of action.yml runs one phase:
#
#   setup    the cache keys and paths: skewtest's Go caches keyed on the action's own
#            sources, the subject's build cache keyed on its skewtest.lock
#   build    skewtest from the action's own sources (make build), put on the job's PATH
#   run      the command, its exit code kept; outputs read from the results.json it wrote
#   verdict  the exit code contract: 1 fails the step (unless fail-on-findings is false),
#            2 and 3 fail it with what they mean
#
# A phase reads what GitHub sets for a composite action's step (GITHUB_ACTION_PATH,
# GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH, RUNNER_TEMP, RUNNER_OS, RUNNER_ARCH) and
# what action.yml passes it in env: (the inputs as INPUT_*, earlier steps' outputs). It is
# bash 3.2 (macOS) and needs make, find, sort, xargs, sha256sum or shasum, and jq for the
# pairing counts (GitHub's hosted runners have them all).
set -euo pipefail

# Commands the action runs: those that write a report (results.json, summary.md).
commands="run, fuzz, explore or merge-reports"

# output sets a step output: one line (a line break in the value becomes a space).
output() {
  local v=${2//$'\r'/}
  printf '%s=%s\n' "$1" "${v//$'\n'/ }" >>"$GITHUB_OUTPUT"
}

need() {
  local v
  for v in "$@"; do
    if [ -z "${!v:-}" ]; then
      echo "skewtest action: \$$v is not set: GitHub sets it in a composite action's steps" >&2
      exit 2
    fi
  done
}

# sha256 is the SHA-256 tool of the platform: sha256sum (Linux) or shasum (macOS).
if command -v sha256sum >/dev/null 2>&1; then sha256=(sha256sum); else sha256=(shasum -a 256); fi

# short hashes stdin.
short() { "${sha256[@]}" | cut -c1-16; }

# home expands a leading ~ as the shell would.
home() {
  case $1 in
  "~") printf '%s\n' "$HOME" ;;
  "~/"*) printf '%s\n' "$HOME/${1#"~/"}" ;;
  *) printf '%s\n' "$1" ;;
  esac
}

# meaning says what an exit code of skewtest means.
meaning() {
  case $1 in
  0) echo "compatible" ;;
  1) echo "compatibility findings" ;;
  2) echo "a usage or configuration error" ;;
  3) echo "an infrastructure or harness error: the harness could not test" ;;
  *) echo "not one of skewtest's exit codes: killed, or crashed" ;;
  esac
}

# annotate prints a workflow command (error, warning, notice) with a title, escaped as
# GitHub reads them.
annotate() {
  local level=$1 title=$2 msg=$3
  title=${title//%/%25} title=${title//$'\r'/%0D} title=${title//$'\n'/%0A}
  title=${title//:/%3A} title=${title//,/%2C}
  msg=${msg//%/%25} msg=${msg//$'\r'/%0D} msg=${msg//$'\n'/%0A}
  printf '::%s title=%s::%s\n' "$level" "$title" "$msg"
}

# setup writes the cache keys and paths as the step's outputs.
setup() {
  need GITHUB_ACTION_PATH GITHUB_OUTPUT
  local go_version platform gosum sources lock builds_cache
  go_version=$(go env GOVERSION)
  platform="${RUNNER_OS:-$(uname -s)}-${RUNNER_ARCH:-$(uname -m)}"
  gosum=$(short <"$GITHUB_ACTION_PATH/go.sum")
  # What make build compiles: a branch such as main gets a new key whenever it moves.
  sources=$(cd "$GITHUB_ACTION_PATH" &&
    find . \( -name '.*' -o -name examples -o -name testdata \) ! -name . -prune -o -type f \
      \( -name '*.go' -o -name go.mod -o -name go.sum -o -name Makefile -o -name '*.zip' \) -print0 |
    LC_ALL=C sort -z | xargs -0 "${sha256[@]}" | short)
  output go-cache-key "skewtest-action-go-$platform-$go_version-$gosum-$sources"
  output go-cache-restore "skewtest-action-go-$platform-$go_version-$gosum-"
  output gomodcache "$(go env GOMODCACHE)"
  output gocache "$(go env GOCACHE)"

  # The subject's builds: the pinned ones change when skewtest.lock does.
  lock="${INPUT_REPO:-.}/skewtest.lock"
  if [ -f "$lock" ]; then lock=$(short <"$lock"); else lock=no-lock; fi
  output builds-cache-key "skewtest-builds-$platform-$go_version-$lock"
  output builds-cache-restore "skewtest-builds-$platform-$go_version-"
  output cache-dir "$(home "${INPUT_CACHE_DIR:-~/.cache/skewtest}")"
  builds_cache=false
  if [ "${INPUT_CACHE:-true}" = true ] && [ "${INPUT_COMMAND:-run}" != merge-reports ]; then
    builds_cache=true
  fi
  output builds-cache "$builds_cache"
}

# build builds skewtest from the action's sources and puts it on the job's PATH.
build() {
  need GITHUB_ACTION_PATH GITHUB_OUTPUT GITHUB_PATH RUNNER_TEMP
  local bin="$RUNNER_TEMP/skewtest-action/bin/skewtest"
  set -- build BIN="$bin"
  # A checkout of skewtest says its version itself (git describe); the copy of an action
  # GitHub downloads is no git repository: its ref is the version.
  if [ ! -e "$GITHUB_ACTION_PATH/.git" ] && [ -n "${ACTION_REF:-}" ]; then
    set -- "$@" VERSION="$ACTION_REF"
  fi
  make -C "$GITHUB_ACTION_PATH" "$@"
  "$bin" version
  dirname "$bin" >>"$GITHUB_PATH"
  output skewtest "$bin"
}

# state is the run phase's scratch directory, removed when the phase ends.
state=""

# refuse ends the run phase as skewtest ends a usage error: exit code 2, with the message.
refuse() {
  echo "skewtest action: $1" >&2
  output exit-code 2
  output error "$1"
  counts ""
  summarize 2 "$1"
  exit 0
}

counts() {
  local name
  for name in pairings passed failed flaky errored expected-refusals; do output "$name" "$1"; done
}

# summarize appends a note to the job summary when the command wrote no report (skewtest
# appends its summary.md there itself when it writes one).
summarize() {
  [ -n "${GITHUB_STEP_SUMMARY:-}" ] || return 0
  {
    printf '### skewtest %s: exit %s, %s\n\n' "${INPUT_COMMAND:-run}" "$1" "$(meaning "$1")"
    if [ -n "$2" ]; then printf '```\n%s\n```\n\n' "$2"; fi
    printf 'No report was written: the step'"'"'s log says more.\n\n'
  } >>"$GITHUB_STEP_SUMMARY"
}

# words splits a string into shell words, quotes honoured and nothing expanded (no $VAR, no
# globs, no commands), into a file, NUL-terminated.
words() {
  : >"$2"
  case $1 in *[![:space:]]*) ;; *) return 0 ;; esac
  printf '%s\n' "$1" | xargs printf '%s\0' >"$2"
}

# glob appends the paths a pattern matches to args, or the pattern itself when it matches
# nothing; a path is never split at spaces.
glob() {
  local IFS=
  # shellcheck disable=SC2206 # the pattern is meant to expand
  local -a matches=($1)
  args+=("${matches[@]}")
}

# fingerprint names a file's content (every results.json differs: it holds its times), or
# says it is missing.
fingerprint() {
  if [ -f "$1" ]; then cksum <"$1"; else echo missing; fi
}

run_command() {
  need GITHUB_OUTPUT RUNNER_TEMP SKEWTEST_BIN
  local command=${INPUT_COMMAND:-run} report_dir=${INPUT_REPORT_DIR:-skewtest-report}
  local word line code error
  state=$(mktemp -d "$RUNNER_TEMP/skewtest-action.XXXXXX")
  trap 'rm -rf "$state"' EXIT
  local -a args
  case $command in
  run | fuzz | explore)
    args=("$command" --repo "${INPUT_REPO:-.}" --report-dir "$report_dir")
    if [ -n "${CACHE_DIR:-}" ]; then args+=(--cache-dir "$CACHE_DIR"); fi
    ;;
  merge-reports) args=(merge-reports --report-dir "$report_dir") ;;
  *) refuse "command: \"$command\" is not one the action runs ($commands); run any other in a step of your own: the action puts skewtest on the PATH" ;;
  esac
  if [ -n "${INPUT_PINS:-}" ]; then args+=(--pins "$INPUT_PINS"); fi
  if [ -n "${INPUT_MATRIX:-}" ]; then args+=(--matrix "$INPUT_MATRIX"); fi
  if [ -n "${INPUT_SHARD:-}" ]; then args+=(--shard "$INPUT_SHARD"); fi
  if [ -n "${INPUT_SEED:-}" ]; then args+=(--seed "$INPUT_SEED"); fi
  if ! words "${INPUT_ARGS:-}" "$state/args" 2>/dev/null; then
    refuse "args: $INPUT_ARGS: not shell words (is a quote left open?)"
  fi
  while IFS= read -r -d '' word; do args+=("$word"); done <"$state/args"
  # The report directories to merge, one a line, each a glob.
  while IFS= read -r line; do
    line=${line#"${line%%[![:space:]]*}"} line=${line%"${line##*[![:space:]]}"}
    if [ -n "$line" ]; then glob "$line"; fi
  done <<<"${INPUT_REPORTS:-}"

  printf 'skewtest'
  printf ' %q' "${args[@]}"
  printf '\n'
  local results="$report_dir/results.json" before
  before=$(fingerprint "$results")
  # skewtest's stderr (progress, then any error) goes to the log as it comes and to a file,
  # for the error's text. The tee ignores the signals a cancelled job sends: it must outlive
  # skewtest's clean stop, or skewtest's last writes would meet a closed pipe.
  set +e
  {
    "$SKEWTEST_BIN" "${args[@]}" 2>&1 1>&3 3>&- | (trap '' INT TERM && exec tee "$state/stderr") >&2
    code=${PIPESTATUS[0]}
  } 3>&1
  set -e
  output exit-code "$code"
  error=$(sed -n 's/^skewtest: //p' "$state/stderr" | tail -n 1)
  output error "$error"

  # The counts, from the results.json this command wrote: one it left as it was (a
  # configuration error writes none; run --last-failed reads the one before) says nothing
  # about this run.
  if [ ! -f "$results" ] || [ "$(fingerprint "$results")" = "$before" ]; then
    counts ""
    summarize "$code" "$error"
  elif ! command -v jq >/dev/null 2>&1; then
    annotate warning "skewtest action" "jq is not on the PATH: the pairing counts are left empty (GitHub's hosted runners have jq)"
    counts ""
  elif jq -r '
      def n(s): [.[] | select(.status == s)] | length;
      (.pairings // []) | "pairings=\(length)", "passed=\(n("pass"))", "failed=\(n("fail"))",
        "flaky=\(n("flaky"))", "errored=\(n("error"))", "expected-refusals=\(n("expected-refusal"))"
      ' "$results" >"$state/counts"; then
    cat "$state/counts" >>"$GITHUB_OUTPUT"
  else
    annotate warning "skewtest action" "$results could not be read: the pairing counts are left empty"
    counts ""
  fi
}

# verdict keeps skewtest's exit code contract for the job.
verdict() {
  local code=${EXIT_CODE:-} command=${INPUT_COMMAND:-run} error=${ERROR:-} tally=""
  if [ -n "${PAIRINGS:-}" ]; then
    tally=" (${FAILED:-0} failed, ${FLAKY:-0} flaky, ${ERRORED:-0} errors of $PAIRINGS pairings)"
  fi
  if [ -n "$error" ]; then error=": $error"; fi
  case $code in
  0)
    echo "skewtest $command: exit 0, compatible$tally"
    ;;
  1)
    local msg="skewtest $command exited 1, compatibility findings$tally: the job summary and the report artifact show each with its repro line"
    if [ "${INPUT_FAIL_ON_FINDINGS:-true}" = false ]; then
      annotate warning "skewtest found incompatibilities" "$msg (fail-on-findings is false: the step passes)"
      return 0
    fi
    annotate error "skewtest found incompatibilities" "$msg"
    exit 1
    ;;
  2)
    annotate error "skewtest could not start" "skewtest $command exited 2, a usage or configuration error (an input of the action, skewtest.yaml, a moved tag, a shallow clone without tags, shards that do not belong together)$error"
    exit 2
    ;;
  3)
    annotate error "skewtest could not test" "skewtest $command exited 3, an infrastructure or harness error: the harness could not test (a build failed, a driver never got ready, the run was interrupted)$tally$error"
    exit 3
    ;;
  "")
    annotate error "skewtest did not run" "the run step set no exit code"
    exit 3
    ;;
  *)
    annotate error "skewtest ended abnormally" "skewtest $command ended with exit code $code, $(meaning "$code")$error"
    exit "$code"
    ;;
  esac
}

case ${1:-} in
setup) setup ;;
build) build ;;
run) run_command ;;
verdict) verdict ;;
*)
  echo "usage: $0 setup|build|run|verdict" >&2
  exit 2
  ;;
esac
