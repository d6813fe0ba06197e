#!/usr/bin/env bash
# Router overhead: the same seeded workload (64 concurrent streams, short outputs) sent
#   (a) straight to one engine,
#   (b) through the Tandem router in round-robin mode in front of that same engine,
#   (c) through Debian's nginx as a reverse proxy to that same engine,
# in ROUNDS rounds, each running the three back to back in a rotating order. Three passes:
#   tiny  the builtin engine serving the tiny model (what the issue asks for);
#   null  a null engine (bench/null-engine-python: the engine API with no model, first token after
#         20 ms, then one every 5 ms), so that the engine's own time is constant and the few
#         milliseconds a proxy adds are not buried under the model's scheduling noise;
#   zero  the null engine with zero delays (a zero-cost upstream: the whole 16-chunk answer in one
#         write), so that only the proxies cost anything; driven by wrk (Debian's C load
#         generator, bench/wrk-post.lua) and by tandem bench, at 1 and 64 connections, streaming
#         and non-streaming, each cell a timed run (ZERO_SECONDS) per setup, setups rotated per
#         round. Reported per cell: medians over rounds of req/s, latency p50/p99 and proxy CPU
#         per request; Tandem / nginx throughput and CPU ratios and added p50 over direct as
#         medians of per-round (paired) values (bench/summarize-zero.awk).
# Reported per pass: the median per setup, and the added latency as the median over rounds of the
# paired per-round difference from direct; throughput ratios; errors; the router's in-flight
# counters after the runs.
#
# Environment knobs: PASSES ("tiny null zero"), ROUNDS (3), REQUESTS per run (tiny 640, null 3200),
# WARMUP_REQUESTS per path before the rounds (REQUESTS/4; a JVM router reaches steady state after
# several thousand requests), CONCURRENCY (64), PROMPT_LEN (32), OUTPUT_LEN (16), SEED (1),
# TANDEM_JAVA_OPTS (JVM options of every Tandem process, default -Xmx512m), ROUTER_JAVA_OPTS (of the
# router process only, e.g. another GC or -Xlog:gc:file=...), OUT_DIR, KEEP_TMP=1.
# zero pass: ZERO_SECONDS per run (5), ZERO_WARMUP_SECONDS per setup and client before the
# rounds (15), ZERO_CLIENTS ("wrk bench"), ZERO_CONNECTIONS ("1 64"), ZERO_MODES ("stream plain"),
# WRK_THREADS (1), ROUTER_EXTRA_ARGS (more `tandem router` flags), BASELINE_JAR (another build's
# tandem.jar: its router, with its own zero-cost engine, joins the rotation as setup "baseline",
# for before/after in one run; BASELINE_EXTRA_ARGS, if set, are its flags instead of
# ROUTER_EXTRA_ARGS, e.g. "--router-loops 1" to set one build against itself; BASELINE_JAVA_OPTS,
# if set, its JVM options instead of ROUTER_JAVA_OPTS), ZERO_DISAGG (1: a second Tandem router in disagg mode over a
# zero-cost prefill and decode engine joins as setup "disagg": every request is MLC's three
# MicroServing calls, prep_recv and start_generate on D, remote_send on P; 0 leaves it out),
# ZERO_FLOOR (1: `tandem bench relay-floor` joins as setup "floor": the router's transport, a
# Vert.x HttpServer and keep-alive Netty connections, relaying bytes unchanged with none of the
# router's work, so that what the frameworks cost and what Tandem's own steps cost stand apart;
# 0 leaves it out), ZERO_NETTY_FLOOR (0: 1 adds setup "nettyfloor", `tandem bench relay-floor
# --server netty`: the same relay on a bare Netty pipeline instead of Vert.x's HttpServer, so
# that what Vert.x's server costs beside Netty alone shows), ZERO_TOKEN_GAP_MS (0: the engines write each answer at once; N: one token
# every N ms, each in its own write, so every proxy relays tokens one read at a time as it does
# in service; for the cost per token in that shape, not for throughput; its warm-up defaults
# to 30 s).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

