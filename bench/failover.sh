#!/usr/bin/env bash
# Failover under load (chaos): 1 prefill + 2 decode builtin engines behind the Tandem router in
# disagg mode, CONCURRENCY closed-loop streams (long answers, ignore_eos) for DURATION seconds;
# after a third of it a decode engine is killed with kill -9, after two thirds the prefill engine.
# Reported: requests, errors by kind (stream_cut / stream_error would be streams the client saw
# break), the router's failovers (continued from delivered tokens, or replayed and checked),
# retries before any output, and how long after its kill each engine was READY again.
# Run twice by default: the ordinary world (a dead engine restarts and rejoins) and a fixed one
# (--fixed-world: as NVSHMEM, the supervisor re-forms the world with a new uid).
#
# Environment knobs: CONCURRENCY, DURATION (s), OUTPUT_LEN, PROMPT_LEN, SEED, PRESET (tiny),
# WORLDS ("ordinary fixed"), ROUTER_EXTRA_ARGS (more `tandem router` flags, e.g.
# "--network-transport io_uring"), OUT_DIR, KEEP_TMP=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

CONCURRENCY=${CONCURRENCY:-16}
DURATION=${DURATION:-60}
OUTPUT_LEN=${OUTPUT_LEN:-256}
PROMPT_LEN=${PROMPT_LEN:-32}
SEED=${SEED:-1}
PRESET=${PRESET:-tiny}
WORLDS=${WORLDS:-ordinary fixed}
WORK=$(mktemp -d /tmp/tandem-failover.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model"' EXIT

tb_need curl curl
tb_need jq jq
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx512m}"

tb_log "making the $PRESET model"
"$TB_TANDEM" make-model "$WORK/model" --preset "$PRESET" --seed 1 >/dev/null

engine_pid() { # router-port engine-id
  curl -sf "http://127.0.0.1:$1/fleet" | jq -r ".engines[] | select(.id == $2) | .pid"
}

# Seconds from $2 (epoch s) until engine $3 is READY in a newer generation than $4.
await_back() { # router-port since engine-id generation
  local i state gen
  for i in $(seq 1 1200); do
    read -r state gen < <(curl -sf "http://127.0.0.1:$1/fleet" |
      jq -r ".engines[] | select(.id == $3) | \"\(.state) \(.generation)\"")
    if [[ "$state" == READY && "$gen" -gt "$4" ]]; then
      awk -v a="$2" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
      return
    fi
    sleep 0.1
  done
  echo "never"
}

run_world() { # name extra-router-flags...
  local name="$1"; shift
  local p0 p1 p2 rp bench_pid back1 back0 t1 t2 g1 g2
  p0=$(tb_free_port); p1=$(tb_free_port); p2=$(tb_free_port); rp=$(tb_free_port)
  tb_log "$name world: starting 1 prefill + 2 decode engines"
  # shellcheck disable=SC2086
  tb_start "$WORK/router-$name.log" "$TB_TANDEM" router "$WORK/model" --router-host 127.0.0.1 \
    --router-port "$rp" --endpoint-ports "$p0" "$p1" "$p2" --log-dir "$WORK/logs-$name" \
    --engine-jvm-opts="${ENGINE_JVM_OPTS:--Xmx512m}" --health-interval 0.5 --restart-backoff 200ms \
    "$@" ${ROUTER_EXTRA_ARGS:-}
  tb_wait_http "http://127.0.0.1:$rp/ready" 300 "$TB_LAST_PID" "$WORK/router-$name.log"
  tb_log "$name world: $CONCURRENCY streams for ${DURATION}s; kill -9 of engine 1 at $((DURATION / 3))s, of engine 0 at $((2 * DURATION / 3))s"
  "$TB_TANDEM" bench --quiet --json "$OUT/$name.json" --url "http://127.0.0.1:$rp" --prompt-kind ids \
    --model-dir "$WORK/model" --first-token-id 3 --prompt-len "$PROMPT_LEN" --output-len "$OUTPUT_LEN" \
    --concurrency "$CONCURRENCY" --duration "$DURATION" --seed "$SEED" --timeout 300 >/dev/null 2>&1 &
  bench_pid=$!
  sleep $((DURATION / 3))
  g1=$(curl -sf "http://127.0.0.1:$rp/fleet" | jq -r '.engines[1].generation')
  kill -9 "$(engine_pid "$rp" 1)"; t1=$(date +%s.%N)
  echo "$(await_back "$rp" "$t1" 1 "$g1")" >"$OUT/$name-back-1.txt" &
  back1=$!
  sleep $((DURATION / 3))
  g2=$(curl -sf "http://127.0.0.1:$rp/fleet" | jq -r '.engines[0].generation')
  kill -9 "$(engine_pid "$rp" 0)"; t2=$(date +%s.%N)
  echo "$(await_back "$rp" "$t2" 0 "$g2")" >"$OUT/$name-back-0.txt" &
  back0=$!
  wait "$bench_pid" "$back1" "$back0" || true # not the router, which tb_start ran in the background
  curl -sf "http://127.0.0.1:$rp/metrics" >"$OUT/metrics-$name.txt" || true
  tb_stop_all
}

LOAD_BEFORE=$(tb_load)
for w in $WORLDS; do
  if [[ "$w" == fixed ]]; then run_world fixed --fixed-world --reform-drain 5s; else run_world "$w"; fi
done

metric() { # file name
  awk -v n="$2" '$1 == n { printf "%d", $2 }' "$1"
}
{
  echo "# failover under load  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
  echo "# $PRESET model, 1 prefill + 2 decode, disagg; $CONCURRENCY closed-loop streams, prompts of $PROMPT_LEN ids,"
  echo "# $OUTPUT_LEN output tokens (ignore_eos), ${DURATION}s; kill -9 of decode engine 1, then of prefill engine 0"
  echo "# load average (1 min) before: $LOAD_BEFORE, after: $(tb_load)"
  printf '%-9s %6s %6s %-16s %9s %9s %8s %8s %8s %8s\n' world reqs errors "errors by kind" failovers continued \
    replayed retries "e1 back" "e0 back"
  for w in $WORLDS; do
    m="$OUT/metrics-$w.txt"
    printf '%-9s %6s %6s %-16s %9s %9s %8s %8s %7ss %7ss\n' "$w" \
      "$(jq '.overall.requests' "$OUT/$w.json")" "$(jq '.overall.errors' "$OUT/$w.json")" \
      "$(jq -c '.overall.errors_by_kind' "$OUT/$w.json")" \
      "$(metric "$m" tandem_router_failovers_total)" \
      "$(metric "$m" 'tandem_router_resume_attempts_total{how="continue"}')" \
      "$(metric "$m" 'tandem_router_resume_attempts_total{how="replay"}')" \
      "$(metric "$m" tandem_router_engine_retries_total)" \
      "$(cat "$OUT/$w-back-1.txt")" "$(cat "$OUT/$w-back-0.txt")"
    left=$(grep -E '^tandem_(inflight|reservations_open)' "$m" 2>/dev/null | awk '$NF + 0 != 0' || true)
    [[ -z "$left" ]] || echo "# $w: counters not back at zero: $left"
  done
} | tee "$OUT/summary.txt"
