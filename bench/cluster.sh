#!/usr/bin/env bash
# A clustered fleet on three hosts, each a network namespace this script makes (veth pairs on a
# bridge in a fourth namespace, addresses $NET.1-3 that exist only inside them): the router on
# $NET.1 and two `tandem node`s on $NET.2 and $NET.3, each node running one builtin engine of a
# round-robin fleet (tiny model) as its child, on its own address (so the fleet's secret is on).
#
# Measured:
#   1. whole completions one at a time over HTTP and over the clustered event bus, alternating,
#      from a Vert.x application on $NET.3 (`tandem bench bus-latency`): latency table and ratio;
#   2. a node killed with -9 under a closed loop of requests: time until the router took its
#      engine out of rotation, requests answered and failed in the 10 s after the kill, and time
#      until the engine was back in rotation after the node was started again;
#   3. a call to an engine without the fleet's secret (the answer must be 401);
#   4. the router killed with -9: the nodes' engines keep running, and a new router with the same
#      configuration adopts them (round-robin: the same processes; disagg: they restart into the
#      new router's world).
#
# MODE=disagg makes the engine on $NET.2 the prefill engine and the one on $NET.3 the decode
# engine: KV crosses between the hosts, and the builtin world's root listens on the router's
# cluster address.
#
# Needs root (ip netns). Environment knobs: MODE (round-robin|disagg), REQUESTS (200), WARMUP
# (50), PRESET (tiny), NET (10.77.0: a private range inside the namespaces only), OUT_DIR,
# KEEP_TMP=1.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

