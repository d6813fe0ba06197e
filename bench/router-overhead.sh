#!/usr/bin/env bash
# Router overhead: the same seeded workload (64 concurrent streams, short outputs) sent
#   (a) straight to one engine,
#   (b) through the Tandem router in round-robin mode in front of that same engine,
#   (c) through Debian's nginx as a reverse proxy to that same engine,
# in ROUNDS rounds, each running the three back to back in a rotating order. Two passes:
#   tiny  the builtin engine serving the tiny model (what the issue asks for);
#   null  a null engine (bench/null-engine-python: the engine API with no model, first token after
#         20 ms, then one every 5 ms), so that the engine's own time is constant and the few
#         milliseconds a proxy adds are not buried under the model's scheduling noise.
# Reported per pass: the median per setup, and the added latency as the median over rounds of the
# paired per-round difference from direct; throughput ratios; errors; the router's in-flight
# counters after the runs.
#
# Environment knobs: PASSES ("tiny null"), ROUNDS (3), REQUESTS per run (tiny 640, null 3200),
# WARMUP_REQUESTS per path before the rounds (REQUESTS/4; a JVM router reaches steady state after
# several thousand requests), CONCURRENCY (64), PROMPT_LEN (32), OUTPUT_LEN (16), SEED (1),
# TANDEM_JAVA_OPTS (JVM options of every Tandem process, default -Xmx512m), ROUTER_JAVA_OPTS (of the
# router process only, e.g. another GC or -Xlog:gc:file=...), OUT_DIR, KEEP_TMP=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

PASSES=${PASSES:-tiny null}
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
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx512m}"
# Engines the router launches (the null engine through bench/null-engine-python) keep these.
export NULL_ENGINE_JAVA_OPTS="$TANDEM_JAVA_OPTS"
ROUTER_JAVA_OPTS="${ROUTER_JAVA_OPTS:-$TANDEM_JAVA_OPTS}"

tb_log "making the tiny model"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null

# nginx as users run it in front of SSE backends: HTTP/1.1 keep-alive upstream, no buffering.
start_nginx() { # engine-port nginx-port
  rm -rf "$WORK/nginx"
  mkdir -p "$WORK/nginx/logs"
  cat >"$WORK/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  upstream engine {
    server 127.0.0.1:$1;
    keepalive 256;
  }
  server {
    listen 127.0.0.1:$2;
    keepalive_requests 100000;
    location / {
      proxy_pass http://engine;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
NGINX
  tb_start "$WORK/nginx-$1.log" nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon off;'
  tb_wait_http "http://127.0.0.1:$2/v1/models" 20 "$TB_LAST_PID" "$WORK/nginx-$1.log"
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
  start_nginx "$engine_port" "$nginx_port"
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
  run_pass "$pass"
done
echo "reports: $OUT"
