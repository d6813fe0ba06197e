#!/usr/bin/env bash
# Simulated GPU fleets (tandem serve --device sim:N) behind the Tandem router, on this machine.
#
#   bench/sim-fleet.sh startup N          time until N sim engines (h100-llama3-8b) and the router
#                                         are ready, memory per engine, then N x 4 requests served
#   bench/sim-fleet.sh cache              multi-turn conversations on 8 engines, cache-aware vs
#                                         least-loaded routing at the same offered load
#   bench/sim-fleet.sh pd                 prefill-heavy and mixed workloads: 4 engines round-robin
#                                         vs 1P+3D static disaggregation vs 1P+3D adaptive split
#   OUT_DIR=D bench/sim-fleet.sh grid WL SETUP...   the SLO grid of workload WL again, from the
#                                         per-request files an earlier pd run left in D
#   bench/sim-fleet.sh calibrate          the profiles' offline throughput vs the published figures,
#                                         and one live engine's prefill and decode throughput
#
# Knobs (environment): PROFILE (h100-llama3-8b), SEED, REQUESTS, RATE, OUT_DIR, KEEP_TMP=1;
# cache: N, TURNS, THINK, SYSTEM (N:L shared system prompts), WARMUP; pd: RATE_MIXED, SLO_TTFT,
# SLO_TPOT (ms), WORKLOADS, SETUPS, ADAPTIVE_ARGS (extra router flags for the adaptive fleet),
# GRID_TTFT, GRID_TPOT (the limits of the SLO grid printed after each workload; the last setup is
# compared with the best of the others).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

PROFILE=${PROFILE:-h100-llama3-8b}
SEED=${SEED:-1}
WORK=$(mktemp -d /tmp/tandem-sim.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model" "$WORK/logs"' EXIT

tb_need curl curl
tb_need jq jq
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx1g}"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny >/dev/null

ROUTER_PORT=
ENGINE_PORTS=()

# Starts N sim engines and the router; sets ROUTER_PORT, ENGINE_PORTS and READY_SECS (seconds from
# the router's start to /ready answering 200). Call it directly, not in $(...).
start_fleet() { # n mode extra-router-args...
  local n="$1" mode="$2"; shift 2
  ENGINE_PORTS=()
  local i
  for i in $(seq 1 "$n"); do ENGINE_PORTS+=("$(tb_free_port)"); done
  ROUTER_PORT=$(tb_free_port)
  local t0 t1
  t0=$(date +%s.%N)
  tb_start "$WORK/router-$mode-$n.log" "$TB_TANDEM" router "$WORK/model" --engine sim \
    --sim-profile "$PROFILE" --router-mode "$mode" --router-port "$ROUTER_PORT" \
    --log-dir "$WORK/logs" --startup-timeout 300 "$@" --endpoint-ports "${ENGINE_PORTS[@]}"
  ROUTER_PID=$TB_LAST_PID
  tb_wait_http "http://127.0.0.1:$ROUTER_PORT/ready" 320 "$ROUTER_PID" "$WORK/router-$mode-$n.log"
  t1=$(date +%s.%N)
  READY_SECS=$(echo "$t1 - $t0" | bc)
}

stop_fleet() {
  tb_stop_all
  sleep 1
}

# Sum of one counter over every engine of the fleet (each engine's own /metrics).
engine_sum() { # metric
  local p total=0 v
  for p in "${ENGINE_PORTS[@]}"; do
    v=$(curl -sf "http://127.0.0.1:$p/metrics" | awk -v m="$1" '$1 == m { print $2 }')
    total=$(echo "$total + ${v:-0}" | bc)
  done
  printf '%.0f\n' "$total"
}

engine_rss_mb() {
  local pid total=0 n=0 r
  for pid in $(pgrep -f "serve $WORK/model --device sim" || true); do
    r=$(awk '/VmRSS/ { print $2 }' "/proc/$pid/status" 2>/dev/null || echo 0)
    total=$(( total + r )); n=$(( n + 1 ))
  done
  [[ $n -gt 0 ]] && echo "$(( total / n / 1024 )) MB average over $n engines" || echo "n/a"
}

report_row() { # label json
  jq -r --arg l "$1" '.overall as $o | [$l, $o.ok, $o.errors, ($o.req_per_s*100|round/100),
    ($o.ttft_ms.p50|round), ($o.ttft_ms.p90|round), ($o.ttft_ms.p99|round), ($o.tpot_ms.p50*10|round/10),
    ($o.tpot_ms.p99*10|round/10), (if $o.goodput == null then "-" else ($o.goodput.req_per_s*100|round/100) end)]
    | "| " + join(" | ") + " |"' "$2"
}

