#!/usr/bin/env bash
# Where a proxy's CPU per request goes, kernel against user code, at one connection (or CONNS):
# nginx and Tandem's router (once per network transport) in front of one zero-cost upstream
# (the null engine with no delays, as in bench/router-overhead.sh's zero pass), driven by wrk.
# Per setup and round, three runs of RUN_SECONDS each:
#   1. /proc: requests/s, p50, CPU ms per request and voluntary context switches per request
#      (a sleep and a wake-up each; at one connection a proxy sleeps once per leg it waits on);
#   2. perf record (cpu-clock, the proxy's pids, for exactly wrk's run): the shares of user code
#      (the proxy's own, the JVM's code and stubs, libc) and of the kernel, and of the largest
#      kernel symbol (on a paravirtualised VM the one where interrupts are delivered, e.g.
#      pvm_irq_enable: what each wake-up and loopback transfer costs there), reported as those
#      shares of run 1's CPU per request (perf's sampling adds ~25% to what it watches, so its
#      own totals are not the proxy's);
#   3. strace -c (slows the proxy; counts only): system calls per request by name.
# Prints the medians over rounds per setup (OUT_DIR/summary.md); every run is in OUT_DIR/runs.tsv.
#
#   bench/kernel-split.sh
#
# Knobs (environment): TRANSPORTS ("io_uring epoll": one Tandem router each, with
# --network-transport), CONNS (1), MODE (stream | plain), ROUNDS (3), RUN_SECONDS (6),
# WARMUP_SECONDS (20 per setup), TANDEM_JAR, ROUTER_JAVA_OPTS (-Xmx512m), OUT_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"

TRANSPORTS=${TRANSPORTS:-io_uring epoll}
CONNS=${CONNS:-1}
MODE=${MODE:-stream}
ROUNDS=${ROUNDS:-3}
SECONDS_PER_RUN=${RUN_SECONDS:-6}
WORK=$(mktemp -d /tmp/tandem-kernel-split.XXXXXX)
OUT=${OUT_DIR:-$WORK/results}
mkdir -p "$OUT"
trap 'tb_stop_all; rm -rf "$WORK/model" "$WORK/nginx"' EXIT

[[ "$MODE" == stream || "$MODE" == plain ]] || tb_die "MODE must be stream or plain, not '$MODE'"
tb_need curl curl
tb_need wrk wrk
tb_need nginx nginx
tb_need perf linux-perf
tb_need strace strace
tb_ensure_jar
export TANDEM_JAVA_OPTS="${ROUTER_JAVA_OPTS:--Xmx512m}"
export NULL_ENGINE_JAVA_OPTS="$TANDEM_JAVA_OPTS"

tb_log "making the tiny model"
"$TB_TANDEM" make-model "$WORK/model" --preset tiny --seed 1 >/dev/null
tb_wrk_bodies "$WORK" 32 16
body="$WORK/body-$MODE.json"

declare -A url pids
setups=()
engine_port=""
for transport in $TRANSPORTS; do
  router_port=$(tb_free_port); port=$(tb_free_port)
  [[ -n "$engine_port" ]] || engine_port=$port
  tb_log "starting a Tandem router ($transport) with a zero-cost null engine on $port"
  tb_start_zero_router "$WORK/router-$transport.log" "$WORK/model" round-robin "$router_port" \
    "$port" "$WORK/logs-$transport" --network-transport "$transport"
  pids[$transport]=$TB_LAST_PID
  url[$transport]="http://127.0.0.1:$router_port"
  tb_wait_http "${url[$transport]}/v1/models" 300 "$TB_LAST_PID" "$WORK/router-$transport.log"
  grep -q "network transport: $transport" "$WORK/router-$transport.log" \
    || tb_die "the router did not start on $transport (log: $WORK/router-$transport.log)"
  setups+=("$transport")
done
[[ -n "$engine_port" ]] || tb_die "TRANSPORTS is empty"
nginx_port=$(tb_free_port)
tb_log "starting nginx in front of the first router's engine (port $engine_port)"
tb_start_nginx "$WORK" "$engine_port" "$nginx_port"
pids[nginx]="$TB_LAST_PID $(pgrep -P "$TB_LAST_PID" | tr '\n' ' ')"
url[nginx]="http://127.0.0.1:$nginx_port"
setups=(nginx "${setups[@]}")

