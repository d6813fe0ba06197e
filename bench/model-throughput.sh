#!/usr/bin/env bash
# Throughput of the builtin CPU model: prefill and decode tokens/s at batch 1, 8 and 32 for the
# tiny and small presets, and decode at batch 1 on small beside the memory-bandwidth bound
# (a plain streaming read of the same bytes, measured in the same run).
#
# Usage: bench/model-throughput.sh [--presets tiny,small] [--threads N]
# Models are made (seed 0, f32) under $MODELS_DIR (default ./models) when missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/target/tandem.jar"
models="${MODELS_DIR:-$root/models}"
if [[ ! -f "$jar" ]] || [[ -n "$(find "$root/src/main" -newer "$jar" -type f -print -quit)" ]]; then
  echo "building $jar ..." >&2
  (cd "$root" && mvn -B -q -o -DskipTests package) >&2
fi
export DJL_OFFLINE=true
echo "date: $(date -u +%Y-%m-%dT%H:%MZ); cpu: $(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
exec java -Xmx3g -Dai.djl.offline=true -Dorg.slf4j.simpleLogger.defaultLogLevel=warn \
  -cp "$jar" dev.tandem.bench.model.ModelThroughputBench "$models" "$@"
