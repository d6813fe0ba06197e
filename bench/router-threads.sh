#!/usr/bin/env bash
# Which of a lone router's threads spend its CPU per request, and how: a Tandem router (round-robin)
# in front of one zero-cost null engine (no delays, as in bench/router-overhead.sh's zero pass),
# driven by wrk, nothing else running. After a warm-up, per measured run: requests, CPU per
# request split by thread kind (event loops, JIT compilers, GC, the rest) into user and system
# time (/proc/PID/task/*/stat), voluntary and involuntary context switches per request (a sleep
# and a wake-up; being preempted) and the page faults of the run. Then the same for a few idle
# seconds (what the router costs doing nothing). Each run also says how many bytes the router
# allocated per request: what eden held at each young GC of the run (G1's gc+heap log, switched
# on with jcmd once the router is up; other collectors: the eden's size at the end per GC), plus
# what eden gained (jstat). The JVM is whatever `java` the PATH gives, so
#
#   bench/router-threads.sh
#   PATH=/usr/lib/jvm/OTHER-JDK/bin:$PATH bench/router-threads.sh
#
# time the router on two JDKs (run each more than once: one router process differs from the
# next by more than most changes; BENCHMARKS.md, session 9).
#
# Knobs (environment): CONNS (1), WARMUP_CONNS (CONNS: the warm-up's connections; 64 warms a
# router for a one-connection run as the zero pass does), TOKEN_GAP_MS (0: the engine writes each
# answer at once; N: a token every N ms, each in its own write), STREAM (1; 0 for non-streaming),
# WARMUP_SECONDS (15),
# RUN_SECONDS (10), RUNS (1), IDLE_SECONDS (5), ROUTER_JAVA_OPTS (-Xmx512m), ROUTER_EXTRA_ARGS,
# PIN (none: where the kernel puts them; one: router, engine and wrk all on CPU 0; split: the
# router alone on CPU 1, the engine and wrk on CPU 0). PIN shows what a request costs when no
# wake-up crosses cores (one) and when every wake-up does and the router's core idles in between
# (split; BENCHMARKS.md, session 21).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

PIN=${PIN:-none}
case "$PIN" in
  none) ;;
  one|split)
    tb_need taskset util-linux
    # Everything this script starts inherits CPU 0; split moves the router once it is up (its
    # engine, started by it before that, stays on CPU 0).
    if [[ "$(taskset -p $$ | awk '{print $NF}')" != 1 ]]; then
      (( $(nproc) >= 2 )) || tb_die "PIN=$PIN needs CPUs 0 and 1"
      exec taskset -c 0 "$BASH" "${BASH_SOURCE[0]}" "$@"
    fi
    ;;
  *) tb_die "PIN must be none, one or split, not '$PIN'" ;;
esac

CONNS=${CONNS:-1}
STREAM=${STREAM:-1}
WORK=$(mktemp -d /tmp/tandem-router-threads.XXXXXX)
trap 'tb_stop_all; rm -rf "$WORK"' EXIT
tb_need wrk wrk
tb_ensure_jar

"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null
router_port=$(tb_free_port)
engine_port=$(tb_free_port)
export NULL_ENGINE_JAVA_OPTS="-Xmx512m" NULL_TOKEN_GAP_MS="${TOKEN_GAP_MS:-0}"
# shellcheck disable=SC2086
TANDEM_JAVA_OPTS="${ROUTER_JAVA_OPTS:--Xmx512m}" tb_start_zero_router "$WORK/router.log" \
  "$WORK/model" round-robin "$router_port" "$engine_port" "$WORK/logs" ${ROUTER_EXTRA_ARGS:-}
router_pid=$TB_LAST_PID # the launcher execs java: this is the router's JVM
tb_wait_http "http://127.0.0.1:$router_port/ready" 300 "$router_pid" "$WORK/router.log"
if [[ "$PIN" == split ]]; then
  taskset -a -p -c 1 "$router_pid" >/dev/null
fi
tb_wrk_bodies "$WORK" 32 16
body="$WORK/body-$([[ "$STREAM" == 1 ]] && echo stream || echo plain).json"

drive() { # seconds [connections] -> prints the requests wrk completed
  WRK_BODY_FILE="$body" wrk -t1 -c"${2:-$CONNS}" -d"$1s" --timeout 10s -s "$here/wrk-post.lua" \
    "http://127.0.0.1:$router_port/v1/completions" >"$WORK/wrk.out" 2>&1 || true
  awk '$1 == "WRK" { print $2 }' "$WORK/wrk.out"
}

