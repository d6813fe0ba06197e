#!/usr/bin/env bash
# A fresh router, with and without the launcher's class-data archive (./tandem: router, demo and
# node map the classes a first run archived). Each round launches `./tandem router` (round-robin,
# one builtin engine, the tiny model) with TANDEM_CDS=1 and with TANDEM_CDS=0, in alternating
# order, and measures from the launch: until GET /ready answers 200, the router JVM's own CPU by
# then (the engine is a separate process), and until its first completion (8 tokens) is answered.
# One untimed launch first writes the archive. Prints the medians per setting.
#
#   bench/router-start.sh            # ROUNDS (5), OUT_DIR, KEEP_TMP=1
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

ROUNDS=${ROUNDS:-5}
WORK=$(mktemp -d /tmp/tandem-router-start.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model"' EXIT
tb_need curl curl
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx512m}"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null

now_ms() { date +%s%3N; }

# One launch: leaves "ready_ms cpu_ms first_answer_ms" in LAUNCH_RESULT (no subshell: the
# router it starts must stay known to the exit trap).
launch() { # cds(0|1) tag
  local cds="$1" tag="$2" port engine t0 pid ready cpu first
  port=$(tb_free_port); engine=$(tb_free_port)
  t0=$(now_ms)
  tb_start "$WORK/router-$tag.log" env TANDEM_CDS="$cds" "$TB_TANDEM" router "$WORK/model" \
    --router-mode round-robin --router-host 127.0.0.1 --router-port "$port" \
    --endpoint-ports "$engine" --log-dir "$WORK/logs-$tag"
  pid=$TB_LAST_PID
  until curl -sf -o /dev/null --max-time 1 "http://127.0.0.1:$port/ready"; do
    kill -0 "$pid" 2>/dev/null || { tail -n 20 "$WORK/router-$tag.log" >&2; tb_die "router exited"; }
    (( $(now_ms) - t0 < 120000 )) || tb_die "router not ready in 120 s"
    sleep 0.02
  done
  ready=$(( $(now_ms) - t0 ))
  cpu=$(tb_cpu_ms "$pid")
  curl -sf -o /dev/null --max-time 30 "http://127.0.0.1:$port/v1/completions" \
    -H 'Content-Type: application/json' \
    -d '{"prompt": [1, 2, 3, 4, 5, 6, 7, 8], "max_tokens": 8, "temperature": 0}' \
    || tb_die "the first completion failed (log: $WORK/router-$tag.log)"
  first=$(( $(now_ms) - t0 ))
  tb_stop_all
  LAUNCH_RESULT="$ready $cpu $first"
}

tb_log "untimed launch: writes the archive (if this build has none yet)"
launch 1 warm
: >"$OUT/runs.txt"
for round in $(seq 1 "$ROUNDS"); do
  order="1 0"; (( round % 2 == 0 )) && order="0 1"
  for cds in $order; do
    launch "$cds" "r$round-cds$cds"
    tb_log "round $round/$ROUNDS cds=$cds: ready/cpu/first-answer ms $LAUNCH_RESULT"
    echo "$cds $LAUNCH_RESULT" >>"$OUT/runs.txt"
  done
done

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
{
  echo "## router start  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
  echo "# ./tandem router, round-robin, 1 builtin engine (tiny model); $ROUNDS rounds, order alternating; JVM options: $TANDEM_JAVA_OPTS"
  echo "| launcher CDS | runs | to /ready ms | router CPU by then ms | to first answer ms |"
  echo "|---|---:|---:|---:|---:|"
  for cds in 1 0; do
    sel() { awk -v c="$cds" -v f="$1" '$1 == c { print $f }' "$OUT/runs.txt"; }
    printf '| %s | %d | %s | %s | %s |\n' "$([[ $cds == 1 ]] && echo on || echo off)" "$ROUNDS" \
      "$(sel 2 | median)" "$(sel 3 | median)" "$(sel 4 | median)"
  done
} | tee "$OUT/summary.txt"
echo "reports: $OUT" >&2
