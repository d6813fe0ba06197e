# Shared helpers for the bench/ scripts (source it; bash only).
# Processes started through tb_start are stopped (TERM, then KILL after a grace period) on exit.

TB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TB_TANDEM="$TB_ROOT/tandem"
TB_PIDS=()

tb_log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
tb_die() { tb_log "error: $*"; exit 1; }

# Builds target/tandem.jar if it is missing (offline first, as the team's machines have all deps).
tb_ensure_jar() {
  if [[ ! -f "$TB_ROOT/target/tandem.jar" ]]; then
    tb_log "building target/tandem.jar"
    (cd "$TB_ROOT" && { mvn -B -q -o -DskipTests package || mvn -B -q -DskipTests package; }) >&2
  fi
}

# Installs a Debian package when its command is missing.
tb_need() { # command package
  if ! command -v "$1" >/dev/null 2>&1; then
    tb_log "installing $2"
    if [[ $(id -u) -eq 0 ]]; then
      apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
    else
      sudo apt-get update -qq >&2 && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >&2
    fi
    command -v "$1" >/dev/null 2>&1 || tb_die "could not install $2"
  fi
}

# NVSHMEM_HOME for a router in disagg mode with --engine mlc in front of null engines: the router
# takes an NVSHMEM uid at start-up for MLC engines, which null engines ignore. Prints $NVSHMEM_HOME
# if set, else builds a STAND-IN host library under DIR (nvshmemx_get_uniqueid fills a fixed id,
# nothing else) with cc and prints its home.
tb_nvshmem_home() { # dir
  if [[ -n "${NVSHMEM_HOME:-}" ]]; then echo "$NVSHMEM_HOME"; return 0; fi
  tb_need cc gcc
  mkdir -p "$1/lib"
  printf '%s\n' '#include <string.h>' \
    'int nvshmemx_get_uniqueid(void *id) { memset((char *) id + 4, 7, 124); return 0; }' >"$1/stand-in.c"
  cc -shared -fPIC -o "$1/lib/libnvshmem_host.so" "$1/stand-in.c" >&2
  echo "$1"
}

# The completion bodies wrk POSTs (bench/wrk-post.lua) in the router benchmarks: a prompt of
# prompt-len token ids from 3 (the one tandem bench sends first), counting up to 1002 and round
# again (the tiny model's vocabulary is 1024 ids), output-len tokens, streaming with usage
# (DIR/body-stream.json) and not (DIR/body-plain.json).
tb_wrk_bodies() { # dir prompt-len output-len
  local ids
  ids=$(seq 0 $(( $2 - 1 )) | awk '{ print 3 + $1 % 1000 }' | paste -sd, -)
  printf '{"prompt":[%s],"max_tokens":%d,"stream":true,"stream_options":{"include_usage":true},"debug_config":{"ignore_eos":true}}' \
    "$ids" "$3" >"$1/body-stream.json"
  printf '{"prompt":[%s],"max_tokens":%d,"stream":false,"debug_config":{"ignore_eos":true}}' \
    "$ids" "$3" >"$1/body-plain.json"
}

