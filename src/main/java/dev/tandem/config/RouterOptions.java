package dev.tandem.config;

import static dev.tandem.config.Rule.atLeast;
import static dev.tandem.config.Rule.between;
import static dev.tandem.config.Rule.notBlank;
import static dev.tandem.config.Rule.notNegative;
import static dev.tandem.config.Rule.positive;

import dev.tandem.bus.Addresses;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.List;

/**
 * The router verticle's options: the {@code Router} section of {@link RouterConfig} (same keys and
 * flags), each declared once with its default and rules. Defaults follow {@code mlc_llm router}
 * where it has one (mode disagg, 127.0.0.1:8000, balance factor 0) and are otherwise chosen so
 * that a CPU engine under load is not mistaken for a dead one, while a dead one is noticed within
 * seconds. Read values with {@code options.get(RouterOptions.FIRST_CHUNK_TIMEOUT)}.
 */
public final class RouterOptions extends OptionValues<RouterOptions> {

  public static final OptionTable OPTIONS = new OptionTable("Router");

  public static final Option<RouterMode> ROUTER_MODE = OPTIONS.add(Option.of("routerMode",
      "--router-mode", ValueType.choice(List.of(RouterMode.values()), RouterMode::wireName),
      RouterMode.DISAGG).help("as mlc_llm router"));
  public static final Option<String> FLEET_NAME = OPTIONS.add(Option.string("fleet", "--fleet",
      Addresses.DEFAULT_FLEET).rule(Rule.<String>of(f -> Addresses.FLEET_NAME.matcher(f).matches()
          && !f.endsWith("."), "must be letters, digits, _, - or . (not first or last)"))
      .label("NAME").help("the fleet's name, the first part of every event-bus address"
          + " (NAME.completions, NAME.engine.status, ...): fleets of other names share a cluster"
          + " without seeing each other"));
  public static final Option<String> ROUTER_HOST = OPTIONS.add(Option.string("routerHost",
      "--router-host", "127.0.0.1").rule(notBlank()).label("HOST")
      .help("where the router listens"));
  public static final Option<Integer> ROUTER_PORT = OPTIONS.add(Option.integer("routerPort",
      "--router-port", 8000).rule(between(0, 65535)).label("PORT").help("0: any free port"));
  public static final Option<Integer> ROUTER_LOOPS = OPTIONS.add(Option.integer("routerLoops",
      "--router-loops", 0).rule(between(0, 256)).label("N")
      .help("event loops serving the HTTP API, each running its connections' requests end to end;"
          + " 0: one per core"));
  public static final Option<NetworkTransport> NETWORK_TRANSPORT = OPTIONS.add(Option.of(
      "networkTransport", "--network-transport", ValueType.choice(
          List.of(NetworkTransport.values()), NetworkTransport::wireName), NetworkTransport.AUTO)
      .help("what carries the router process's connections: auto (io_uring where it loads,"
          + " else epoll, else nio), io_uring (cheaper under load), epoll (cheaper for one"
          + " connection) or nio; tandem router's own Vert.x only"));
  public static final Option<Double> PD_BALANCE_FACTOR = OPTIONS.add(Option.number(
      "pdBalanceFactor", "--pd-balance-factor", 0.0)
      .rule(Rule.<Double>of(f -> f >= 0 && f < 1, "must be in [0, 1)")
          .hint("it is the fraction of the prompt's tail prefilled on the decode engine"))
      .label("F")
      .help("fraction of the prompt's tail the decode engine prefills itself, in [0, 1)"));
  public static final Option<Integer> MAX_ENGINE_ATTEMPTS = OPTIONS.add(Option.integer(
      "maxEngineAttempts", "--max-engine-attempts", 3).rule(atLeast(1))
      .help("engines tried per request (or resumed choice) when they fail before any output"));
  public static final Option<Integer> MAX_PREEMPT_RETRIES = OPTIONS.add(Option.integer(
      "maxPreemptRetries", "--max-preempt-retries", 4).rule(atLeast(0))
      .help("resumptions per choice after an engine preempted it"));
  public static final Option<Integer> MAX_FAILOVERS = OPTIONS.add(Option.integer(
      "maxFailovers", "--max-failovers", 3).rule(atLeast(0))
      .help("times a choice moves to another engine after its engine failed mid-answer; 0: the"
          + " answer ends with an error"));
  public static final Option<Duration> CONNECT_TIMEOUT = OPTIONS.add(Option.millis(
      "connectTimeoutMs", "--connect-timeout", Duration.ofSeconds(2)).rule(positive())
      .rule(Rule.of(d -> d.toMillis() <= Integer.MAX_VALUE, "must be at most 2147483647 ms"))
      .help("TCP connect to an engine"));
  public static final Option<Duration> PREP_RECV_TIMEOUT = OPTIONS.add(Option.millis(
      "prepRecvTimeoutMs", "--prep-recv-timeout", Duration.ofSeconds(60)).rule(positive())
      .help("prep_recv on the decode engine (it may wait for KV room)"));
  public static final Option<Duration> REMOTE_SEND_TIMEOUT = OPTIONS.add(Option.millis(
      "remoteSendTimeoutMs", "--remote-send-timeout", Duration.ofSeconds(120)).rule(positive())
      .help("remote_send: the prefill engine's whole prefill plus the KV transfer"));
  public static final Option<Duration> FIRST_CHUNK_TIMEOUT = OPTIONS.add(Option.millis(
      "firstChunkTimeoutMs", "--first-chunk-timeout", Duration.ofSeconds(120)).rule(positive())
      .help("from sending a generation request until its first chunk (queueing, prefill); then 504"
          + " or the next engine"));
  public static final Option<Duration> START_GENERATE_TIMEOUT = OPTIONS.add(Option.millis(
      "startGenerateTimeoutMs", "--start-generate-timeout", Duration.ofSeconds(30))
      .rule(positive()).help("from start_generate until its first chunk (the decode engine"
          + " computes only the prompt's tail, so a long wait means it cannot admit the request)"));
  public static final Option<Duration> CHUNK_IDLE_TIMEOUT = OPTIONS.add(Option.millis(
      "chunkIdleTimeoutMs", "--chunk-idle-timeout", Duration.ofSeconds(30)).rule(positive())
      .help("longest silence between two chunks of a running generation"));
  public static final Option<Duration> RELEASE_TIMEOUT = OPTIONS.add(Option.millis(
      "releaseTimeoutMs", "--release-timeout", Duration.ofSeconds(5)).rule(positive())
      .help("/microserving/release of a KV reservation"));
  public static final Option<Integer> MAX_CONNECTIONS_PER_ENGINE = OPTIONS.add(Option.integer(
      "maxConnectionsPerEngine", "--max-connections-per-engine", 1024).rule(atLeast(1))
      .help("HTTP connections each of the router's event loops keeps to one engine"));
  public static final Option<Integer> MAX_BODY_BYTES = OPTIONS.add(Option.integer(
      "maxBodyBytes", "--max-body-bytes", 16 * 1024 * 1024).rule(atLeast(1024))
      .help("largest request body; a larger one is a 413"));
  public static final Option<Integer> RETRY_AFTER_SECONDS = OPTIONS.add(Option.integer(
      "retryAfterSeconds", "--retry-after-seconds", 1).rule(atLeast(1))
      .help("Retry-After of a 503 (no usable engine, busy fleet) and of a 429 for a full queue"));
  public static final Option<Duration> BUSY_WAIT = OPTIONS.add(Option.millis(
      "busyWaitMs", "--busy-wait", Duration.ofSeconds(30)).rule(notNegative())
      .help("how long a request keeps retrying engines that answer 503 (KV cache full); 0: once"));
  public static final Option<Boolean> REQUEST_TOKEN_IDS = OPTIONS.add(Option.bool(
      "requestTokenIds", "--request-token-ids", true)
      .help("ask engines for each chunk's token ids (builtin engines), for exact preempt"
          + " resumption"));
  public static final Option<Integer> TOKENIZER_CACHE_MB = OPTIONS.add(Option.integer(
      "tokenizerCacheMb", "--tokenizer-cache-mb", -1).rule(atLeast(-1)).label("MB")
      .help("the router's tokenizer keeps the token ids of long prompts' beginnings in this much"
          + " memory, so that a chat's history is tokenized once, not every turn; -1: 16 Mi chars"
          + " (about 32-48 MB), less where that is over a 32nd of the heap; 0: off"));
  public static final Option<String> CHAT_TEMPLATE = OPTIONS.add(Option.string("chatTemplate",
      "--chat-template", null).rule(notBlank()).label("FILE")
      .help("Jinja chat template (or a JSON file with chat_template) instead of the model's own"));
  public static final Option<String> TOOL_CALL_PARSER = OPTIONS.add(Option.of("toolCallParser",
      "--tool-call-parser", ValueType.choice(List.of("none", "hermes"), s -> s), "none")
      .help("hermes: <tool_call>{json}</tool_call> in a chat answer that was offered tools becomes"
          + " tool_calls"));
  /** Null: cache-aware when the engines keep a prefix cache, else least-loaded (RouterConfig). */
  public static final Option<String> POLICY = OPTIONS.add(Option.of("policy", "--policy",
      ValueType.choice(List.of("least-loaded", "cache-aware"), s -> s), null)
      .help("how engines are chosen; none: cache-aware with --enable-prefix-cache, else"
          + " least-loaded (docs/routing.md)"));
  public static final Option<Double> CACHE_THRESHOLD = OPTIONS.add(Option.number(
      "cacheThreshold", "--cache-threshold", 0.5)
      .rule(Rule.<Double>of(f -> f >= 0 && f <= 1, "must be in [0, 1]")).label("F")
      .help("cache-aware: route by prefix only when the best match covers more than this share"
          + " of the prompt (SGLang's 0.5)"));
  public static final Option<Integer> BALANCE_ABS = OPTIONS.add(Option.integer("balanceAbs",
      "--balance-abs", 64).rule(atLeast(0)).help("cache-aware: load is imbalanced when the"
          + " busiest engine has more than this many requests over the idlest (SGLang's 64)..."));
  public static final Option<Double> BALANCE_REL = OPTIONS.add(Option.number("balanceRel",
      "--balance-rel", 1.5).rule(Rule.<Double>of(f -> f >= 1, "must be at least 1")).label("X")
      .help("... and more than this many times its load (SGLang's 1.5); then least-loaded wins"));
  public static final Option<String> PD_POLICY = OPTIONS.add(Option.of("pdPolicy", "--pd-policy",
      ValueType.choice(List.of("static", "adaptive"), s -> s), "static")
      .help("disagg: static (--pd-balance-factor for every request) or adaptive (D alone, full"
          + " or partial disaggregation per request, from the P and D queues)"));
  public static final Option<Integer> PD_SHORT_PROMPT = OPTIONS.add(Option.integer(
      "pdShortPrompt", "--pd-short-prompt", 256).rule(atLeast(0))
      .help("adaptive: uncached prompt tokens at or below which the decode engine prefills alone"));
  public static final Option<Integer> PD_PREFILL_BUSY = OPTIONS.add(Option.integer(
      "pdPrefillBusy", "--pd-prefill-busy", 4).rule(atLeast(1))
      .help("adaptive: a prefill queue this long (requests) sends requests to the decode engine"
          + " alone, until the prefill engine's rate is measured (then --pd-prefill-wait)"));
  public static final Option<Integer> PD_PREFILL_WAIT = OPTIONS.add(Option.integer(
      "pdPrefillWait", "--pd-prefill-wait", 1500).rule(atLeast(1))
      .help("adaptive: milliseconds of prefill work (the prompts sent to the prefill engine and"
          + " this one, at its measured rate) beyond which the prefill engine counts as busy:"
          + " the TTFT a long prompt may spend queued at P to keep its prefill off the decode engine"));