# Every thread of the router: kind, utime and stime (ticks), context switches; and the process's
# page faults. The command name may hold spaces: fields are read after its closing parenthesis.
jdk_bin="$(dirname "$(readlink -f "$(command -v java)")")"
[[ -x "$jdk_bin/jstat" && -x "$jdk_bin/jcmd" ]] || tb_die "jstat and jcmd (the JDK's) not found in $jdk_bin"
"$jdk_bin/jcmd" "$router_pid" VM.log output="file=$WORK/gc.log" what=gc+heap=info >/dev/null
region_kb=$("$jdk_bin/jcmd" "$router_pid" GC.heap_info | sed -n 's/.*region size \([0-9]*\)K.*/\1/p' | head -1)
snapshot() { # file
  python3 - "$router_pid" "$1" "$("$jdk_bin/jstat" -gc "$router_pid" | tail -1)" "$WORK/gc.log" <<'PY'
import json, os, sys
pid, out = sys.argv[1], sys.argv[2]
# jstat -gc: S0C S1C S0U S1U EC EU OC OU ... YGC (KB, counts)
gc = sys.argv[3].split()
log_lines = sum(1 for _ in open(sys.argv[4])) if os.path.exists(sys.argv[4]) else 0
eden = {"capacity_kb": float(gc[4]), "used_kb": float(gc[5]), "young_gcs": int(gc[12]),
        "log_lines": log_lines}
def kind(name):
    for prefix, k in (("vert.x-eventloo", "event loops"), ("C1 Compiler", "JIT compilers"),
                      ("C2 Compiler", "JIT compilers"), ("GC Thread", "GC"), ("G1 ", "GC")):
        if name.startswith(prefix):
            return k
    return "other threads"
threads = []
for t in os.listdir(f"/proc/{pid}/task"):
    try:
        stat = open(f"/proc/{pid}/task/{t}/stat").read()
        status = dict(l.split(":\t", 1) for l in open(f"/proc/{pid}/task/{t}/status") if ":\t" in l)
    except OSError:
        continue
    name = stat[stat.index("(") + 1:stat.rindex(")")]
    f = stat[stat.rindex(")") + 2:].split()
    threads.append({"tid": t, "kind": kind(name), "utime": int(f[11]), "stime": int(f[12]),
                    "vol": int(status["voluntary_ctxt_switches"]),
                    "invol": int(status["nonvoluntary_ctxt_switches"])})
f = open(f"/proc/{pid}/stat").read()
f = f[f.rindex(")") + 2:].split()
json.dump({"threads": threads, "minflt": int(f[7]), "majflt": int(f[9]), "eden": eden},
          open(out, "w"))
PY
}

report() { # before after count unit(req|s) label
  python3 - "$@" "$(getconf CLK_TCK)" "$WORK/gc.log" "${region_kb:-0}" <<'PY'
import collections, json, re, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
n, unit, label, hz = int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
gc_log, region_kb = sys.argv[7], int(sys.argv[8])
before = {t["tid"]: t for t in a["threads"]}
agg = collections.defaultdict(lambda: [0, 0, 0, 0])
for t in b["threads"]:
    o = before.get(t["tid"], {"utime": 0, "stime": 0, "vol": 0, "invol": 0})
    for i, k in enumerate(("utime", "stime", "vol", "invol")):
        agg[t["kind"]][i] += t[k] - o[k]
us = 1e6 / hz / max(n, 1)
print(f"| {label} | thread kind | user us/{unit} | system us/{unit} | voluntary switches/{unit} "
      f"| involuntary switches/{unit} |")
print("|---|---|---:|---:|---:|---:|")
total = [0, 0, 0, 0]
for k in ("event loops", "JIT compilers", "GC", "other threads"):
    v = agg.get(k, [0, 0, 0, 0])
    total = [x + y for x, y in zip(total, v)]
    print(f"| | {k} | {v[0] * us:.2f} | {v[1] * us:.2f} | {v[2] / max(n, 1):.3f} | {v[3] / max(n, 1):.3f} |")
print(f"| | **all** | **{total[0] * us:.2f}** | **{total[1] * us:.2f}** | {total[2] / max(n, 1):.3f} | {total[3] / max(n, 1):.3f} |")
ea, eb = a["eden"], b["eden"]
gcs = eb["young_gcs"] - ea["young_gcs"]
# G1 logs "GC(7) Eden regions: 60->0(58)" per young GC: what eden held when it was collected
with open(gc_log) as f:
    lines = f.readlines()[ea["log_lines"]:eb["log_lines"]]
held = [int(m.group(1)) for m in map(re.compile(r"Eden regions: (\d+)->").search, lines) if m]
eden_kb = region_kb * sum(held) if held and region_kb else gcs * eb["capacity_kb"]
allocated = 1024 * (eden_kb + eb["used_kb"] - ea["used_kb"])
print(f"({n} {'requests' if unit == 'req' else 'seconds'}; page faults: "
      f"{b['minflt'] - a['minflt']} minor, {b['majflt'] - a['majflt']} major; "
      f"allocated {allocated / max(n, 1) / 1024:.2f} KiB/{unit} ({gcs} young GCs))")
PY
}

echo "## router threads  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
echo "# $(java -version 2>&1 | head -1); $CONNS connection(s), $([[ "$STREAM" == 1 ]] && echo streaming || echo non-streaming), zero-cost upstream$( [[ "${TOKEN_GAP_MS:-0}" == 0 ]] || echo " writing a token every ${TOKEN_GAP_MS} ms"); ${WARMUP_SECONDS:-15} s warm-up at ${WARMUP_CONNS:-$CONNS} connection(s); CPUs: $PIN"
drive "${WARMUP_SECONDS:-15}" "${WARMUP_CONNS:-$CONNS}" >/dev/null
for run in $(seq 1 "${RUNS:-1}"); do
  snapshot "$WORK/a.json"
  requests=$(drive "${RUN_SECONDS:-10}")
  snapshot "$WORK/b.json"
  report "$WORK/a.json" "$WORK/b.json" "${requests:-0}" req "run $run, ${RUN_SECONDS:-10} s"
  echo
done
snapshot "$WORK/a.json"
sleep "${IDLE_SECONDS:-5}"
snapshot "$WORK/b.json"
report "$WORK/a.json" "$WORK/b.json" "${IDLE_SECONDS:-5}" s "idle, ${IDLE_SECONDS:-5} s"