PASSES=${PASSES:-tiny null zero}
ROUNDS=${ROUNDS:-3}
CONCURRENCY=${CONCURRENCY:-64}
PROMPT_LEN=${PROMPT_LEN:-32}
OUTPUT_LEN=${OUTPUT_LEN:-16}
SEED=${SEED:-1}
WORK=$(mktemp -d /tmp/tandem-router-overhead.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model" "$WORK/nginx"' EXIT

tb_need curl curl
tb_need jq jq
tb_need nginx nginx
if [[ " $PASSES " == *" zero "* ]]; then tb_need wrk wrk; fi
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx512m}"
# Engines the router launches (the null engine through bench/null-engine-python) keep these.
export NULL_ENGINE_JAVA_OPTS="$TANDEM_JAVA_OPTS"
ROUTER_JAVA_OPTS="${ROUTER_JAVA_OPTS:-$TANDEM_JAVA_OPTS}"

tb_log "making the tiny model"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null

# One timed run of the zero pass: prints "requests req/s p50_ms p99_ms errors" (requests: all that
# the run sent, warm-up included, for CPU per request; latency of the whole answer).
zero_run() { # client connections mode url json-or-log
  local client="$1" conns="$2" mode="$3" url="$4" out="$5" secs="${6:-$ZERO_SECONDS}"
  if [[ "$client" == wrk ]]; then
    local threads=$(( conns < WRK_THREADS ? conns : WRK_THREADS ))
    WRK_BODY_FILE="$WORK/body-$mode.json" wrk -t"$threads" -c"$conns" -d"${secs}s" --timeout 10s \
      -s "$here/wrk-post.lua" "$url/v1/completions" >"$out" 2>&1 || true
    # The script's done() writes: WRK requests duration_us p50_us p99_us errors
    awk '$1 == "WRK" { printf "%d %.1f %.4f %.4f %d\n", $2, $2 / ($3 / 1e6), $4 / 1000, $5 / 1000, $6; found = 1 }
      END { if (!found) exit 1 }' "$out" || tb_die "wrk wrote no summary ($out)"
  else
    local flags=()
    [[ "$mode" == plain ]] && flags=(--no-stream)
    tb_bench "$out" --url "$url" --prompt-kind ids --model-dir "$WORK/model" --first-token-id 3 \
      --prompt-len "$PROMPT_LEN" --output-len "$OUTPUT_LEN" --concurrency "$conns" --warmup "$conns" \
      --seed "$SEED" --duration "$secs" "${flags[@]}"
    jq -r '"\(.overall.requests + .warmup_requests_done) \(.overall.req_per_s) \(.overall.e2e_ms.p50) \(.overall.e2e_ms.p99) \(.overall.errors)"' "$out"
  fi
}

