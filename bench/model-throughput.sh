#!/usr/bin/env bash
# Throughput of the builtin CPU model beside this machine's limits, measured in the same run:
# peak FMA throughput and streaming read bandwidth, then prefill and decode tokens/s at batch 1, 8
# and 32 for the tiny preset and the small preset in f32 and bf16, each prefill as a fraction of
# the FMA peak and decode at batch 1 as a fraction of the bandwidth bound of the bytes it reads.
#
# Usage: bench/model-throughput.sh [--presets tiny,small] [--dtypes f32,bf16] [--threads N]
#        bench/model-throughput.sh --fleet-cores [ENGINES]   (default 3)
# The second form starts a round-robin fleet of ENGINES builtin engines (tiny model) and shows the
# cores each one computes on: its /metrics core budget, the CPUs it may run on, its model threads.
# Models are made (seed 0) under $MODELS_DIR (default ./models) when missing; JAR=... runs another
# build (e.g. an older one, for a before/after).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="${JAR:-$root/target/tandem.jar}"
models="${MODELS_DIR:-$root/models}"
if [[ -z "${JAR:-}" ]] && { [[ ! -f "$jar" ]] || [[ -n "$(find "$root/src/main" -newer "$jar" -type f -print -quit)" ]]; }; then
  echo "building $jar ..." >&2
  (cd "$root" && mvn -B -q -o -DskipTests package) >&2
fi
export DJL_OFFLINE=true
# The model's SIMD kernels are on the Vector API, an incubator module in JDK 17.
java_opts=(--add-modules=jdk.incubator.vector -Dai.djl.offline=true -Dhazelcast.phone.home.enabled=false
  -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores;" \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(java -version 2>&1 | head -1)"

if [[ "${1:-}" != "--fleet-cores" ]]; then
  exec java "${java_opts[@]}" -Xmx3g -cp "$jar" dev.tandem.bench.model.ModelThroughputBench "$models" "$@"
fi

engines="${2:-3}"
if [[ ! -f "$models/tiny/tokenizer.json" ]]; then
  java "${java_opts[@]}" -jar "$jar" make-model "$models/tiny" --preset tiny >&2
fi
work="$(mktemp -d)"
base=$((10000 + RANDOM % 20000)) # below the kernel's ephemeral ports (32768 and up by default)
ports=()
for ((i = 1; i <= engines; i++)); do ports+=($((base + i))); done
java "${java_opts[@]}" -Xmx256m -jar "$jar" router "$models/tiny" --router-mode round-robin \
  --router-port "$base" --endpoint-ports "${ports[@]}" --log-dir "$work/logs" --no-engine-cds \
  >"$work/router.log" 2>&1 &
router=$!
trap 'kill "$router" 2>/dev/null; wait "$router" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$base/v1/models" >/dev/null && break
  sleep 1
done
# one completion per engine, so that its step thread has run a forward (and pinned itself)
for port in "${ports[@]}"; do
  curl -sf -H 'content-type: application/json' -d '{"prompt":"Hi","max_tokens":2}' \
    "http://127.0.0.1:$port/v1/completions" >/dev/null || true
done
echo
echo "| engine | --device | /metrics compute_threads | process CPUs (taskset) | model threads | their CPUs |"
echo "|-------:|----------|--------------------------|------------------------|--------------:|------------|"
total=0
for ((i = 0; i < engines; i++)); do
  port="${ports[$i]}"
  pid="$(pgrep -f -- "--port $port" | head -1)"
  device="$(tr '\0' ' ' <"/proc/$pid/cmdline" | sed -n 's/.*--device \([^ ]*\).*/\1/p')"
  gauge="$(curl -sf "http://127.0.0.1:$port/metrics" | grep '^tandem_engine_compute_threads' || echo 'none (older build)')"
  allowed="$(taskset -cp "$pid" | sed 's/.*: //')"
  # the step thread (tandem-engine) plus the pool's workers (tandem-model-N), and their CPUs
  threads=0
  cpus=""
  for task in /proc/"$pid"/task/*; do
    case "$(cat "$task/comm" 2>/dev/null)" in
      tandem-engine|tandem-model*)
        threads=$((threads + 1))
        cpus="$cpus $(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$task/status")" ;;
    esac
  done
  total=$((total + threads))
  echo "| $i | $device | \`${gauge#tandem_engine_}\` | $allowed | $threads |$(echo "$cpus" | tr ' ' '\n' | grep -v '^$' | sort -u | paste -sd, -) |"
done
echo
echo "model threads in all: $total on $(nproc) cores"
