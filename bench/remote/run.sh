#!/usr/bin/env bash
# Runs a bench/ command on a bare host with the bundle made by bench/remote/pack.sh: unpacks it
# (once, to /tmp/tandem-bench-bundle), dumps the runtime's base class-data archive, puts the
# runtime, nginx and jq first on PATH and tandem.jar at target/tandem.jar, then runs the command
# from the repository root. The builtin engine is a CPU engine: CUDA devices are hidden from it.
# Usage: bench/remote/run.sh BUNDLE COMMAND [ARGS...]
#   e.g. bench/remote/run.sh target/bench-bundle.tar.xz bench/startup.sh 3
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
bundle="$1"; shift
dir=/tmp/tandem-bench-bundle
if [[ ! -x "$dir/tb/jre/bin/java" ]]; then
  rm -rf "$dir"; mkdir -p "$dir"
  tar -xJf "$bundle" -C "$dir"
  "$dir/tb/jre/bin/java" -Xshare:dump >/dev/null 2>&1 || echo "run.sh: no base CDS archive (slower starts)" >&2
fi
export PATH="$dir/tb/jre/bin:$dir/tb/bin:$PATH"
export CUDA_VISIBLE_DEVICES=""
mkdir -p "$root/target"
cp "$dir/tb/tandem.jar" "$root/target/tandem.jar"
cd "$root"
exec "$@"
