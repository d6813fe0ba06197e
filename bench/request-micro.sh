#!/usr/bin/env bash
# The router's per-request steps that grow with the prompt, in isolation: a completion body with
# a token-id prompt read and checked (FastJson, CompletionRequest), then with its engine body
# written once (round-robin) and three times over. Compiles its three files of bench/micro
# against the jar (they sit in the packages they measure) and prints a table. TANDEM_JAR times
# another build (any build since session 13) side by side with this one: run it for each.
#
#   bench/request-micro.sh [prompt lengths..., default 32 256 1024 4096]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"
tb_run_micro dev.tandem.bench.micro.RequestMicro dev/tandem/bench/micro/Timing.java \
  dev/tandem/bench/micro/RequestMicro.java dev/tandem/api/PromptMicro.java -- "$@"
