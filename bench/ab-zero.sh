#!/usr/bin/env bash
# Two builds of the router side by side in the zero pass of bench/router-overhead.sh, with their
# places swapped between runs. One router process can run 15-50% slower than another of the same
# build (what its JIT made of it; BENCHMARKS.md, session 9), and a busy box can make one slot of a
# run look slow: two runs of session 13 put the same old build at 0.108 and 0.262 ms per request
# where it costs 0.073. So every run starts fresh processes and the builds take turns in the
# "tandem" and "baseline" slots; a change is believed when it holds in both places.
#
#   bench/ab-zero.sh OLD_JAR NEW_JAR
#
# Knobs (environment): RUNS (2; an even number gives each build each slot equally often);
# OLD_JAVA_OPTS and NEW_JAVA_OPTS (each build's router JVM options, default ROUTER_JAVA_OPTS or
# -Xmx512m; give the same jar twice to A/B a JVM option); and the
# zero pass's own (ZERO_CONNECTIONS, ZERO_MODES, ROUNDS, ZERO_SECONDS, ZERO_WARMUP_SECONDS,
# OUTPUT_LEN, ZERO_FLOOR (default 0 here), ...); OUT_DIR (kept: each run's tables and runs).
# Prints each run's table, then per cell (connections, mode): the new build's CPU per request
# over the old's and each build's throughput against nginx, as medians of per-round values over
# every round of every run, with the range of the runs' own medians.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ $# -eq 2 ]] || { echo "usage: bench/ab-zero.sh OLD_JAR NEW_JAR" >&2; exit 2; }
old=$(readlink -f "$1")
new=$(readlink -f "$2")
for j in "$old" "$new"; do
  [[ -f "$j" ]] || { echo "ab-zero: no jar at $j" >&2; exit 2; }
done
RUNS=${RUNS:-2}
old_opts=${OLD_JAVA_OPTS:-${ROUTER_JAVA_OPTS:--Xmx512m}}
new_opts=${NEW_JAVA_OPTS:-${ROUTER_JAVA_OPTS:--Xmx512m}}
OUT=${OUT_DIR:-$(mktemp -d /tmp/tandem-ab-zero.XXXXXX)}
mkdir -p "$OUT"

for run in $(seq 1 "$RUNS"); do
  if (( run % 2 == 1 )); then
    a="$new" b="$old" aopts="$new_opts" bopts="$old_opts" newslot=tandem
  else
    a="$old" b="$new" aopts="$old_opts" bopts="$new_opts" newslot=baseline
  fi
  echo "== run $run of $RUNS: new build in the $newslot slot" >&2
  PASSES=zero TANDEM_JAR="$a" BASELINE_JAR="$b" ROUTER_JAVA_OPTS="$aopts" BASELINE_JAVA_OPTS="$bopts" \
    ZERO_DISAGG=0 ZERO_FLOOR="${ZERO_FLOOR:-0}" \
    ZERO_CLIENTS=wrk OUT_DIR="$OUT/run-$run" "$here/router-overhead.sh" >"$OUT/run-$run.log" 2>&1 \
    || { tail -20 "$OUT/run-$run.log" >&2; exit 1; }
  sed -n '/^| client/,/^$/p' "$OUT/run-$run.log"
  echo "$newslot" >"$OUT/run-$run/new-slot"
done

echo
echo "## new ($new $new_opts) against old ($old $old_opts): $RUNS runs, places swapped"
echo
echo "| conns | mode | CPU/req new / old (median; runs) | new vs nginx | old vs nginx |"
echo "|---:|---|---|---:|---:|"
for run in $(seq 1 "$RUNS"); do
  awk -v run="$run" -v newslot="$(cat "$OUT/run-$run/new-slot")" -F'\t' \
    '{ print run "\t" newslot "\t" $0 }' "$OUT/run-$run/zero-runs.tsv"
done | awk -F'\t' '
  function median(arr, n,    i, j, t) {
    for (i = 2; i <= n; i++) { t = arr[i]; for (j = i - 1; j >= 1 && arr[j] > t; j--) arr[j + 1] = arr[j]; arr[j + 1] = t }
    return (n % 2) ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
  }
  # input: run newslot client conns mode setup round requests req_per_s p50 p99 errors cpu_ms [sys_ms]
  {
    run = $1; newslot = $2; cell = $4 " | " $5; setup = $6; r = run SUBSEP $7
    who = setup == newslot ? "new" : (setup == "tandem" || setup == "baseline") ? "old" : setup
    if (!(cell in seen)) { seen[cell] = 1; cells[++nc] = cell }
    cpu[cell, r, who] = $8 > 0 ? $13 / $8 : 0
    rps[cell, r, who] = $9
    rounds[cell, r] = 1; runs[run] = 1
  }
  END {
    for (k = 1; k <= nc; k++) {
      c = cells[k]; n = 0; nn = 0; no = 0; ranged = ""
      for (key in rounds) {
        split(key, p, SUBSEP); if (p[1] != c) continue
        r = p[2] SUBSEP p[3]
        if (cpu[c, r, "old"] > 0) x[++n] = cpu[c, r, "new"] / cpu[c, r, "old"]
        if (rps[c, r, "nginx"] > 0) { yn[++nn] = rps[c, r, "new"] / rps[c, r, "nginx"]; yo[++no] = rps[c, r, "old"] / rps[c, r, "nginx"] }
      }
      for (run in runs) {
        m = 0
        for (key in rounds) { split(key, p, SUBSEP); if (p[1] == c && p[2] == run && cpu[c, run, p[3], "old"] > 0) z[++m] = cpu[c, run, p[3], "new"] / cpu[c, run, p[3], "old"] }
        if (m) ranged = ranged (ranged == "" ? "" : ", ") sprintf("%.3f", median(z, m))
      }
      printf "| %s | %.3f (%s) | %.3f | %.3f |\n", c, median(x, n), ranged, median(yn, nn), median(yo, no)
    }
  }'
echo
echo "(each run: $OUT/run-N.log; CPU per request from /proc, as the zero pass measures it)"