  public static final Option<String> API_KEY_FILE = OPTIONS.add(Option.string("apiKeyFile",
      "--api-key-file", null).rule(notBlank()).label("FILE")
      .help("keys for /v1/* and the bus API, one per line (KEY [name=N] [rpm=N] [tpm=N]); also"
          + " TANDEM_API_KEYS; none: open (docs/operations.md)"));
  public static final Option<String> ADMIN_KEY_FILE = OPTIONS.add(Option.string("adminKeyFile",
      "--admin-key-file", null).rule(notBlank()).label("FILE")
      .help("keys for /admin/*, /metrics and /dashboard (they open /v1/* too); none: open"));
  public static final Option<Integer> ADMIN_PORT = OPTIONS.add(Option.of("adminPort",
      "--admin-port", ValueType.INTEGER, null).rule(between(0, 65535)).label("PORT")
      .help("serve /admin/*, /metrics, /fleet and /dashboard on this port only, so a Service or"
          + " proxy can leave them out; none: on --router-port; 0: any free port"));
  public static final Option<Integer> MAX_CONCURRENT = OPTIONS.add(Option.integer(
      "maxConcurrent", "--max-concurrent", 0).rule(atLeast(0))
      .help("requests running at once (HTTP and bus); more wait in the queue; 0: no limit"));
  public static final Option<Integer> MAX_QUEUE = OPTIONS.add(Option.integer("maxQueue",
      "--max-queue", 64).rule(atLeast(0))
      .help("requests waiting for --max-concurrent; beyond it a 429 with Retry-After"));
  public static final Option<Duration> QUEUE_TIMEOUT = OPTIONS.add(Option.millis(
      "queueTimeoutMs", "--queue-timeout", Duration.ofSeconds(30)).rule(positive())
      .help("longest wait in the queue; then a 429 with Retry-After"));
  public static final Option<Integer> KEY_RPM = OPTIONS.add(Option.integer("keyRequestsPerMinute",
      "--key-rpm", 0).rule(atLeast(0))
      .help("requests per minute per API key (token bucket; a key's rpm= wins); 0: no limit"));
  public static final Option<Integer> KEY_TPM = OPTIONS.add(Option.integer("keyTokensPerMinute",
      "--key-tpm", 0).rule(atLeast(0))
      .help("prompt + completion tokens per minute per API key (max_tokens reserved up front,"
          + " settled on the answer's usage; a key's tpm= wins); 0: no limit"));
  public static final Option<Duration> REMOVE_GRACE = OPTIONS.add(Option.millis(
      "removeGraceMs", "--remove-grace", Duration.ofSeconds(30)).rule(notNegative())
      .help("DELETE /admin/engines/{id}: how long the drained engine's in-flight requests may"
          + " take before it is stopped"));

