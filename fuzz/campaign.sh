#!/usr/bin/env bash
# A fuzzing campaign: runs each target for SECONDS (default 300) from the
# checked-in corpus, with what libFuzzer finds going to a scratch folder,
# then merges into `corpus/<target>/` only the inputs that add coverage
# (libFuzzer's -merge=1), and prints one line per target:
# executions, coverage (libFuzzer's `cov:` edges and `ft:` features), corpus
# size, and whether it found a failure (saved under artifacts/<target>/).
#
# Usage: bash fuzz/campaign.sh [SECONDS] [TARGET ...]   (needs nightly and cargo-fuzz)
set -uo pipefail
cd "$(dirname "$0")"

seconds=${1:-300}
shift || true
targets=("$@")
[[ ${#targets[@]} -eq 0 ]] && targets=(differential is_prime dlog_parsers rsa_parsers rsa_differential shared_rsa_parsers)
declare -A max_len=([differential]=1024 [is_prime]=200)

log=$(mktemp -d)
printf '%-20s %12s %8s %8s %8s  %s\n' target executions cov ft corpus result
status=0
for t in "${targets[@]}"; do
  len=${max_len[$t]:-4096}
  mkdir -p "$log/corpus-$t"
  cargo +nightly fuzz run --sanitizer none "$t" "$log/corpus-$t" "corpus/$t" -- \
    -max_total_time="$seconds" -max_len="$len" -print_final_stats=1 >"$log/$t" 2>&1
  rc=$?
  result=ok
  if [[ $rc -ne 0 ]]; then
    result="FAILED (see artifacts/$t/ and $log/$t)"
    status=1
  else
    cargo +nightly fuzz run --sanitizer none "$t" "corpus/$t" "$log/corpus-$t" -- \
      -merge=1 -max_len="$len" >"$log/$t.merge" 2>&1
  fi
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log/$t" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log/$t" | tail -1 | cut -d' ' -f2)
  ft=$(grep -o 'ft: [0-9]*' "$log/$t" | tail -1 | cut -d' ' -f2)
  files=$(find "corpus/$t" -type f | wc -l)
  printf '%-20s %12s %8s %8s %8s  %s\n' "$t" "${execs:-?}" "${cov:-?}" "${ft:-?}" "$files" "$result"
done
echo "logs in $log"
exit $status
