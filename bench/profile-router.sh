#!/usr/bin/env bash
# Where the router's CPU goes: async-profiler (tools.profiler:async-profiler from Maven Central)
# loaded into a running router with jcmd, while wrk drives it in front of a zero-cost upstream
# (the null engine with no delays, as in bench/router-overhead.sh's zero pass). The profile is
# taken after a warm-up, so the JIT has settled, and summarised by bench/summarize-profile.py:
# the share of the router's event-loop samples per part of the request path, the hottest frames,
# and the whole process's samples by thread kind. The collapsed stacks (router.collapsed) stay in
# the output folder for a flame graph (any collapsed-stack viewer).
#
#   bench/profile-router.sh
#
# Knobs (environment): MODE (round-robin | disagg: a prefill and a decode null engine, every
# request MLC's three MicroServing calls | floor: `tandem bench relay-floor`, the router's
# transport with none of its work, in front of the same null engine, profiled instead of the
# router; bench/compare-profiles.py then puts the two side by side in microseconds per
# request), CONNS (64), WARMUP_CONNS (CONNS: 64 warms a one-connection profile as the zero pass
# warms its routers), STREAM (1; 0 for non-streaming), API
# (completions: a prompt of PROMPT_LEN token ids; text: the same endpoint with a prompt of
# PROMPT_LEN words, which the router tokenizes; chat: POST /v1/chat/completions with one user message, through the chat template,
# after CHAT_HISTORY_WORDS (0) words of earlier turns, 100 words a message: every request the same
# conversation, so a router that keeps prompts' beginnings tokenizes only the last turn's tail),
# WARMUP_SECONDS (30), PROFILE_SECONDS (15), EVENT (cpu: perf_events, which charges kernel time to
# the kernel code that spent it; itimer where perf_events are not allowed, but on a VM it charges
# ~1.7x the real share to system calls: 72% vs 42% of the loop, with /proc saying 37% system
# time), INTERVAL (sampling period, 1ms), PROMPT_LEN (32),
# OUTPUT_LEN (16), TOKEN_GAP_MS (0: the engine writes each answer at once; N: a token every N ms,
# each in its own write, as engines stream in service; give it WARMUP_SECONDS of 30 or more),
# ROUTER_JAVA_OPTS (-Xmx512m plus -XX:+DebugNonSafepoints, without which the JIT's inlined code
# is charged to the wrong frames: a 32-id prompt's JsonArray wrapping showed as
# JsonFields.optInt), ROUTER_EXTRA_ARGS, AP_VERSION (3.0), OUT_DIR, KEEP_TMP=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

MODE=${MODE:-round-robin}
CONNS=${CONNS:-64}
STREAM=${STREAM:-1}
PROMPT_LEN=${PROMPT_LEN:-32}
OUTPUT_LEN=${OUTPUT_LEN:-16}
AP_VERSION=${AP_VERSION:-3.0}
WORK=$(mktemp -d /tmp/tandem-profile-router.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model"' EXIT

[[ "$MODE" == round-robin || "$MODE" == disagg || "$MODE" == floor ]] \
  || tb_die "MODE must be round-robin, disagg or floor, not '$MODE'"
tb_need curl curl
tb_need wrk wrk
tb_ensure_jar
jcmd=$(command -v jcmd || true)
[[ -n "$jcmd" ]] || jcmd="$(dirname "$(readlink -f "$(command -v java)")")/jcmd"
[[ -x "$jcmd" ]] || tb_die "jcmd (the JDK's) not found beside $(command -v java)"

ap_jar="$HOME/.m2/repository/tools/profiler/async-profiler/$AP_VERSION/async-profiler-$AP_VERSION.jar"
if [[ ! -f "$ap_jar" ]]; then
  tb_log "fetching async-profiler $AP_VERSION from Maven Central"
  mvn -B -q dependency:get -Dartifact="tools.profiler:async-profiler:$AP_VERSION" >&2
fi
agent="$WORK/libasyncProfiler.so"
python3 - "$ap_jar" "$agent" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z, open(sys.argv[2], "wb") as out:
    out.write(z.read("linux-x64/libasyncProfiler.so"))
PY

tb_log "making the tiny model"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null
router_port=$(tb_free_port)
ports=$(tb_free_port)
if [[ "$MODE" == disagg ]]; then
  ports="$ports $(tb_free_port)"
  NVSHMEM_HOME="$(tb_nvshmem_home "$WORK/nvshmem-stand-in")"
  export NVSHMEM_HOME
fi
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx512m}"
export NULL_ENGINE_JAVA_OPTS="$TANDEM_JAVA_OPTS"
tb_log "starting the router ($MODE) in front of zero-cost null engine(s) on $ports"
# shellcheck disable=SC2086
NULL_TOKEN_GAP_MS="${TOKEN_GAP_MS:-0}" \
  TANDEM_JAVA_OPTS="${ROUTER_JAVA_OPTS:-$TANDEM_JAVA_OPTS -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints}" \
  tb_start_zero_router "$WORK/router.log" "$WORK/model" "${MODE/floor/round-robin}" "$router_port" \
  "$ports" "$WORK/logs" ${ROUTER_EXTRA_ARGS:-}
