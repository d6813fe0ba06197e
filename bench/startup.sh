#!/usr/bin/env bash
# Start-up benchmark: time to ready of 1, 3 and 4 builtin engines (tiny model), as a Markdown
# table. Usage: bench/startup.sh [RUNS] [ENGINE_JVM_OPTS]   (defaults: 3, "-Xmx512m")
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$here/target/tandem.jar"
runs="${1:-3}"
opts="${2:--Xmx512m}"
if [[ ! -f "$jar" ]]; then
  (cd "$here" && mvn -B -q -DskipTests package) >&2
fi
export DJL_OFFLINE=true
java_opts=(-Dai.djl.offline=true -Dhazelcast.phone.home.enabled=false -Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
model="$(mktemp -d)/tiny"
trap 'rm -rf "$(dirname "$model")"' EXIT
java "${java_opts[@]}" -jar "$jar" make-model "$model" --preset tiny >&2
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(java -version 2>&1 | head -1)"
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); runs per case: $runs; engine JVM options: $opts"
echo
for cds in cds no-cds; do
  java "${java_opts[@]}" -cp "$jar" dev.tandem.supervisor.StartupBenchmark "$model" "$runs" "$opts" "$cds"
  echo
done
