#!/usr/bin/env bash
# A prompt's tokenization in the router, in isolation: DJL's encode (every field of the encoding
# fetched across JNI) against the ids-only call the router's DjlTokenizer makes, for chat-shaped
# prompts of several lengths; then a conversation's next turn tokenized whole against the same
# prompt through the router's kept beginnings (PrefixIds: the last turn's prompt seen, or nothing
# seen). Compiles bench/micro's TokenizeMicro against the jar and prints two tables. A model
# folder as the first argument times its tokenizer.json instead of a generated one.
#
#   bench/tokenizer-micro.sh [MODEL_DIR] [message lengths in words..., default 8 64 512]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib-serving.sh"
tb_run_micro dev.tandem.tokenizer.TokenizeMicro dev/tandem/bench/micro/Timing.java \
  dev/tandem/tokenizer/TokenizeMicro.java -- "$@"
