#!/usr/bin/env bash
# The router's per-token steps in isolation: an engine chunk read (full scan and compared with
# the last chunk), a client delta rendered, the SSE split, and the doubles of a usage record
# (JDK against Jackson's fast number code). Compiles bench/micro against target/tandem.jar (its
# classes sit in the packages they measure, for package-private access) and prints a table.
#
#   bench/relay-micro.sh [tokens per stream, default 64]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"
tb_ensure_jar
WORK=$(mktemp -d /tmp/tandem-relay-micro.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
jar="$TB_ROOT/target/tandem.jar"
javac -d "$WORK" -cp "$jar" $(find "$here/micro" -name '*.java')
java -Xmx512m -Dai.djl.offline=true -cp "$WORK:$jar" dev.tandem.bench.micro.RelayMicro "$@"
