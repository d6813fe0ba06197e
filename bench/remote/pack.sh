#!/usr/bin/env bash
# Packs what the bench/ scripts need for a bare Linux x86-64 host without Java or network (the
# team's many-core GPU machine): a jlink'd Java runtime, tandem.jar without the other platforms'
# native libraries, and this machine's nginx and jq with their shared libraries. The bundle stays
# under 64 MiB. Unpack and run there with bench/remote/run.sh.
# Usage: bench/remote/pack.sh [BUNDLE]   (default target/bench-bundle.tar.xz)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
out="${1:-$root/target/bench-bundle.tar.xz}"
[[ -f "$root/target/tandem.jar" ]] || (cd "$root" && mvn -B -q -DskipTests package)
for c in nginx jq zip; do
  command -v "$c" >/dev/null || { echo "pack.sh: $c is missing (apt-get install $c)" >&2; exit 1; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tb="$work/tb"
mkdir -p "$tb/bin" "$tb/lib" "$tb/libexec"
# java.base, java.logging and jdk.unsupported are all the engines, the router and the load
# generator use (found with jdeps on the shaded jar; checked by running the benchmarks with it).
jlink --add-modules java.base,java.logging,jdk.unsupported --strip-debug --no-man-pages \
  --no-header-files --compress=2 --output "$tb/jre"
cp "$root/target/tandem.jar" "$tb/tandem.jar"
zip -q -d "$tb/tandem.jar" 'native/lib/linux-aarch64/*' 'native/lib/win-x86_64/*' 'native/lib/osx-aarch64/*'
for c in nginx jq; do
  bin=$(command -v "$c")
  cp "$bin" "$tb/libexec/"
  ldd "$bin" | awk '$3 ~ /^\// && $1 !~ /^(libc\.so|libm\.so|libdl\.so|libpthread\.so|librt\.so|ld-linux)/ { print $3 }' |
    while read -r lib; do cp -L "$lib" "$tb/lib/"; done
  printf '#!/bin/sh\nd=$(dirname "$(readlink -f "$0")")/..\nLD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$d/libexec/%s" "$@"\n' \
    "$c" >"$tb/bin/$c"
  chmod +x "$tb/bin/$c"
done
mkdir -p "$(dirname "$out")"
tar -C "$work" -cJf "$out" tb
echo "$out: $(du -h "$out" | cut -f1)"