  public static final Option<String> ACCESS_LOG = OPTIONS.add(Option.string("accessLog",
      "--access-log", null).rule(notBlank()).label("FILE")
      .help("one JSON line per request (who, ids, status, tokens, times) appended to FILE;"
          + " '-' for standard output; none: no access log (docs/operations.md)"));
  public static final Option<Duration> DRAIN_TIMEOUT = OPTIONS.add(Option.millis(
      "drainTimeoutMs", "--drain-timeout", Duration.ofSeconds(20)).rule(notNegative())
      .help("SIGTERM or Ctrl-C: how long the requests in flight may take to finish (new ones get"
          + " 503, /ready says stopping) before the engines are stopped; 0: stop at once"));

  /** The event-bus addresses of this router's fleet ({@link #FLEET_NAME}). */
  public Addresses addresses() {
    return Addresses.of(get(FLEET_NAME));
  }

  /** The routing policy; unset (a router deployed without a fleet configuration): least-loaded. */
  public String policy() {
    String policy = get(POLICY);
    return policy == null ? "least-loaded" : policy;
  }

  /** Every option at its default. */
  public RouterOptions() {
    super(OPTIONS);
  }

  /** Reads the router's keys of {@code conf/router.json}; see {@link OptionValues}. */
  public RouterOptions(JsonObject json) {
    super(OPTIONS, json);
  }

  /** The router section of a whole configuration. */
  static RouterOptions of(OptionValues<?> config) {
    RouterOptions options = new RouterOptions();
    options.copyFrom(config);
    return options;
  }
}