# Share of measured requests that met each (TTFT, TPOT) limit pair, per setup, from the per-request
# lines of --requests-json, and the last setup's ratio to the best of the others (same requests and
# offered load in every setup, so shares compare as goodput does).
slo_grid() { # workload-label setup...
  local wl="$1"; shift
  local setups=("$@") last="${@: -1}" t p s line ratio best
  echo
  echo "$wl: share of the ${REQUESTS} measured requests within the SLO"
  echo "| TTFT <= ms | TPOT <= ms | $(IFS='|'; echo "${setups[*]}" | sed 's/|/ | /g') | $last / best other |"
  echo "|---:|---:|$(printf -- '---:|%.0s' "${setups[@]}")---:|"
  for t in ${GRID_TTFT:-500 1000 2000 4000}; do
    for p in ${GRID_TPOT:-25 30 35 40 50}; do
      line="| $t | $p |"; best=0
      for s in "${setups[@]}"; do
        share=$(jq -s --argjson t "$t" --argjson p "$p" '([.[] | select(.ok and .ttft_ms != null
          and .ttft_ms <= $t and (.output_tokens < 2 or (.tpot_ms != null and .tpot_ms <= $p)))] | length)
          / length * 1000 | round / 1000' "$OUT/pd-$wl-$s.requests.jsonl")
        line+=" $share |"
        if [[ $s != "$last" ]] && (( $(echo "$share > $best" | bc) )); then best=$share; fi
        [[ $s == "$last" ]] && ratio=$(if (( $(echo "$best > 0" | bc) )); then echo "scale=2; $share / $best" | bc; else echo "-"; fi)
      done
      echo "$line $ratio |"
    done
  done
}

case "${1:-}" in
startup)
  N=${2:-8}
  tb_log "machine: $(tb_machine); load $(tb_load)"
  start_fleet "$N" round-robin
  secs=$READY_SECS
  tb_log "$N engines + router ready in ${secs}s; engine RSS $(engine_rss_mb); load $(tb_load)"
  tb_bench "$OUT/startup-$N.json" --url "http://127.0.0.1:$ROUTER_PORT" --prompt-kind ids \
    --vocab-size 1024 --first-token-id 3 --prompt-len 512 --output-len 32 --concurrency "$N" \
    --requests $(( N * 4 )) --seed "$SEED"
  echo "| engines | ready (s) | requests ok | errors | TTFT p50 (ms) | TPOT p50 (ms) | engine RSS | load |"
  echo "|---:|---:|---:|---:|---:|---:|---|---:|"
  jq -r --arg n "$N" --arg s "$secs" --arg rss "$(engine_rss_mb)" --arg load "$(tb_load)" \
    '.overall | "| \($n) | \($s|tonumber*10|round/10) | \(.ok) | \(.errors) | \(.ttft_ms.p50|round) | \(.tpot_ms.p50*10|round/10) | \($rss) | \($load) |"' \
    "$OUT/startup-$N.json"
  ;;
cache)
  N=${N:-8}; RATE=${RATE:-6}; REQUESTS=${REQUESTS:-600}; TURNS=${TURNS:-6}
  WL=(--prompt-kind ids --vocab-size 1024 --first-token-id 3 --multi-turn "$TURNS" --think-time "${THINK:-2}"
    --lengths-from lmsys-chat-1m --shared-prefix "${SYSTEM:-4:512}" --context-limit 4000 --rate "$RATE"
    --requests "$REQUESTS" --warmup "${WARMUP:-60}" --seed "$SEED" --timeout 300)
  echo "| policy | ok | errors | req/s | TTFT p50 | TTFT p90 | TTFT p99 | TPOT p50 | TPOT p99 | goodput | prefix-hit tokens | prompt tokens | hit share | load before/after |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
  for policy in least-loaded cache-aware; do
    start_fleet "$N" round-robin --enable-prefix-cache --policy "$policy"
    l0=$(tb_load)
    h0=$(engine_sum tandem_engine_prefix_cache_hit_tokens_total)
    p0=$(engine_sum tandem_engine_prompt_tokens_total)
    tb_bench "$OUT/cache-$policy.json" --url "http://127.0.0.1:$ROUTER_PORT" "${WL[@]}"
    h1=$(engine_sum tandem_engine_prefix_cache_hit_tokens_total)
    p1=$(engine_sum tandem_engine_prompt_tokens_total)
    hits=$(( h1 - h0 )); prompts=$(( p1 - p0 ))
    row=$(report_row "$policy" "$OUT/cache-$policy.json")
    echo "${row% |} | $hits | $prompts | $(echo "scale=2; $hits / $prompts" | bc) | $l0 / $(tb_load) |"
    curl -s "http://127.0.0.1:$ROUTER_PORT/metrics" | grep '^tandem_router_route_decisions_total' >&2 || true
    stop_fleet
  done
  ;;