router_pid=$TB_LAST_PID
tb_wait_http "http://127.0.0.1:$router_port/ready" 300 "$router_pid" "$WORK/router.log"
if [[ "$MODE" == floor ]]; then
  # the router stays up only to run the null engine; the floor in front of it is what is profiled
  floor_port=$(tb_free_port)
  tb_log "starting the relay floor on $floor_port in front of the null engine on $ports"
  TANDEM_JAVA_OPTS="${ROUTER_JAVA_OPTS:-$TANDEM_JAVA_OPTS -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints}" \
    tb_start "$WORK/floor.log" "$TB_TANDEM" bench relay-floor --port "$floor_port" --upstream-port "$ports"
  router_pid=$TB_LAST_PID
  router_port=$floor_port
  tb_wait_http "http://127.0.0.1:$router_port/v1/models" 60 "$router_pid" "$WORK/floor.log"
fi

tb_wrk_bodies "$WORK" "$PROMPT_LEN" "$OUTPUT_LEN"
body="$WORK/body-$([[ "$STREAM" == 1 ]] && echo stream || echo plain).json"
path=/v1/completions
if [[ "${API:-completions}" == text ]]; then
  body="$WORK/body-text.json"
  python3 - "$body" "$PROMPT_LEN" "$OUTPUT_LEN" "$STREAM" <<'PY'
import json, sys
path, words, output_len, stream = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
vocab = "the river was low that summer and people in town said it a good day routers route".split()
body = {"prompt": " ".join(vocab[(i * 7) % len(vocab)] for i in range(words)),
        "max_tokens": output_len, "stream": stream, "debug_config": {"ignore_eos": True}}
if stream:
    body["stream_options"] = {"include_usage": True}
open(path, "w").write(json.dumps(body, separators=(",", ":")))
PY
fi
if [[ "${API:-completions}" == chat ]]; then
  path=/v1/chat/completions
  body="$WORK/body-chat.json"
  python3 - "$body" "${CHAT_HISTORY_WORDS:-0}" "$OUTPUT_LEN" "$STREAM" <<'PY'
import json, sys
path, words, output_len, stream = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
vocab = "the river was low that summer and people in town said it a good day routers route".split()
messages, turn = [], 0
while sum(len(m["content"].split()) for m in messages) < words:
    messages.append({"role": "user" if turn % 2 == 0 else "assistant",
                     "content": " ".join(vocab[(i * 7 + turn) % len(vocab)] for i in range(100))})
    turn += 1
messages.append({"role": "user", "content": "Tell me about routers."})
body = {"messages": messages, "max_tokens": output_len, "stream": stream,
        "debug_config": {"ignore_eos": True}}
if stream:
    body["stream_options"] = {"include_usage": True}
open(path, "w").write(json.dumps(body, separators=(",", ":")))
PY
  curl -sf -H 'content-type: application/json' --data-binary "@$body" \
    "http://127.0.0.1:$router_port$path" >"$WORK/check-chat.txt" \
    || tb_die "the router does not answer a chat request (router log: $WORK/router.log)"
fi
drive() { # seconds out [connections]
  WRK_BODY_FILE="$body" wrk -t1 -c"${3:-$CONNS}" -d"$1s" --timeout 10s -s "$here/wrk-post.lua" \
    "http://127.0.0.1:$router_port$path" >"$2" 2>&1 || true
  awk '$1 == "WRK" { printf "%d requests, %.0f req/s, p50 %.3f ms, %d errors\n", $2, $2 / ($3 / 1e6), $4 / 1000, $6 }' "$2"
}
tb_log "warming up for ${WARMUP_SECONDS:-30} s at ${WARMUP_CONNS:-$CONNS} connection(s): $(drive "${WARMUP_SECONDS:-30}" "$WORK/warmup.out" "${WARMUP_CONNS:-$CONNS}")"
# jcmd reads key=value words as its own arguments: the agent's options go in quotes.
"$jcmd" "$router_pid" JVMTI.agent_load "$agent" "\"start,event=${EVENT:-cpu},interval=${INTERVAL:-1ms},threads\"" >&2
cpu0=$(tb_cpu_ms "$router_pid")
measured=$(drive "${PROFILE_SECONDS:-15}" "$OUT/profiled.out")
cpu1=$(tb_cpu_ms "$router_pid")
"$jcmd" "$router_pid" JVMTI.agent_load "$agent" "\"stop,file=$OUT/router.collapsed,collapsed\"" >&2
[[ -s "$OUT/router.collapsed" ]] || tb_die "async-profiler wrote no profile (router log: $WORK/router.log)"
requests=$(awk '$1 == "WRK" { print $2 }' "$OUT/profiled.out")
{
  echo "## router profile  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
  echo "# $MODE, $CONNS connections, $([[ "$STREAM" == 1 ]] && echo streaming || echo non-streaming) POST $path, zero-cost upstream;"
  echo "# ${WARMUP_SECONDS:-30} s warm-up, then ${PROFILE_SECONDS:-15} s profiled (async-profiler $AP_VERSION, ${EVENT:-cpu}, ${INTERVAL:-1ms}): $measured"
  echo "# router CPU while profiled: $(( cpu1 - cpu0 )) ms, $(awk -v c=$(( cpu1 - cpu0 )) -v n="${requests:-0}" 'BEGIN { printf "%.3f", (n > 0 ? c / n : 0) }') ms per request"
  python3 "$here/summarize-profile.py" "$OUT/router.collapsed"
} | tee "$OUT/profile-summary.txt"
echo "reports: $OUT" >&2
