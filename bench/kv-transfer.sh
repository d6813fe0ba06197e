#!/usr/bin/env bash
# KV transfer throughput of the builtin engines' transport beside raw loopback TCP, same run.
# Usage: bench/kv-transfer.sh [--tokens 2000] [--layers 30] [--kv-dim 192] [--iterations 11] [--warmup 3]
# Default shape: a 2,000-token prompt of the `small` model (30 layers, kvDim 192); rows only, no model.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$here/target/tandem.jar"
if [[ ! -f "$jar" ]] || [[ -n "$(find "$here/src/main" -newer "$jar" -name '*.java' -print -quit)" ]]; then
  echo "kv-transfer.sh: building $jar..." >&2
  (cd "$here" && mvn -B -q -o -DskipTests package) >&2
fi
exec java -Xmx2g -Dorg.slf4j.simpleLogger.defaultLogLevel=warn -cp "$jar" dev.tandem.bench.world.KvTransferBench "$@"
