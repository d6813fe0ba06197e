#!/usr/bin/env bash
# A list of prompts in one completion request against the same prompts sent one per request:
# what the router spends per prompt either way. One Tandem router (round-robin) in front of one
# zero-cost null engine (tandem_router_overhead's upstream: answers at once), wrk as the client
# (bench/wrk-post.lua), the same number of prompts in flight in each pair of rows: C connections
# of one prompt against C/K connections of K prompts. Rows are run in turns, ROUNDS times.
#
#   bench/prompt-list.sh
#
# Knobs (environment): LIST (8: prompts per listed request), CONNECTIONS ("8 64": prompts in
# flight), MODES ("plain stream"), ROUNDS (3), SECONDS_PER_RUN (5), WARMUP_SECONDS (15),
# PROMPT_LEN (32 token ids), OUTPUT_LEN (16), TANDEM_JAR, ROUTER_JAVA_OPTS (-Xmx512m).
# Prints one table: per row the medians over rounds of prompts/s, request p50 and router CPU per
# prompt (user + system, /proc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/lib-serving.sh
source "$here/lib-serving.sh"

LIST=${LIST:-8}
CONNECTIONS=${CONNECTIONS:-"8 64"}
MODES=${MODES:-"plain stream"}
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${SECONDS_PER_RUN:-5}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
PROMPT_LEN=${PROMPT_LEN:-32}
OUTPUT_LEN=${OUTPUT_LEN:-16}
export TANDEM_JAVA_OPTS="${ROUTER_JAVA_OPTS:--Xmx512m}"
export NULL_ENGINE_JAVA_OPTS="$TANDEM_JAVA_OPTS"

tb_need wrk wrk
tb_need jq jq
tb_ensure_jar
WORK=$(mktemp -d /tmp/tandem-prompt-list.XXXXXX)
trap 'tb_stop_all; rm -rf "$WORK"' EXIT
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null

# bodies: body-<mode>-<k>.json, k prompts of PROMPT_LEN ids each (a list when k > 1)
ids=$(seq -s, 3 $((PROMPT_LEN + 2)))
for mode in plain stream; do
  stream=false
  [[ $mode == stream ]] && stream=true
  for k in 1 "$LIST"; do
    prompt="[$ids]"
    if (( k > 1 )); then
      prompt="[$(for ((i = 0; i < k; i++)); do printf '%s[%s]' "$([[ $i -gt 0 ]] && echo ,)" "$ids"; done)]"
    fi
    printf '{"prompt":%s,"max_tokens":%d,"temperature":0,"stream":%s,"debug_config":{"ignore_eos":true}}' \
      "$prompt" "$OUTPUT_LEN" "$stream" > "$WORK/body-$mode-$k.json"
  done
done

engine_port=$(tb_free_port)
router_port=$(tb_free_port)
tb_log "starting the router (round-robin) with one zero-cost null engine on port $engine_port"
tb_start_zero_router "$WORK/router.log" "$WORK/model" round-robin "$router_port" "$engine_port" \
  "$WORK/logs"
router_pid=$TB_LAST_PID
url="http://127.0.0.1:$router_port"
tb_wait_http "$url/v1/models" 300 "$router_pid" "$WORK/router.log"

run() { # mode k conns seconds -> "requests p50_ms errors cpu_ms"
  local mode="$1" k="$2" conns="$3" secs="$4" before after
  before=$(tb_cpu_ms "$router_pid")
  WRK_BODY_FILE="$WORK/body-$mode-$k.json" wrk -t1 -c"$conns" -d"${secs}s" --timeout 10s \
    -s "$here/wrk-post.lua" "$url/v1/completions" > "$WORK/wrk.out" 2>&1 || true
  after=$(tb_cpu_ms "$router_pid")
  awk -v cpu=$((after - before)) '$1 == "WRK" { printf "%d %.4f %d %d\n", $2, $4 / 1000, $6, cpu; found = 1 }
    END { if (!found) exit 1 }' "$WORK/wrk.out" || tb_die "wrk wrote no summary"
}

tb_log "warming up for ${WARMUP_SECONDS} s"
for mode in $MODES; do
  run "$mode" 1 8 "$((WARMUP_SECONDS / 4 + 1))" > /dev/null
  run "$mode" "$LIST" 1 "$((WARMUP_SECONDS / 4 + 1))" > /dev/null
done

results="$WORK/results"
: > "$results"
for ((r = 1; r <= ROUNDS; r++)); do
  for mode in $MODES; do
    for prompts in $CONNECTIONS; do
      for k in 1 "$LIST"; do
        conns=$((prompts / k))
        (( conns >= 1 )) || continue
        read -r requests p50 errors cpu < <(run "$mode" "$k" "$conns" "$SECONDS_PER_RUN")
        echo "$mode $prompts $k $conns $requests $p50 $errors $cpu" >> "$results"
        tb_log "round $r: $mode, $prompts prompts in flight as $conns x $k: $requests requests, p50 $p50 ms, $errors errors, router $cpu ms CPU"
      done
    done
  done
done

echo "# $(tb_machine); load average (1 min) after: $(tb_load); $SECONDS_PER_RUN s per run, $ROUNDS rounds"
echo
echo "| mode | prompts in flight | prompts per request | connections | prompts/s | request p50 ms | router CPU per prompt, us | errors |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
sort -k1,1 -k2,2n -k3,3n "$results" | awk -v secs="$SECONDS_PER_RUN" '
  function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  { key = $1 " " $2 " " $3 " " $4
    if (!(key in rate)) order[++rows] = key
    rate[key] = rate[key] " " ($5 * $3 / secs)
    p50[key] = p50[key] " " $6
    cpu[key] = cpu[key] " " ($8 * 1000 / ($5 * $3))
    errors[key] += $7 }
  END { for (i = 1; i <= rows; i++) { key = order[i]; split(key, f, " ")
      printf "| %s | %d | %d | %d | %.0f | %.3f | %.1f | %d |\n", f[1], f[2], f[3], f[4],
        median(rate[key]), median(p50[key]), median(cpu[key]), errors[key] } }'
