#!/usr/bin/env bash
# The router's per-token steps in isolation: an engine chunk read (full scan and compared with
# the last chunk), the stream's usage record read, a client delta rendered, the SSE split, and the
# doubles of a usage record (JDK against Jackson's fast number code). Compiles bench/micro against
# target/tandem.jar (its classes sit in the packages they measure, for package-private access) and
# prints a table. TANDEM_JAR times another build with the same code (any build the sources
# compile against).
#
#   bench/relay-micro.sh [tokens per stream, default 64]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"
cd "$here/micro"
# shellcheck disable=SC2046
TANDEM_JAR="${TANDEM_JAR:-$TB_ROOT/target/tandem.jar}" tb_run_micro dev.tandem.bench.micro.RelayMicro \
  $(find . -name '*.java') -- "$@"