MODE=${MODE:-round-robin}
REQUESTS=${REQUESTS:-200}
WARMUP=${WARMUP:-50}
PRESET=${PRESET:-tiny}
NET=${NET:-10.77.0}
WORK=$(mktemp -d /tmp/tandem-cluster.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT" "$WORK/logs"
HOSTS=(tdm-router tdm-node1 tdm-node2)
SWITCH=tdm-switch

[[ $(id -u) -eq 0 ]] || tb_die "needs root: it makes network namespaces"
tb_need ip iproute2
tb_need curl curl
tb_need jq jq
tb_ensure_jar
export TANDEM_JAVA_OPTS="${TANDEM_JAVA_OPTS:--Xmx512m}"

cleanup() {
  tb_stop_all
  local ns
  for ns in "${HOSTS[@]}" "$SWITCH"; do ip netns del "$ns" 2>/dev/null || true; done
  [[ -n "${KEEP_TMP:-}" ]] || rm -rf "$WORK/model"
}
trap cleanup EXIT

on() { local ns="$1"; shift; ip netns exec "$ns" "$@"; }   # run a command on one "host"

make_hosts() {
  local i
  for ns in "${HOSTS[@]}" "$SWITCH"; do ip netns del "$ns" 2>/dev/null || true; done
  ip netns add "$SWITCH"
  ip -n "$SWITCH" link add br0 type bridge
  ip -n "$SWITCH" link set br0 up
  for i in 0 1 2; do
    ip netns add "${HOSTS[$i]}"
    ip link add "tdm-h$i" type veth peer name "tdm-s$i"
    ip link set "tdm-h$i" netns "${HOSTS[$i]}"
    ip link set "tdm-s$i" netns "$SWITCH"
    ip -n "$SWITCH" link set "tdm-s$i" master br0 up
    ip -n "${HOSTS[$i]}" addr add "$NET.$((i + 1))/24" dev "tdm-h$i"
    ip -n "${HOSTS[$i]}" link set "tdm-h$i" up
    ip -n "${HOSTS[$i]}" link set lo up
  done
}

# conf/cluster.xml for these hosts: their interface, and all three as TCP-IP members.
cluster_xml() {
  sed -e "s|<interface>127.0.0.1</interface>|<interface>$NET.*</interface>|" \
      -e "s|<member>127.0.0.1</member>|<member>$NET.1</member><member>$NET.2</member><member>$NET.3</member>|" \
      -e "s|<cluster-name>tandem</cluster-name>|<cluster-name>tandem-bench-$$</cluster-name>|" \
      "$TB_ROOT/conf/cluster.xml" > "$WORK/cluster.xml"
}

HZ_FAST=(-Dhazelcast.wait.seconds.before.join=0 -Dhazelcast.heartbeat.interval.seconds=1
  -Dhazelcast.max.no.heartbeat.seconds=10)

start_node() { # index (1 or 2)
  local i="$1"
  TANDEM_JAVA_OPTS="$TANDEM_JAVA_OPTS ${HZ_FAST[*]}" tb_start "$WORK/logs/node$i.out" \
    ip netns exec "${HOSTS[$i]}" "$TB_TANDEM" node --cluster --cluster-config "$WORK/cluster.xml" \
    --cluster-host "$NET.$((i + 1))" --hosts "$NET.$((i + 1))" --log-dir "$WORK/logs/node$i"
  NODE_PID[$i]=$TB_LAST_PID
}

# The router's view of engine $1: "STATE" (from /admin/engines).
engine_state() {
  on "${HOSTS[0]}" curl -sf --max-time 2 "http://$NET.1:8000/admin/engines" |
    jq -r ".engines[] | select(.id == $1) | .state"
}

await_state() { # engine-id state seconds -> prints seconds waited
  local t0 i
  t0=$(date +%s.%N)
  for i in $(seq 1 $(( $3 * 20 ))); do
    if [[ "$(engine_state "$1" 2>/dev/null || true)" == "$2" ]]; then
      awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
      return
    fi
    sleep 0.05
  done
  echo "never"
}

tb_log "making the $PRESET model"
"$TB_TANDEM" make-model "$WORK/model" --preset "$PRESET" --seed 1 >/dev/null
make_hosts
cluster_xml
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$WORK/fleet-secret"
declare -a NODE_PID
if [[ "$MODE" == disagg ]]; then ROLES=prefill,decode; else ROLES=both,both; fi

start_router() { # log name
  TANDEM_JAVA_OPTS="$TANDEM_JAVA_OPTS ${HZ_FAST[*]}" tb_start "$WORK/logs/$1.out" \
    ip netns exec "${HOSTS[0]}" "$TB_TANDEM" router "$WORK/model" --cluster \
    --cluster-config "$WORK/cluster.xml" --cluster-host "$NET.1" --router-host "$NET.1" \
    --router-port 8000 --router-mode "$MODE" --endpoint-roles "$ROLES" \
    --endpoint-hosts "$NET.2,$NET.3" --endpoint-ports 8081 8082 --log-dir "$WORK/logs/$1" \
    --health-interval 0.5 --load-report-interval 0.25 --stop-grace 3 \
    --fleet-secret-file "$WORK/fleet-secret"
  ROUTER_PID=$TB_LAST_PID
}

await_router() { # log name
  for i in $(seq 1 480); do
    on "${HOSTS[0]}" curl -sf -o /dev/null --max-time 2 "http://$NET.1:8000/ready" && return
    kill -0 "$ROUTER_PID" 2>/dev/null || { tail -30 "$WORK/logs/$1.out"; tb_die "router exited"; }
    sleep 0.25
  done
  tb_die "the router did not get ready"
}

engine_pids() { on "${HOSTS[0]}" curl -sf "http://$NET.1:8000/fleet" | jq -r '[.engines[].pid] | join(",")'; }

tb_log "router on $NET.1 (it waits for the nodes that serve $NET.2 and $NET.3)"
start_router router
for i in $(seq 1 240); do
  grep -q "waiting for a tandem node" "$WORK/logs/router.out" && break
  kill -0 "$ROUTER_PID" 2>/dev/null || { tail -30 "$WORK/logs/router.out"; tb_die "router exited"; }
  sleep 0.25
done
start_node 1
start_node 2
await_router router
on "${HOSTS[0]}" curl -sf "http://$NET.1:8000/fleet" | jq -c '.engines[] | {id, url, state, pid}' >&2

tb_log "secret: an engine called without the fleet's secret"
SECRET_STATUS=$(on "${HOSTS[0]}" curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
  "http://$NET.2:8081/health" || true)

SECRET_OK=$(on "${HOSTS[0]}" curl -s -o /dev/null -w '%{http_code}' --max-time 5 \
  -H "X-Tandem-Fleet-Secret: $(cat "$WORK/fleet-secret")" "http://$NET.2:8081/health" || true)

tb_log "bus vs HTTP: $REQUESTS whole completions each, from a Vert.x application on $NET.3"
on "${HOSTS[2]}" env TANDEM_JAVA_OPTS="$TANDEM_JAVA_OPTS ${HZ_FAST[*]}" "$TB_TANDEM" bench \
  bus-latency --url "http://$NET.1:8000" --cluster-config "$WORK/cluster.xml" \
  --cluster-host "$NET.3" --requests "$REQUESTS" --warmup "$WARMUP" \
  > "$OUT/bus-latency.md" 2> "$WORK/logs/bus-latency.err" ||
  { tail -20 "$WORK/logs/bus-latency.err"; tb_die "bus-latency failed"; }

# KV shipped from the engine on $NET.2 (disagg: the prefill engine) into the one on $NET.3.
REMOTE_SENDS=$(on "${HOSTS[0]}" curl -s --max-time 5 -H "X-Tandem-Fleet-Secret: $(cat "$WORK/fleet-secret")" \
  "http://$NET.2:8081/metrics" | awk '/^tandem_engine_remote_send_total/ { n += $NF } END { print n + 0 }')

tb_log "node death: kill -9 of the node on $NET.2 under a closed loop of requests"
body='{"prompt":"During the node kill","max_tokens":8,"temperature":0}'
( while [[ ! -f "$WORK/stop-load" ]]; do
    printf '%s %s\n' "$(date +%s.%N)" "$(on "${HOSTS[0]}" curl -s -o /dev/null -w '%{http_code}' \
      --max-time 30 -H 'content-type: application/json' -d "$body" \
      "http://$NET.1:8000/v1/completions" || echo 000)"
  done > "$WORK/load.txt" ) &
LOAD_PID=$!
sleep 2
KILLED_AT=$(date +%s.%N)
kill -KILL "${NODE_PID[1]}"
OUT_S=$(await_state 0 UNHEALTHY 20)
sleep 10
touch "$WORK/stop-load"
wait "$LOAD_PID" || true
read -r OK_AFTER FAILED_AFTER < <(awk -v k="$KILLED_AT" '$1 >= k && $1 <= k + 10 {
  if ($2 == 200) ok++; else bad++ } END { print ok + 0, bad + 0 }' "$WORK/load.txt")
FIRST_OK=$(awk -v k="$KILLED_AT" '$1 >= k && $2 == 200 { printf "%.2f", $1 - k; exit }' \
  "$WORK/load.txt")

tb_log "node back: the node on $NET.2 started again"
start_node 1
BACK_S=$(await_state 0 READY 120)
for i in 1 2 3 4 5 6 7 8; do
  on "${HOSTS[0]}" curl -s -o /dev/null --max-time 30 -H 'content-type: application/json' \
    -d "$body" "http://$NET.1:8000/v1/completions" || true
done
# the new engine process on $NET.2: its own count, over 8 requests after its return
SENDS_BACK=$(on "${HOSTS[0]}" curl -s --max-time 5 -H "X-Tandem-Fleet-Secret: $(cat "$WORK/fleet-secret")" \
  "http://$NET.2:8081/metrics" | awk '/^tandem_engine_remote_send_total/ { n += $NF } END { print n + 0 }')

tb_log "router death: kill -9 of the router, then a new one with the same configuration"
PIDS_BEFORE=$(engine_pids)
kill -KILL "$ROUTER_PID"
sleep 5 # longer than a node waits for a silent router's heartbeat (3.5 s)
ALIVE=0
for pid in ${PIDS_BEFORE//,/ }; do kill -0 "$pid" 2>/dev/null && ALIVE=$((ALIVE + 1)); done
T0=$(date +%s.%N)
start_router router2
await_router router2
READY2_S=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
PIDS_AFTER=$(engine_pids)
ANSWER2=$(on "${HOSTS[0]}" curl -s -o /dev/null -w '%{http_code}' --max-time 30 \
  -H 'content-type: application/json' -d "$body" "http://$NET.1:8000/v1/completions" || true)
if [[ "$MODE" == disagg ]]; then
  ADOPTED="restarted into the new router's world (disagg: a new world, a new uid)"
  [[ "$PIDS_AFTER" == "$PIDS_BEFORE" ]] && ADOPTED="adopted (unexpected in disagg)"
else
  ADOPTED="no (pids $PIDS_BEFORE -> $PIDS_AFTER)"
  [[ "$PIDS_AFTER" == "$PIDS_BEFORE" ]] && ADOPTED="yes, the same processes ($PIDS_AFTER)"
fi

{
  echo "### Clustered fleet on three network namespaces, $MODE ($(date -u +%Y-%m-%d), $(tb_machine), load $(tb_load))"
  echo
  cat "$OUT/bus-latency.md"
  echo
  echo "| node death (kill -9 of the node on $NET.2) | value |"
  echo "|---|---:|"
  echo "| engine out of the router's rotation after | ${OUT_S} s |"
  echo "| first request answered after the kill (ended) | ${FIRST_OK:-none} s |"
  echo "| requests answered / failed in the 10 s after the kill | $OK_AFTER / $FAILED_AFTER |"
  echo "| engine back in rotation after the node restarted | ${BACK_S} s |"
  echo "| engine on $NET.2 called without / with the fleet's secret | HTTP $SECRET_STATUS / $SECRET_OK |"
  echo "| remote_send calls served by the engine on $NET.2 (KV shipped to $NET.3) | $REMOTE_SENDS |"
  echo "| the same, by its new process over 8 requests after the node's return | $SENDS_BACK |"
  echo
  echo "| router death (kill -9 of the router) | value |"
  echo "|---|---:|"
  echo "| node engines still running 5 s later | $ALIVE of 2 |"
  echo "| a new router with the same configuration ready after | ${READY2_S} s |"
  echo "| its engines | $ADOPTED |"
  echo "| its first answer | HTTP $ANSWER2 |"
} | tee "$OUT/cluster.md"
