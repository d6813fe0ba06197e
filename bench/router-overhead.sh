#!/usr/bin/env bash
# Router overhead: the same seeded workload (tiny model, short outputs, 64 concurrent streams) sent
#   (a) straight to one builtin engine,
#   (b) through the Tandem router in round-robin mode in front of that same engine,
#   (c) through Debian's nginx as a reverse proxy to that same engine,
# in ROUNDS rounds, each round running the three back to back in a rotating order. Reported: the
# median per setup, and the added latency as the median over rounds of the paired per-round
# difference from direct (the engine's own time dominates and drifts, pairing cancels most of it).
#
# Environment knobs: ROUNDS (3), REQUESTS per run (640), CONCURRENCY (64), PROMPT_LEN (32),
# OUTPUT_LEN (16), SEED (1), OUT_DIR (results folder), KEEP_TMP=1 keeps the work folder.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

ROUNDS=${ROUNDS:-3}
REQUESTS=${REQUESTS:-640}
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

tb_log "making the tiny model"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null

ENGINE_PORT=$(tb_free_port)
ROUTER_PORT=$(tb_free_port)
NGINX_PORT=$(tb_free_port)

tb_log "starting the Tandem router (round-robin) with one builtin engine on port $ENGINE_PORT"
tb_start "$WORK/router.log" "$TB_TANDEM" router "$WORK/model" --router-mode round-robin \
  --router-host 127.0.0.1 --router-port "$ROUTER_PORT" --endpoint-ports "$ENGINE_PORT" \
  --log-dir "$WORK/logs" --engine-jvm-opts="${ENGINE_JVM_OPTS:--Xmx512m}"
ROUTER_PID=$TB_LAST_PID
tb_wait_http "http://127.0.0.1:$ROUTER_PORT/v1/models" 300 "$ROUTER_PID" "$WORK/router.log"
tb_wait_http "http://127.0.0.1:$ENGINE_PORT/v1/models" 30 "$ROUTER_PID" "$WORK/router.log"

# nginx as users run it in front of SSE backends: HTTP/1.1 keep-alive upstream, no buffering.
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
    server 127.0.0.1:$ENGINE_PORT;
    keepalive 256;
  }
  server {
    listen 127.0.0.1:$NGINX_PORT;
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
tb_log "starting nginx $(nginx -v 2>&1 | sed 's/.*\///') on port $NGINX_PORT"
tb_start "$WORK/nginx.log" nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -g 'daemon off;'
tb_wait_http "http://127.0.0.1:$NGINX_PORT/v1/models" 20 "$TB_LAST_PID" "$WORK/nginx.log"

declare -A URL=(
  [direct]="http://127.0.0.1:$ENGINE_PORT"
  [tandem]="http://127.0.0.1:$ROUTER_PORT"
  [nginx]="http://127.0.0.1:$NGINX_PORT"
)
SETUPS=(direct tandem nginx)
COMMON=(--prompt-kind ids --model-dir "$WORK/model" --first-token-id 3 --prompt-len "$PROMPT_LEN" --output-len "$OUTPUT_LEN"
  --concurrency "$CONCURRENCY" --warmup "$CONCURRENCY" --seed "$SEED")

LOAD_BEFORE=$(tb_load)
tb_log "warming up the engine and each path (not measured)"
for s in "${SETUPS[@]}"; do
  tb_bench "$WORK/warmup-$s.json" --url "${URL[$s]}" "${COMMON[@]}" --requests "$CONCURRENCY"
done

for r in $(seq 1 "$ROUNDS"); do
  for i in 0 1 2; do
    s=${SETUPS[$(( (i + r - 1) % 3 ))]}
    tb_log "round $r/$ROUNDS: $s (${URL[$s]})"
    tb_bench "$OUT/$s-$r.json" --url "${URL[$s]}" "${COMMON[@]}" --requests "$REQUESTS"
  done
done

# The router's in-flight counters must all be back at zero once the runs have ended.
metrics=$(curl -sf "http://127.0.0.1:$ROUTER_PORT/metrics" || true)
inflight=$(printf '%s\n' "$metrics" | grep -iE 'in_?flight' | grep -v '^#' || true)
if [[ -z "$inflight" ]]; then
  inflight_note="router /metrics shows no in-flight counter"
elif printf '%s\n' "$inflight" | awk '{ if ($NF + 0 != 0) bad = 1 } END { exit bad }'; then
  inflight_note="router in-flight counters all 0 after the runs ($(printf '%s\n' "$inflight" | wc -l) series)"
else
  inflight_note="NOT ZERO: $(printf '%s' "$inflight" | tr '\n' ' ')"
fi

{
  echo "# router overhead  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
  echo "# tiny model, ids prompts $PROMPT_LEN tokens, $OUTPUT_LEN output tokens (ignore_eos), concurrency $CONCURRENCY,"
  echo "# $REQUESTS measured requests per run, $ROUNDS rounds, seed $SEED; latencies in ms"
  echo "# load average (1 min) before: $LOAD_BEFORE, after: $(tb_load)"
  for r in $(seq 1 "$ROUNDS"); do
    for s in "${SETUPS[@]}"; do
      jq -r --arg s "$s" --arg r "$r" '.overall | [$s, $r, .req_per_s, .output_tok_per_s, .ttft_ms.p50, .ttft_ms.p99,
        .e2e_ms.p50, .e2e_ms.p99, .tpot_ms.p50, .tpot_ms.p99, .errors, .outside_engine_ms.ttft.p50,
        .outside_engine_ms.ttft.p99, .outside_engine_ms.e2e.p50, .outside_engine_ms.e2e.p99] | map(tostring) | join("\t")' "$OUT/$s-$r.json"
    done
  done >"$OUT/rounds.tsv"
  awk -v base=direct -v others="tandem nginx" -f "$here/summarize-rounds.awk" "$OUT/rounds.tsv"
  echo
  echo "$inflight_note"
  errors=$(awk -F'\t' '{ e += $11 } END { print e + 0 }' "$OUT/rounds.tsv")
  echo "errors in all measured runs: $errors"
  echo "reports: $OUT"
} | tee "$OUT/summary.txt"