drive() { # setup seconds -> WRK line
  WRK_BODY_FILE="$body" wrk -t1 -c"$CONNS" -d"$2s" --timeout 10s -s "$here/wrk-post.lua" \
    "${url[$1]}/v1/completions" 2>&1 | awk '$1 == "WRK"'
}
# voluntary context switches of every thread of the pids, then their CPU ms (tb_cpu_ms)
switches_and_cpu() { # pid...
  local p status=()
  for p in "$@"; do status+=(/proc/"$p"/task/*/status); done
  echo "$(cat "${status[@]}" 2>/dev/null | awk '/^voluntary_ctxt_switches/ { v += $2 } END { print v + 0 }')" \
    "$(tb_cpu_ms "$@")"
}

for s in "${setups[@]}"; do
  tb_log "warming up $s for ${WARMUP_SECONDS:-20} s"
  drive "$s" "${WARMUP_SECONDS:-20}" >/dev/null
done

printf 'round\tsetup\treq_s\tp50_ms\tcpu_ms\tvcsw\tuser_pct\tkernel_pct\ttop_kernel_pct\ttop_kernel\tsyscalls\tsyscall_mix\n' >"$OUT/runs.tsv"
for r in $(seq 1 "$ROUNDS"); do
  order=("${setups[@]:r % ${#setups[@]}}" "${setups[@]:0:r % ${#setups[@]}}")
  for s in "${order[@]}"; do
    # shellcheck disable=SC2206
    p=(${pids[$s]})
    # 1. /proc
    read -r v0 c0 < <(switches_and_cpu "${p[@]}")
    line=$(drive "$s" "$SECONDS_PER_RUN")
    read -r v1 c1 < <(switches_and_cpu "${p[@]}")
    read -r _ n us p50 _ errs <<<"$line"
    # 2. perf, for exactly one wrk run
    WRK_BODY_FILE="$body" perf record -q -e cpu-clock -F 2000 -p "$(IFS=,; echo "${p[*]}")" \
      -o "$WORK/perf.data" -- wrk -t1 -c"$CONNS" -d"${SECONDS_PER_RUN}s" --timeout 10s \
      -s "$here/wrk-post.lua" "${url[$s]}/v1/completions" >"$WORK/perf-wrk.txt" 2>&1 || true
    split=$(perf report -i "$WORK/perf.data" --sort sym --stdio 2>/dev/null | awk '
      $1 ~ /%$/ && ($2 == "[k]" || $2 == "[.]") {
        pct = $1; sub("%", "", pct)
        if ($2 == "[k]") { k += pct; if (pct > top) { top = pct; name = $3 } } else u += pct
      }
      END { printf "%.1f\t%.1f\t%.1f\t%s", u, k, top, (name == "" ? "-" : name) }')
    # 3. strace, counts only
    strace_args=()
    for pid in "${p[@]}"; do strace_args+=(-p "$pid"); done
    strace -c -f -o "$WORK/strace.txt" "${strace_args[@]}" 2>/dev/null &
    strace_pid=$!
    sleep 1
    sline=$(drive "$s" "$SECONDS_PER_RUN")
    kill -INT "$strace_pid" 2>/dev/null || true
    wait "$strace_pid" 2>/dev/null || true
    read -r _ sn _ <<<"$sline"
    mix=$(awk -v n="${sn:-0}" '$NF ~ /^[a-z_0-9]+$/ && $4 ~ /^[0-9]+$/ && $NF != "total" && n > 0 && $4 / n >= 0.2 {
        printf "%s%s %.1f", sep, $NF, $4 / n; sep = ", " }' "$WORK/strace.txt")
    calls=$(awk -v n="${sn:-0}" '$NF == "total" && n > 0 { printf "%.1f", $4 / n }' "$WORK/strace.txt")
    [[ "${errs:-1}" == 0 ]] || tb_log "warning: $s had ${errs:-?} errors in round $r"
    printf '%d\t%s\t%.0f\t%.3f\t%.4f\t%.2f\t%s\t%s\t%s\n' "$r" "$s" \
      "$(awk -v n="$n" -v us="$us" 'BEGIN { print n / (us / 1e6) }')" \
      "$(awk -v p="$p50" 'BEGIN { print p / 1000 }')" \
      "$(awk -v c=$(( c1 - c0 )) -v n="$n" 'BEGIN { print c / n }')" \
      "$(awk -v v=$(( v1 - v0 )) -v n="$n" 'BEGIN { print v / n }')" \
      "$split" "${calls:-?}" "${mix:-?}" >>"$OUT/runs.tsv"
  done
  tb_log "round $r done"
done

{
  echo "## kernel split  $(date -u +%Y-%m-%dT%H:%MZ)  $(tb_machine)"
  echo "# $CONNS connection(s), $MODE, zero-cost upstream; $ROUNDS rounds of ${SECONDS_PER_RUN} s per setup and measure; medians over rounds"
  echo "# CPU ms per request from /proc; user and kernel: perf's shares of the samples (cpu-clock), times that CPU;"
  echo "# syscalls from strace -c (a separate run)"
  echo
  echo "| setup | req/s | p50 ms | CPU ms/req | user ms/req | kernel ms/req | of which the top kernel symbol | voluntary switches/req | syscalls/req | syscalls by name, per request |"
  echo "|---|---:|---:|---:|---:|---:|---|---:|---:|---|"
  for s in "${setups[@]}"; do
    awk -F'\t' -v s="$s" '
      function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
      NR > 1 && $2 == s { n++; q[n] = $3; p[n] = $4; c[n] = $5; v[n] = $6; u[n] = $7; k[n] = $8; t[n] = $9; name = $10; sc[n] = $11; mix = $12 }
      END { cpu = med(c, n)
            printf "| %s | %.0f | %.3f | %.4f | %.4f | %.4f | %.4f (%s) | %.2f | %.1f | %s |\n", s, med(q, n), med(p, n), cpu,
              cpu * med(u, n) / 100, cpu * med(k, n) / 100, cpu * med(t, n) / 100, name, med(v, n), med(sc, n), mix }' "$OUT/runs.tsv"
  done
} | tee "$OUT/summary.md"
echo "runs: $OUT/runs.tsv" >&2