pd)
  RATE=${RATE:-8}; REQUESTS=${REQUESTS:-400}; SLO_TTFT=${SLO_TTFT:-1000}; SLO_TPOT=${SLO_TPOT:-50}
  declare -A MIXES=(
    [prefill-heavy]="--mix long=uniform:1500-2500/lognormal:64,0.5@3 --mix chat=uniform:50-250/lognormal:128,0.5@1"
    [mixed]="--mix long=uniform:1500-2500/lognormal:200,0.5@1 --mix chat=uniform:50-250/lognormal:250,0.6@3"
  )
  for wl in ${WORKLOADS:-prefill-heavy mixed}; do
    R=${RATE}
    [[ $wl == mixed ]] && R=${RATE_MIXED:-$RATE}
    WL=(--prompt-kind ids --vocab-size 1024 --first-token-id 3 ${MIXES[$wl]} --rate "$R"
      --requests "$REQUESTS" --warmup "${WARMUP:-40}" --seed "$SEED" --timeout 300
      --slo-ttft-ms "$SLO_TTFT" --slo-tpot-ms "$SLO_TPOT")
    echo
    echo "$wl at $R req/s (SLO: TTFT <= $SLO_TTFT ms, TPOT <= $SLO_TPOT ms)"
    echo "| setup | ok | errors | req/s | TTFT p50 | TTFT p90 | TTFT p99 | TPOT p50 | TPOT p99 | goodput (req/s) | load before/after |"
    echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
    for setup in ${SETUPS:-round-robin static adaptive}; do
      case $setup in
        round-robin) start_fleet 4 round-robin ;;
        static) start_fleet 4 disagg --pd-policy static ;;
        adaptive) start_fleet 4 disagg --pd-policy adaptive ${ADAPTIVE_ARGS:-} ;;
      esac
      l0=$(tb_load)
      tb_bench "$OUT/pd-$wl-$setup.json" --url "http://127.0.0.1:$ROUTER_PORT" "${WL[@]}" \
        --requests-json "$OUT/pd-$wl-$setup.requests.jsonl"
      row=$(report_row "$setup" "$OUT/pd-$wl-$setup.json")
      echo "${row% |} | $l0 / $(tb_load) |"
      curl -s "http://127.0.0.1:$ROUTER_PORT/metrics" | grep '^tandem_router_pd_decisions_total' >&2 || true
      stop_fleet
    done
    slo_grid "$wl" ${SETUPS:-round-robin static adaptive}
  done
  ;;
grid) # grid WORKLOAD SETUP...: the SLO grid again from the files of an earlier run in OUT_DIR
  shift
  slo_grid "$@"
  ;;
calibrate)
  tb_log "offline (simulated clock, real scheduler):"
  java -cp "$TB_ROOT/target/tandem.jar" dev.tandem.engine.sim.SimThroughput 2>/dev/null | grep '^|'
  tb_log "live: one sim engine process, $PROFILE, load $(tb_load)"
  start_fleet 1 round-robin
  # prefill: 2048-token prompts, 1 output token, 64 at a time; decode: 64 streams of 512 tokens
  tb_bench "$OUT/cal-prefill.json" --url "http://127.0.0.1:$ROUTER_PORT" --prompt-kind ids --vocab-size 1024 \
    --first-token-id 3 --prompt-len 2048 --output-len 1 --concurrency 64 --requests 640 --warmup 64 --seed "$SEED"
  tb_bench "$OUT/cal-decode.json" --url "http://127.0.0.1:$ROUTER_PORT" --prompt-kind ids --vocab-size 1024 \
    --first-token-id 3 --prompt-len 128 --output-len 512 --concurrency "${DECODE_BATCH:-64}" --requests $(( 2 * ${DECODE_BATCH:-64} )) \
    --warmup 16 --seed "$SEED"
  jq -r '"live prefill: \(.overall.prompt_tok_per_s|round) prompt tok/s (\(.overall.req_per_s*100|round/100) req/s of 2048 tokens)"' "$OUT/cal-prefill.json"
  jq -r '"live decode: \(.overall.output_tok_per_s|round) output tok/s at \(.options.concurrency) streams, TPOT p50 \(.overall.tpot_ms.p50*100|round/100) ms"' "$OUT/cal-decode.json"
  tb_log "load after: $(tb_load)"
  ;;
*)
  sed -n '2,16p' "$0"; exit 2 ;;
esac
