#!/usr/bin/env bash
# What chat conversations cost a router, turn after turn: a Tandem router (round-robin) with the
# generated tiny model's tokenizer and chat template, in front of one zero-cost null engine (no
# delays, as in bench/router-overhead.sh's zero pass), driven by `tandem bench --api chat
# --multi-turn`: distinct conversations, each turn's messages the earlier turns' plus a new one,
# so the router renders and tokenizes a longer conversation every turn. Per router and round: the
# turns served, the router's CPU per turn (/proc), its p50, and the router's count of prompts whose
# beginning it had kept (tandem_router_prompt_beginnings_total). With BASELINE_JAR a second
# router from that jar runs beside it, the two taking turns within each round.
#
#   bench/chat-turns.sh
#   BASELINE_JAR=/tmp/old.jar bench/chat-turns.sh
#
# Knobs (environment): TANDEM_JAR (target/tandem.jar), BASELINE_JAR, TURNS (12), PROMPT_LEN (50
# words a message), OUTPUT_LEN (50: tokens asked for, and words of each earlier answer in the next
# prompts), CONTEXT_LIMIT (1200 words: a conversation ends before a turn that would need more),
# CONCURRENCY (8 conversations at once), RUN_SECONDS (20), WARMUP_SECONDS (20, per router),
# ROUNDS (3), STREAM (1), ROUTER_JAVA_OPTS (-Xmx512m), OUT_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

TURNS=${TURNS:-12}
PROMPT_LEN=${PROMPT_LEN:-50}
OUTPUT_LEN=${OUTPUT_LEN:-50}
CONTEXT_LIMIT=${CONTEXT_LIMIT:-1200}
CONCURRENCY=${CONCURRENCY:-8}
RUN_SECONDS=${RUN_SECONDS:-20}
ROUNDS=${ROUNDS:-3}
WORK=$(mktemp -d /tmp/tandem-chat-turns.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; rm -rf "$WORK/model"' EXIT
tb_need curl curl
tb_need jq jq
tb_ensure_jar

"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null
names=(tandem)
jars=("${TANDEM_JAR:-$TB_ROOT/target/tandem.jar}")
if [[ -n "${BASELINE_JAR:-}" ]]; then
  names+=(baseline)
  jars+=("$BASELINE_JAR")
fi
declare -A port pid
export NULL_ENGINE_JAVA_OPTS="-Xmx512m"
for i in "${!names[@]}"; do
  n=${names[$i]}
  port[$n]=$(tb_free_port)
  TANDEM_JAR="${jars[$i]}" TANDEM_JAVA_OPTS="${ROUTER_JAVA_OPTS:--Xmx512m}" tb_start_zero_router \
    "$WORK/router-$n.log" "$WORK/model" round-robin "${port[$n]}" "$(tb_free_port)" "$WORK/logs-$n"
  pid[$n]=$TB_LAST_PID # the launcher execs java: this is the router's JVM
  tb_wait_http "http://127.0.0.1:${port[$n]}/ready" 300 "${pid[$n]}" "$WORK/router-$n.log"
done

drive() { # router json seconds seed
  local args=(--url "http://127.0.0.1:${port[$1]}" --api chat --multi-turn "$TURNS"
    --prompt-len "$PROMPT_LEN" --output-len "$OUTPUT_LEN" --context-limit "$CONTEXT_LIMIT"
    --concurrency "$CONCURRENCY" --duration "$3" --seed "$4")
  [[ "${STREAM:-1}" == 1 ]] || args+=(--no-stream)
  tb_bench "$2" "${args[@]}"
}
found() { # router -> "found missed" (absent: "- -")
  curl -sf "http://127.0.0.1:${port[$1]}/metrics" | awk '
    /^tandem_router_prompt_beginnings_total\{result="found"/ { f = $NF }
    /^tandem_router_prompt_beginnings_total\{result="missed"/ { m = $NF }
    END { if (f == "") print "- -"; else printf "%d %d\n", f, m }'
}

for n in "${names[@]}"; do
  tb_log "warming up $n for ${WARMUP_SECONDS:-20} s"
  drive "$n" "$WORK/warmup-$n.json" "${WARMUP_SECONDS:-20}" 1000
done
echo "## chat turns  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
echo "# $TURNS turns at most ($CONTEXT_LIMIT words), messages of $PROMPT_LEN words, answers of $OUTPUT_LEN tokens;" \
  "$CONCURRENCY conversations at once, $RUN_SECONDS s a run, $([[ "${STREAM:-1}" == 1 ]] && echo streaming || echo non-streaming); zero-cost engine"
echo "| router | round | turns | turns/s | prompt tokens per turn | router CPU per turn, ms | e2e p50, ms | errors | beginnings found / missed (cumulative) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
for r in $(seq 1 "$ROUNDS"); do
  for (( k = 0; k < ${#names[@]}; k++ )); do
    n=${names[$(( (k + r - 1) % ${#names[@]} ))]}
    json="$OUT/$n-$r.json"
    cpu0=$(tb_cpu_ms "${pid[$n]}")
    drive "$n" "$json" "$RUN_SECONDS" "$r"
    cpu1=$(tb_cpu_ms "${pid[$n]}")
    jq -r --arg n "$n" --arg r "$r" --arg cpu "$(( cpu1 - cpu0 ))" --arg found "$(found "$n")" '.overall |
      "| \($n) | \($r) | \(.ok) | \(.req_per_s | . * 10 | round / 10) | \(.prompt_tokens / ([.ok, 1] | max) | round)"
      + " | \(($cpu | tonumber) / ([.ok, 1] | max) | . * 1000 | round / 1000) | \(.e2e_ms.p50 | . * 100 | round / 100)"
      + " | \(.errors) | \($found | split(" ") | join(" / ")) |"' "$json"
  done
done
echo "# reports: $OUT"