run_zero_pass() {
  local engine_port router_port nginx_port r i s client c mode note
  ZERO_SECONDS=${ZERO_SECONDS:-5}
  ZERO_TOKEN_GAP_MS=${ZERO_TOKEN_GAP_MS:-0}
  # Answers 16 ms long reach the JIT more slowly: 8 s left the compiler with half the router's CPU.
  [[ "$ZERO_TOKEN_GAP_MS" == 0 ]] || ZERO_WARMUP_SECONDS=${ZERO_WARMUP_SECONDS:-30}
  WRK_THREADS=${WRK_THREADS:-1}
  engine_port=$(tb_free_port); router_port=$(tb_free_port); nginx_port=$(tb_free_port)
  tb_log "[zero] starting the Tandem router (round-robin) with one zero-cost null engine on port $engine_port"
  # shellcheck disable=SC2086
  NULL_TOKEN_GAP_MS="$ZERO_TOKEN_GAP_MS" TANDEM_JAVA_OPTS="$ROUTER_JAVA_OPTS" \
    tb_start_zero_router "$WORK/router-zero.log" "$WORK/model" round-robin "$router_port" \
    "$engine_port" "$WORK/logs-zero" ${ROUTER_EXTRA_ARGS:-}
  local router_pid=$TB_LAST_PID
  tb_wait_http "http://127.0.0.1:$router_port/v1/models" 300 "$TB_LAST_PID" "$WORK/router-zero.log"
  tb_wait_http "http://127.0.0.1:$engine_port/v1/models" 30 "$TB_LAST_PID" "$WORK/router-zero.log"
  local baseline_pid="" baseline_port=""
  if [[ -n "${BASELINE_JAR:-}" ]]; then
    local baseline_engine_port
    baseline_engine_port=$(tb_free_port); baseline_port=$(tb_free_port)
    tb_log "[zero] starting the baseline router ($BASELINE_JAR) with its own zero-cost engine"
    # shellcheck disable=SC2086
    TANDEM_JAR="$BASELINE_JAR" NULL_TOKEN_GAP_MS="$ZERO_TOKEN_GAP_MS" \
      TANDEM_JAVA_OPTS="${BASELINE_JAVA_OPTS-$ROUTER_JAVA_OPTS}" \
      tb_start_zero_router "$WORK/router-baseline.log" "$WORK/model" round-robin "$baseline_port" \
      "$baseline_engine_port" "$WORK/logs-baseline" ${BASELINE_EXTRA_ARGS-${ROUTER_EXTRA_ARGS:-}}
    baseline_pid=$TB_LAST_PID
    tb_wait_http "http://127.0.0.1:$baseline_port/v1/models" 300 "$TB_LAST_PID" "$WORK/router-baseline.log"
  fi
  local disagg_pid="" disagg_port=""
  if [[ "${ZERO_DISAGG:-1}" != 0 ]]; then
    local p_port d_port
    p_port=$(tb_free_port); d_port=$(tb_free_port); disagg_port=$(tb_free_port)
    local nvshmem_home
    nvshmem_home=$(tb_nvshmem_home "$WORK/nvshmem-stand-in")
    tb_log "[zero] starting the Tandem router (disagg) with a zero-cost P on $p_port and D on $d_port"
    # shellcheck disable=SC2086
    NVSHMEM_HOME="$nvshmem_home" NULL_TOKEN_GAP_MS="$ZERO_TOKEN_GAP_MS" TANDEM_JAVA_OPTS="$ROUTER_JAVA_OPTS" \
      tb_start_zero_router "$WORK/router-disagg.log" "$WORK/model" disagg "$disagg_port" \
      "$p_port $d_port" "$WORK/logs-disagg" ${ROUTER_EXTRA_ARGS:-}
    disagg_pid=$TB_LAST_PID
    tb_wait_http "http://127.0.0.1:$disagg_port/v1/models" 300 "$TB_LAST_PID" "$WORK/router-disagg.log"
  fi
  tb_log "[zero] starting nginx $(nginx -v 2>&1 | sed 's/.*\///') on port $nginx_port"
  tb_start_nginx "$WORK" "$engine_port" "$nginx_port"
  local nginx_pid=$TB_LAST_PID
  local floor_pid="" floor_port=""
  if [[ "${ZERO_FLOOR:-1}" != 0 ]]; then
    floor_port=$(tb_free_port)
    tb_log "[zero] starting the relay floor (the router's transport, none of its work) on port $floor_port"
    TANDEM_JAVA_OPTS="$ROUTER_JAVA_OPTS" tb_start "$WORK/floor.log" "$TB_TANDEM" bench relay-floor \
      --port "$floor_port" --upstream-port "$engine_port"
    floor_pid=$TB_LAST_PID
    tb_wait_http "http://127.0.0.1:$floor_port/v1/models" 60 "$floor_pid" "$WORK/floor.log"
  fi
  local nettyfloor_pid="" nettyfloor_port=""
  if [[ "${ZERO_NETTY_FLOOR:-0}" != 0 ]]; then
    nettyfloor_port=$(tb_free_port)
    tb_log "[zero] starting the Netty relay floor (the same relay without Vert.x's server) on port $nettyfloor_port"
    TANDEM_JAVA_OPTS="$ROUTER_JAVA_OPTS" tb_start "$WORK/nettyfloor.log" "$TB_TANDEM" bench relay-floor \
      --server netty --port "$nettyfloor_port" --upstream-port "$engine_port"
    nettyfloor_pid=$TB_LAST_PID
    tb_wait_http "http://127.0.0.1:$nettyfloor_port/v1/models" 60 "$nettyfloor_pid" "$WORK/nettyfloor.log"
  fi

  declare -A url=(
    [direct]="http://127.0.0.1:$engine_port"
    [tandem]="http://127.0.0.1:$router_port"
    [nginx]="http://127.0.0.1:$nginx_port"
    [baseline]="http://127.0.0.1:$baseline_port"
    [disagg]="http://127.0.0.1:$disagg_port"
    [floor]="http://127.0.0.1:$floor_port"
    [nettyfloor]="http://127.0.0.1:$nettyfloor_port"
  )
  local setups=(direct tandem nginx)
  [[ -n "$baseline_pid" ]] && setups+=(baseline)
  [[ -n "$disagg_pid" ]] && setups+=(disagg)
  [[ -n "$floor_pid" ]] && setups+=(floor)
  [[ -n "$nettyfloor_pid" ]] && setups+=(nettyfloor)
  local n_setups=${#setups[@]}
  tb_wrk_bodies "$WORK" "$PROMPT_LEN" "$OUTPUT_LEN"
  for s in "${setups[@]}"; do
    for mode in stream plain; do
      curl -sf -H 'content-type: application/json' --data-binary "@$WORK/body-$mode.json" \
        "${url[$s]}/v1/completions" >"$WORK/check-$s-$mode.txt" || tb_die "$s does not answer a $mode request"
    done
    grep -q '"finish_reason":"length"' "$WORK/check-$s-stream.txt" && grep -q '\[DONE\]' "$WORK/check-$s-stream.txt" \
      || tb_die "$s: the streamed answer is not whole: $(head -c 300 "$WORK/check-$s-stream.txt")"
    jq -e '.choices[0].text | length == '"$OUTPUT_LEN" "$WORK/check-$s-plain.txt" >/dev/null \
      || tb_die "$s: the whole answer is not $OUTPUT_LEN tokens: $(head -c 300 "$WORK/check-$s-plain.txt")"
  done

  local clients=(${ZERO_CLIENTS:-wrk bench}) connections=(${ZERO_CONNECTIONS:-1 64}) modes=(${ZERO_MODES:-stream plain})
  local load_before
  load_before=$(tb_load)
  tb_log "[zero] warming up each path (${ZERO_WARMUP_SECONDS:-15} s per setup and client, not measured)"
  for s in "${setups[@]}"; do
    for client in "${clients[@]}"; do
      for mode in "${modes[@]}"; do
        zero_run "$client" 64 "$mode" "${url[$s]}" "$WORK/warmup-$s-$client-$mode.out" \
          $(( (${ZERO_WARMUP_SECONDS:-15} + ${#modes[@]} - 1) / ${#modes[@]} )) >/dev/null
      done
    done
  done
  : >"$OUT/zero-runs.tsv"
  for r in $(seq 1 "$ROUNDS"); do
    for client in "${clients[@]}"; do
      for c in "${connections[@]}"; do
        for mode in "${modes[@]}"; do
          for (( i = 0; i < n_setups; i++ )); do
            s=${setups[$(( (i + r - 1) % n_setups ))]}
            local proxy_pids=() cpu0 cpu1 sys0 sys1 line
            case "$s" in
              tandem) proxy_pids=("$router_pid") ;;
              baseline) proxy_pids=("$baseline_pid") ;;
              disagg) proxy_pids=("$disagg_pid") ;;
              floor) proxy_pids=("$floor_pid") ;;
              nettyfloor) proxy_pids=("$nettyfloor_pid") ;;
              nginx) proxy_pids=("$nginx_pid" $(pgrep -P "$nginx_pid" || true)) ;;
            esac
            cpu0=$(tb_cpu_ms "${proxy_pids[@]}"); sys0=$(tb_sys_ms "${proxy_pids[@]}")
            line=$(zero_run "$client" "$c" "$mode" "${url[$s]}" "$OUT/zero-$client-$c-$mode-$s-$r.out")
            cpu1=$(tb_cpu_ms "${proxy_pids[@]}"); sys1=$(tb_sys_ms "${proxy_pids[@]}")
            tb_log "[zero] round $r/$ROUNDS $client c=$c $mode $s: $line cpu ${s/direct/-} $(( cpu1 - cpu0 )) ms"
            # client connections mode setup round requests req/s p50 p99 errors proxy_cpu_ms proxy_sys_ms
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$client" "$c" "$mode" "$s" "$r" "$(tr ' ' '\t' <<<"$line" | sed 's/\t$//')" \
              "$(( cpu1 - cpu0 ))" "$(( sys1 - sys0 ))" >>"$OUT/zero-runs.tsv"
          done
        done
      done
    done
  done

  inflight=$( { curl -sf "http://127.0.0.1:$router_port/metrics"
    [[ -z "$disagg_pid" ]] || curl -sf "http://127.0.0.1:$disagg_port/metrics"; } | grep -iE 'in_?flight' | grep -v '^#' || true)
  if [[ -n "$inflight" ]] && printf '%s\n' "$inflight" | awk '{ if ($NF + 0 != 0) bad = 1 } END { exit bad }'; then
    note="router in-flight counters all 0 after the runs"
  else
    note="router in-flight counters: ${inflight:-none shown}"
  fi
  tb_stop_all
  {
    echo "## pass: zero  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
    if [[ "$ZERO_TOKEN_GAP_MS" == 0 ]]; then
      echo "# zero-cost upstream (null engine, no delays: the whole answer in one write), ids prompts $PROMPT_LEN tokens,"
    else
      echo "# null engine, first token at once, then one token every $ZERO_TOKEN_GAP_MS ms (a write each), ids prompts $PROMPT_LEN tokens,"
    fi
    echo "# $OUTPUT_LEN output tokens; ${ZERO_SECONDS} s per run, $ROUNDS rounds, setups rotated per round; clients: ${clients[*]} (wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $WRK_THREADS thread)"
    echo "# load average (1 min) before: $load_before, after: $(tb_load); router JVM options: $ROUTER_JAVA_OPTS ${ROUTER_EXTRA_ARGS:-}"
    awk -v setups="direct nginx ${baseline_pid:+baseline }tandem${disagg_pid:+ disagg}${floor_pid:+ floor}${nettyfloor_pid:+ nettyfloor}" -f "$here/summarize-zero.awk" "$OUT/zero-runs.tsv"
    echo "$note"
  } | tee "$OUT/zero-summary.txt"
}