# Compiles bench/micro sources (relative to bench/micro) against a tandem jar (TANDEM_JAR, else
# target/tandem.jar) and runs a main class with the remaining arguments (after --).
tb_run_micro() { # main-class source... -- args...
  local main="$1" work jar srcs=()
  shift
  while [[ $# -gt 0 && "$1" != "--" ]]; do srcs+=("$TB_ROOT/bench/micro/$1"); shift; done
  [[ $# -gt 0 ]] && shift
  tb_ensure_jar
  jar="${TANDEM_JAR:-$TB_ROOT/target/tandem.jar}"
  work=$(mktemp -d /tmp/tandem-micro.XXXXXX)
  javac -d "$work" -cp "$jar" "${srcs[@]}" || { rm -rf "$work"; return 1; }
  local rc=0
  java -Xmx512m -Dai.djl.offline=true -cp "$work:$jar" "$main" "$@" || rc=$?
  rm -rf "$work"
  return $rc
}

# A free loopback TCP port, distinct from the ones this script already took. Chosen below the
# kernel's ephemeral range (net.ipv4.ip_local_port_range), so that no outgoing connection (wrk's,
# a router's to its engines) takes it as its local port between the choice and the server's bind;
# and remembered in a file, because callers run this in $(...), a subshell whose variables are lost.
TB_PORTS_FILE="/tmp/tandem-bench-ports.$$"
tb_free_port() {
  local p i low=32768 lo=20000 hi=50000
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  if (( low > 12000 )); then lo=10000 hi=$(( low - 1 )); fi
  for i in $(seq 1 200); do
    p=$(( lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1) ))
    grep -qx "$p" "$TB_PORTS_FILE" 2>/dev/null && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p" >>"$TB_PORTS_FILE"
      echo "$p"
      return 0
    fi
  done
  tb_die "no free port found"
}

# Starts a command in the background with its output in a log file; its pid goes to TB_LAST_PID
# (call it directly, not in $(...), so the pid is remembered for tb_stop_all).
tb_start() { # logfile command...
  local log="$1"; shift
  "$@" >"$log" 2>&1 &
  TB_LAST_PID=$!
  TB_PIDS+=("$TB_LAST_PID")
}

# Starts a Tandem router that launches its own zero-cost null engines on engine-ports (MLC's
# launch, bench/null-engine-python standing in for Python: the engine API with no model, first
# token at once, NULL_TOKEN_GAP_MS (0) between tokens); its pid goes to TB_LAST_PID, as tb_start.
# The caller's environment (TANDEM_JAVA_OPTS, TANDEM_JAR, NVSHMEM_HOME, NULL_ENGINE_JAVA_OPTS)
# passes through to the router and its engines.
tb_start_zero_router() { # logfile model mode router-port "engine-ports" log-dir [router args...]
  local log="$1" model="$2" mode="$3" port="$4" engine_ports="$5" log_dir="$6"
  shift 6
  # shellcheck disable=SC2086
  NULL_FIRST_TOKEN_MS=0 NULL_TOKEN_GAP_MS="${NULL_TOKEN_GAP_MS:-0}" tb_start "$log" "$TB_TANDEM" \
    router "$model" --router-mode "$mode" --router-host 127.0.0.1 --router-port "$port" \
    --endpoint-ports $engine_ports --log-dir "$log_dir" --engine mlc \
    --python "$TB_ROOT/bench/null-engine-python" "$@"
}

tb_stop_all() {
  local pid i
  for pid in "${TB_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for i in $(seq 1 30); do
    local alive=0
    for pid in "${TB_PIDS[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ $alive -eq 0 ]] && break
    sleep 0.5
  done
  for pid in "${TB_PIDS[@]}"; do kill -KILL "$pid" 2>/dev/null || true; done
  TB_PIDS=()
  rm -f "$TB_PORTS_FILE"
}

# Waits until GET url answers 200, or the process died, or the deadline passed.
tb_wait_http() { # url seconds pid logfile
  local url="$1" secs="$2" pid="$3" log="$4" i
  for i in $(seq 1 $(( secs * 4 ))); do
    if curl -sf -o /dev/null --max-time 2 "$url"; then return 0; fi
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 30 "$log" >&2
      tb_die "process $pid exited before $url answered (log: $log)"
    fi
    sleep 0.25
  done
  tail -n 30 "$log" >&2
  tb_die "$url did not answer within ${secs}s (log: $log)"
}

# Debian's nginx as users run it in front of SSE backends (HTTP/1.1 keep-alive upstream, no
# buffering), listening on nginx-port in front of 127.0.0.1:engine-port, its files under DIR/nginx;
# its pid goes to TB_LAST_PID (the master; its workers are its children).
tb_start_nginx() { # dir engine-port nginx-port
  local dir="$1"; shift
  rm -rf "$dir/nginx"
  mkdir -p "$dir/nginx/logs"
  cat >"$dir/nginx/nginx.conf" <<NGINX
worker_processes auto;
pid $dir/nginx/nginx.pid;
error_log $dir/nginx/logs/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $dir/nginx/body;
  proxy_temp_path $dir/nginx/proxy;
  fastcgi_temp_path $dir/nginx/fastcgi;
  uwsgi_temp_path $dir/nginx/uwsgi;
  scgi_temp_path $dir/nginx/scgi;
  upstream engine {
    server 127.0.0.1:$1;
    keepalive 256;
  }
  server {
    listen 127.0.0.1:$2;
    keepalive_requests 100000;
    location / {
      proxy_pass http://engine;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 600s;
    }
  }
}
NGINX
  tb_start "$dir/nginx-$1.log" nginx -c "$dir/nginx/nginx.conf" -p "$dir/nginx" -g 'daemon off;'
  tb_wait_http "http://127.0.0.1:$2/v1/models" 20 "$TB_LAST_PID" "$dir/nginx-$1.log"
}

# The 1-minute load average: the machine is shared, so every result records how busy it was.
tb_load() { awk '{ print $1 }' /proc/loadavg; }

tb_machine() {
  local model
  model=$(lscpu 2>/dev/null | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
  echo "${model:-unknown CPU}, $(nproc) cores, $(free -g | awk '/^Mem:/{print $2}') GiB RAM, Java $(java -version 2>&1 | head -1 | sed 's/.*"\(.*\)".*/\1/')"
}

# Runs tandem bench with the given arguments (quiet, JSON to the file given as first argument).
tb_bench() { # json-file args...
  local json="$1"; shift
  "$TB_TANDEM" bench --quiet --json "$json" "$@" >/dev/null || true
  [[ -s "$json" ]] || tb_die "tandem bench wrote no report ($json)"
}

# CPU time (user + system, milliseconds) used so far by the given processes and their threads
# (children not included): for "router CPU per request" style measurements.
tb_cpu_ms() { # pid...
  tb_proc_ms '$12 + $13' "$@"
}

# System (kernel) time alone, milliseconds, as tb_cpu_ms: socket work, wake-ups, context switches.
tb_sys_ms() { # pid...
  tb_proc_ms '$13' "$@"
}

tb_proc_ms() { # awk-expression-of-fields pid...
  local expr="$1" pid total=0 ticks hz
  shift
  hz=$(getconf CLK_TCK)
  for pid in "$@"; do
    [[ -r /proc/$pid/stat ]] || continue
    # Fields 14 (utime) and 15 (stime) are $12 and $13 after the ")" that ends the command name.
    ticks=$(sed 's/^.*) //' "/proc/$pid/stat" | awk "{ print $expr }")
    total=$(( total + ticks ))
  done
  echo $(( total * 1000 / hz ))
}
