#!/usr/bin/env bash
# Disaggregation: a prefill-heavy mix (long prompts with short answers beside short prompts with
# long answers) on the `small` model, at the same seeded open-loop (Poisson) load, against
#   (a) 1 prefill + 2 decode builtin engines behind the Tandem router in disagg mode,
#   (b) 3 builtin engines behind the Tandem router in round-robin mode.
# Reported: TTFT and time per output token p50/p99 per request class and setup.
# The two fleets run one after the other (both on this machine's cores).
#
# Environment knobs: RATE (req/s), REQUESTS (measured), WARMUP (requests), LONG ("PROMPT/OUTPUT"),
# SHORT ("PROMPT/OUTPUT"), LONG_WEIGHT, SHORT_WEIGHT, SEED, PRESET (small), OUT_DIR, KEEP_TMP=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

RATE=${RATE:-0.15}
REQUESTS=${REQUESTS:-20}
WARMUP=${WARMUP:-2}
LONG=${LONG:-64/4}
SHORT=${SHORT:-8/16}
LONG_WEIGHT=${LONG_WEIGHT:-1}
SHORT_WEIGHT=${SHORT_WEIGHT:-1}
SEED=${SEED:-1}
PRESET=${PRESET:-small}
WORK=$(mktemp -d /tmp/tandem-disagg.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model"' EXIT

tb_need curl curl
tb_need jq jq
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx1g}"

tb_log "making the $PRESET model"
"$TB_TANDEM" make-model "$WORK/model" --preset "$PRESET" --seed 1 >/dev/null

MIX=(--mix "long=$LONG@$LONG_WEIGHT" --mix "short=$SHORT@$SHORT_WEIGHT")
COMMON=(--prompt-kind ids --model-dir "$WORK/model" --first-token-id 3 "${MIX[@]}" --rate "$RATE" --requests "$REQUESTS"
  --warmup "$WARMUP" --seed "$SEED" --timeout 600)

run_setup() { # name router-mode
  local name="$1" mode="$2" p0 p1 p2 rp t0 t1
  p0=$(tb_free_port); p1=$(tb_free_port); p2=$(tb_free_port); rp=$(tb_free_port)
  tb_log "$name: starting 3 engines behind the router in $mode mode"
  t0=$(date +%s.%N)
  tb_start "$WORK/router-$name.log" "$TB_TANDEM" router "$WORK/model" --router-mode "$mode" \
    --router-host 127.0.0.1 --router-port "$rp" --endpoint-ports "$p0" "$p1" "$p2" \
    --log-dir "$WORK/logs-$name" --engine-jvm-opts="${ENGINE_JVM_OPTS:--Xmx2g}" --startup-timeout 600
  tb_wait_http "http://127.0.0.1:$rp/v1/models" 600 "$TB_LAST_PID" "$WORK/router-$name.log"
  t1=$(date +%s.%N)
  tb_log "$name: ready in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')s; sending the mix at $RATE req/s"
  tb_bench "$OUT/$name.json" --url "http://127.0.0.1:$rp" "${COMMON[@]}"
  curl -sf "http://127.0.0.1:$rp/metrics" >"$OUT/router-metrics-$name.txt" || true
  tb_stop_all
}

LOAD_BEFORE=$(tb_load)
run_setup disagg disagg
run_setup round-robin round-robin

{
  echo "# disaggregation  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
  echo "# $PRESET model, ids prompts, mix long=$LONG@$LONG_WEIGHT short=$SHORT@$SHORT_WEIGHT (PROMPT/OUTPUT tokens),"
  echo "# Poisson $RATE req/s, $REQUESTS measured requests after $WARMUP warm-up, seed $SEED; latencies in ms"
  echo "# load average (1 min) before: $LOAD_BEFORE, after: $(tb_load)"
  printf '%-12s %-7s %5s %4s %9s %9s %9s %9s %9s %9s %10s\n' setup class reqs err "ttft p50" "ttft p99" \
    "tpot p50" "tpot p99" "e2e p50" "e2e p99" "out tok/s"
  for name in disagg round-robin; do
    jq -r --arg n "$name" '
      def f: if . == null then "-" else (. * 10 | round / 10 | tostring) end;
      (.classes // {}) + {all: .overall} | to_entries[] |
      [$n, .key, (.value.requests|tostring), (.value.errors|tostring), (.value.ttft_ms.p50|f), (.value.ttft_ms.p99|f),
       (.value.tpot_ms.p50|f), (.value.tpot_ms.p99|f), (.value.e2e_ms.p50|f), (.value.e2e_ms.p99|f),
       (.value.output_tok_per_s|f)] | @tsv' "$OUT/$name.json" |
      awk -F'\t' '{ printf "%-12s %-7s %5s %4s %9s %9s %9s %9s %9s %9s %10s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11 }'
  done
  for name in disagg round-robin; do
    m="$OUT/router-metrics-$name.txt"
    # After the run every in-flight counter and KV reservation must be back at zero.
    left=$(grep -E '^tandem_(inflight|reservations_open)' "$m" 2>/dev/null | awk '$NF + 0 != 0' || true)
    if [[ ! -s "$m" ]]; then echo "$name: router /metrics not read"
    elif [[ -z "$left" ]]; then echo "$name: router in-flight counters and open reservations all 0 after the run"
    else echo "$name: NOT ZERO after the run: $(printf '%s' "$left" | tr '\n' ' ')"; fi
  done
  echo "reports: $OUT"
} | tee "$OUT/summary.txt"