run_pass() { # tiny|null
  local pass="$1" engine_port router_port nginx_port requests s r i engine_args inflight note
  engine_port=$(tb_free_port); router_port=$(tb_free_port); nginx_port=$(tb_free_port)
  if [[ "$pass" == null ]]; then
    requests=${REQUESTS:-3200}
    engine_args=(--engine mlc --python "$here/null-engine-python")
  else
    requests=${REQUESTS:-640}
    engine_args=(--engine-jvm-opts="${ENGINE_JVM_OPTS:--Xmx512m}")
  fi
  tb_log "[$pass] starting the Tandem router (round-robin) with one engine on port $engine_port"
  TANDEM_JAVA_OPTS="$ROUTER_JAVA_OPTS" tb_start "$WORK/router-$pass.log" "$TB_TANDEM" router \
    "$WORK/model" --router-mode round-robin --router-host 127.0.0.1 --router-port "$router_port" --endpoint-ports "$engine_port" \
    --log-dir "$WORK/logs-$pass" "${engine_args[@]}"
  local router_pid=$TB_LAST_PID
  tb_wait_http "http://127.0.0.1:$router_port/v1/models" 300 "$TB_LAST_PID" "$WORK/router-$pass.log"
  tb_wait_http "http://127.0.0.1:$engine_port/v1/models" 30 "$TB_LAST_PID" "$WORK/router-$pass.log"
  tb_log "[$pass] starting nginx $(nginx -v 2>&1 | sed 's/.*\///') on port $nginx_port"
  tb_start_nginx "$WORK" "$engine_port" "$nginx_port"
  local nginx_pid=$TB_LAST_PID

  declare -A url=(
    [direct]="http://127.0.0.1:$engine_port"
    [tandem]="http://127.0.0.1:$router_port"
    [nginx]="http://127.0.0.1:$nginx_port"
  )
  local setups=(direct tandem nginx)
  local common=(--prompt-kind ids --model-dir "$WORK/model" --first-token-id 3 --prompt-len "$PROMPT_LEN"
    --output-len "$OUTPUT_LEN" --concurrency "$CONCURRENCY" --warmup "$CONCURRENCY" --seed "$SEED")
  local load_before
  load_before=$(tb_load)
  tb_log "[$pass] warming up the engine and each path (not measured)"
  for s in "${setups[@]}"; do
    tb_bench "$WORK/warmup-$pass-$s.json" --url "${url[$s]}" "${common[@]}" \
      --requests "${WARMUP_REQUESTS:-$(( requests / 4 ))}"
  done
  for r in $(seq 1 "$ROUNDS"); do
    for i in 0 1 2; do
      s=${setups[$(( (i + r - 1) % 3 ))]}
      tb_log "[$pass] round $r/$ROUNDS: $s (${url[$s]})"
      # CPU of the proxy in between (router JVM; nginx master and workers) during the measured run.
      local proxy_pids=() cpu0 cpu1
      case "$s" in
        tandem) proxy_pids=("$router_pid") ;;
        nginx) proxy_pids=("$nginx_pid" $(pgrep -P "$nginx_pid" || true)) ;;
      esac
      cpu0=$(tb_cpu_ms "${proxy_pids[@]}")
      tb_bench "$OUT/$pass-$s-$r.json" --url "${url[$s]}" "${common[@]}" --requests "$requests"
      cpu1=$(tb_cpu_ms "${proxy_pids[@]}")
      echo "$s $r $(( cpu1 - cpu0 ))" >>"$OUT/$pass-proxy-cpu.txt"
    done
  done

  # The router's in-flight counters must all be back at zero once the runs have ended.
  inflight=$(curl -sf "http://127.0.0.1:$router_port/metrics" | grep -iE 'in_?flight' | grep -v '^#' || true)
  if [[ -z "$inflight" ]]; then
    note="router /metrics shows no in-flight counter"
  elif printf '%s\n' "$inflight" | awk '{ if ($NF + 0 != 0) bad = 1 } END { exit bad }'; then
    note="router in-flight counters all 0 after the runs ($(printf '%s\n' "$inflight" | wc -l) series)"
  else
    note="NOT ZERO: $(printf '%s' "$inflight" | tr '\n' ' ')"
  fi
  tb_stop_all

  {
    echo "## pass: $pass  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
    if [[ "$pass" == null ]]; then
      echo "# null engine (no model; first token 20 ms, then every 5 ms), ids prompts $PROMPT_LEN tokens,"
    else
      echo "# builtin engine, tiny model, ids prompts $PROMPT_LEN tokens,"
    fi
    echo "# $OUTPUT_LEN output tokens (ignore_eos), concurrency $CONCURRENCY, $requests measured requests per run,"
    echo "# $ROUNDS rounds, seed $SEED; latencies in ms; load average (1 min) before: $load_before, after: $(tb_load)"
    echo "# router JVM options: $ROUTER_JAVA_OPTS; warm-up per path: ${WARMUP_REQUESTS:-$(( requests / 4 ))} requests"
    for r in $(seq 1 "$ROUNDS"); do
      for s in "${setups[@]}"; do
        jq -r --arg s "$s" --arg r "$r" '.overall | [$s, $r, .req_per_s, .output_tok_per_s, .ttft_ms.p50, .ttft_ms.p99,
          .e2e_ms.p50, .e2e_ms.p99, .tpot_ms.p50, .tpot_ms.p99, .errors, .outside_engine_ms.ttft.p50,
          .outside_engine_ms.ttft.p99, .outside_engine_ms.e2e.p50, .outside_engine_ms.e2e.p99]
          | map(tostring) | join("\t")' "$OUT/$pass-$s-$r.json"
      done
    done >"$OUT/$pass-rounds.tsv"
    awk -v base=direct -v others="tandem nginx" -f "$here/summarize-rounds.awk" "$OUT/$pass-rounds.tsv"
    # Warm-up requests of each measured run included: CPU was sampled around the whole run.
    awk -v n="$(( requests + CONCURRENCY ))" '$1 != "direct" { c[$1] = c[$1] " " $3 }
      END { for (s in c) { k = split(c[s], a, " "); for (i = 2; i <= k; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
            printf "proxy CPU per request, %s: %.3f ms (median of %d runs; user + system of the proxy processes)\n", s, a[int((k + 1) / 2)] / n, k } }' \
      "$OUT/$pass-proxy-cpu.txt"
    echo "$note"
    echo "errors in all measured runs: $(awk -F'\t' '{ e += $11 } END { print e + 0 }' "$OUT/$pass-rounds.tsv")"
    echo
  } | tee "$OUT/$pass-summary.txt"
}

for pass in $PASSES; do
  if [[ "$pass" == zero ]]; then run_zero_pass; else run_pass "$pass"; fi
done
echo "reports: $OUT"
