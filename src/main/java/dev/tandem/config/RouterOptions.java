package dev.tandem.config;

import io.vertx.core.json.JsonObject;

/**
 * Typed, validated options of the router verticle, with a JSON round trip (camelCase keys, the
 * same names as the setters). Defaults follow {@code mlc_llm router} where it has one (mode
 * disagg, 127.0.0.1:8000, balance factor 0) and are otherwise chosen so that a CPU engine under
 * load is not mistaken for a dead one, while a dead one is noticed within seconds.
 */
public final class RouterOptions {

  public static final RouterMode DEFAULT_MODE = RouterMode.DISAGG;
  public static final String DEFAULT_HOST = "127.0.0.1";
  public static final int DEFAULT_PORT = 8000;
  public static final double DEFAULT_PD_BALANCE_FACTOR = 0.0;
  /** Engine attempts per request (or resumed choice) when engines fail before any output. */
  public static final int DEFAULT_MAX_ENGINE_ATTEMPTS = 3;
  /** Resumptions per choice after the engine preempted it. */
  public static final int DEFAULT_MAX_PREEMPT_RETRIES = 4;
  public static final int DEFAULT_CONNECT_TIMEOUT_MS = 2_000;
  /** prep_recv may wait for KV room on D. */
  public static final long DEFAULT_PREP_RECV_TIMEOUT_MS = 60_000;
  /** remote_send covers P's whole prefill plus the transfer. */
  public static final long DEFAULT_REMOTE_SEND_TIMEOUT_MS = 120_000;
  /** From sending a generation request until its first chunk: queueing and local prefill. */
  public static final long DEFAULT_FIRST_CHUNK_TIMEOUT_MS = 120_000;
  /**
   * From start_generate until its first chunk: D computes only the prompt's tail, so a long wait
   * means D cannot admit the request (queueing, or an engine stuck with a full cache).
   */
  public static final long DEFAULT_START_GENERATE_TIMEOUT_MS = 30_000;
  /** Longest silence between two chunks of a running generation. */
  public static final long DEFAULT_CHUNK_IDLE_TIMEOUT_MS = 30_000;
  public static final long DEFAULT_RELEASE_TIMEOUT_MS = 5_000;
  public static final int DEFAULT_MAX_CONNECTIONS_PER_ENGINE = 1_024;
  public static final int DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
  public static final int DEFAULT_RETRY_AFTER_SECONDS = 1;
  /** How long a request may keep retrying engines that answer "busy" (503, e.g. KV cache full). */
  public static final long DEFAULT_BUSY_WAIT_MS = 30_000;
  /** Ask engines for the token ids of each chunk (builtin engines), for exact preempt resumption. */
  public static final boolean DEFAULT_REQUEST_TOKEN_IDS = true;
  /** Engine choice: {@code least-loaded} or {@code cache-aware} (router.policy.RoutePolicy). */
  public static final String DEFAULT_POLICY = "least-loaded";
  /** Cache-aware: route by prefix only if the best match covers more than this share (SGLang 0.5). */
  public static final double DEFAULT_CACHE_THRESHOLD = 0.5;
  /** Cache-aware: imbalanced when max - min load exceeds this (SGLang 64)... */
  public static final int DEFAULT_BALANCE_ABS = 64;
  /** ... and max exceeds this times min (SGLang 1.5). */
  public static final double DEFAULT_BALANCE_REL = 1.5;
  /** Disagg: {@code static} (pdBalanceFactor for every request) or {@code adaptive}. */
  public static final String DEFAULT_PD_POLICY = "static";
  /** Adaptive: uncached prompt tokens at or below which D prefills alone. */
  public static final int DEFAULT_PD_SHORT_PROMPT = 256;
  /** Adaptive: a prefill queue this long (requests) sends requests to D alone. */
  public static final int DEFAULT_PD_PREFILL_BUSY = 4;

  private RouterMode mode = DEFAULT_MODE;
  private String host = DEFAULT_HOST;
  private int port = DEFAULT_PORT;
  private double pdBalanceFactor = DEFAULT_PD_BALANCE_FACTOR;
  private int maxEngineAttempts = DEFAULT_MAX_ENGINE_ATTEMPTS;
  private int maxPreemptRetries = DEFAULT_MAX_PREEMPT_RETRIES;
  private int connectTimeoutMs = DEFAULT_CONNECT_TIMEOUT_MS;
  private long prepRecvTimeoutMs = DEFAULT_PREP_RECV_TIMEOUT_MS;
  private long remoteSendTimeoutMs = DEFAULT_REMOTE_SEND_TIMEOUT_MS;
  private long firstChunkTimeoutMs = DEFAULT_FIRST_CHUNK_TIMEOUT_MS;
  private long startGenerateTimeoutMs = DEFAULT_START_GENERATE_TIMEOUT_MS;
  private long chunkIdleTimeoutMs = DEFAULT_CHUNK_IDLE_TIMEOUT_MS;
  private long releaseTimeoutMs = DEFAULT_RELEASE_TIMEOUT_MS;
  private int maxConnectionsPerEngine = DEFAULT_MAX_CONNECTIONS_PER_ENGINE;
  private int maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
  private int retryAfterSeconds = DEFAULT_RETRY_AFTER_SECONDS;
  private long busyWaitMs = DEFAULT_BUSY_WAIT_MS;
  private boolean requestTokenIds = DEFAULT_REQUEST_TOKEN_IDS;
  private String policy = DEFAULT_POLICY;
  private double cacheThreshold = DEFAULT_CACHE_THRESHOLD;
  private int balanceAbs = DEFAULT_BALANCE_ABS;
  private double balanceRel = DEFAULT_BALANCE_REL;
  private String pdPolicy = DEFAULT_PD_POLICY;
  private int pdShortPrompt = DEFAULT_PD_SHORT_PROMPT;
  private int pdPrefillBusy = DEFAULT_PD_PREFILL_BUSY;

  public RouterOptions() {}

  public RouterOptions(JsonObject json) {
    mode = RouterMode.parse(json.getString("mode", DEFAULT_MODE.wireName()));
    host = json.getString("host", DEFAULT_HOST);
    port = json.getInteger("port", DEFAULT_PORT);
    pdBalanceFactor = json.getDouble("pdBalanceFactor", DEFAULT_PD_BALANCE_FACTOR);
    maxEngineAttempts = json.getInteger("maxEngineAttempts", DEFAULT_MAX_ENGINE_ATTEMPTS);
    maxPreemptRetries = json.getInteger("maxPreemptRetries", DEFAULT_MAX_PREEMPT_RETRIES);
    connectTimeoutMs = json.getInteger("connectTimeoutMs", DEFAULT_CONNECT_TIMEOUT_MS);
    prepRecvTimeoutMs = json.getLong("prepRecvTimeoutMs", DEFAULT_PREP_RECV_TIMEOUT_MS);
    remoteSendTimeoutMs = json.getLong("remoteSendTimeoutMs", DEFAULT_REMOTE_SEND_TIMEOUT_MS);
    firstChunkTimeoutMs = json.getLong("firstChunkTimeoutMs", DEFAULT_FIRST_CHUNK_TIMEOUT_MS);
    startGenerateTimeoutMs = json.getLong("startGenerateTimeoutMs", DEFAULT_START_GENERATE_TIMEOUT_MS);
    chunkIdleTimeoutMs = json.getLong("chunkIdleTimeoutMs", DEFAULT_CHUNK_IDLE_TIMEOUT_MS);
    releaseTimeoutMs = json.getLong("releaseTimeoutMs", DEFAULT_RELEASE_TIMEOUT_MS);
    maxConnectionsPerEngine = json.getInteger("maxConnectionsPerEngine", DEFAULT_MAX_CONNECTIONS_PER_ENGINE);
    maxBodyBytes = json.getInteger("maxBodyBytes", DEFAULT_MAX_BODY_BYTES);
    retryAfterSeconds = json.getInteger("retryAfterSeconds", DEFAULT_RETRY_AFTER_SECONDS);
    busyWaitMs = json.getLong("busyWaitMs", DEFAULT_BUSY_WAIT_MS);
    requestTokenIds = json.getBoolean("requestTokenIds", DEFAULT_REQUEST_TOKEN_IDS);
    policy = json.getString("policy", DEFAULT_POLICY);
    cacheThreshold = json.getDouble("cacheThreshold", DEFAULT_CACHE_THRESHOLD);
    balanceAbs = json.getInteger("balanceAbs", DEFAULT_BALANCE_ABS);
    balanceRel = json.getDouble("balanceRel", DEFAULT_BALANCE_REL);
    pdPolicy = json.getString("pdPolicy", DEFAULT_PD_POLICY);
    pdShortPrompt = json.getInteger("pdShortPrompt", DEFAULT_PD_SHORT_PROMPT);
    pdPrefillBusy = json.getInteger("pdPrefillBusy", DEFAULT_PD_PREFILL_BUSY);
  }

  public JsonObject toJson() {
    return new JsonObject().put("mode", mode.wireName()).put("host", host).put("port", port)
        .put("pdBalanceFactor", pdBalanceFactor).put("maxEngineAttempts", maxEngineAttempts)
        .put("maxPreemptRetries", maxPreemptRetries).put("connectTimeoutMs", connectTimeoutMs)
        .put("prepRecvTimeoutMs", prepRecvTimeoutMs).put("remoteSendTimeoutMs", remoteSendTimeoutMs)
        .put("firstChunkTimeoutMs", firstChunkTimeoutMs)
        .put("startGenerateTimeoutMs", startGenerateTimeoutMs).put("chunkIdleTimeoutMs", chunkIdleTimeoutMs)
        .put("releaseTimeoutMs", releaseTimeoutMs)
        .put("maxConnectionsPerEngine", maxConnectionsPerEngine)
        .put("maxBodyBytes", maxBodyBytes).put("retryAfterSeconds", retryAfterSeconds)
        .put("busyWaitMs", busyWaitMs)
        .put("requestTokenIds", requestTokenIds)
        .put("policy", policy).put("cacheThreshold", cacheThreshold).put("balanceAbs", balanceAbs)
        .put("balanceRel", balanceRel).put("pdPolicy", pdPolicy)
        .put("pdShortPrompt", pdShortPrompt).put("pdPrefillBusy", pdPrefillBusy);
  }

  /**
   * Checks every value; the message names the option and the allowed range.
   *
   * @throws IllegalArgumentException on the first bad value
   */
  public RouterOptions validate() {
    require(pdBalanceFactor >= 0 && pdBalanceFactor < 1,
        "pdBalanceFactor must be in [0, 1), got " + pdBalanceFactor);
    require(port >= 0 && port <= 65535, "port must be in [0, 65535], got " + port);
    require(host != null && !host.isBlank(), "host must not be empty");
    require(maxEngineAttempts >= 1, "maxEngineAttempts must be at least 1, got " + maxEngineAttempts);
    require(maxPreemptRetries >= 0, "maxPreemptRetries must be at least 0, got " + maxPreemptRetries);
    require(connectTimeoutMs > 0 && prepRecvTimeoutMs > 0 && remoteSendTimeoutMs > 0
        && firstChunkTimeoutMs > 0 && startGenerateTimeoutMs > 0 && chunkIdleTimeoutMs > 0 && releaseTimeoutMs > 0,
        "every timeout must be positive");
    require(busyWaitMs >= 0, "busyWaitMs must be >= 0 (0: a busy engine is tried once)");
    require(maxConnectionsPerEngine >= 1, "maxConnectionsPerEngine must be at least 1");
    require(maxBodyBytes >= 1024, "maxBodyBytes must be at least 1024");
    require(retryAfterSeconds >= 1, "retryAfterSeconds must be at least 1");
    require(policy.equals("least-loaded") || policy.equals("cache-aware"),
        "policy must be cache-aware or least-loaded, got " + policy);
    require(cacheThreshold >= 0 && cacheThreshold <= 1, "cacheThreshold must be in [0, 1]");
    require(balanceAbs >= 0 && balanceRel >= 1, "balanceAbs must be >= 0 and balanceRel >= 1");
    require(pdPolicy.equals("static") || pdPolicy.equals("adaptive"),
        "pdPolicy must be static or adaptive, got " + pdPolicy);
    require(pdShortPrompt >= 0 && pdPrefillBusy >= 1,
        "pdShortPrompt must be >= 0 and pdPrefillBusy >= 1");
    return this;
  }

  private static void require(boolean ok, String message) {
    if (!ok) {
      throw new IllegalArgumentException(message);
    }
  }

  public RouterMode getMode() { return mode; }
  public RouterOptions setMode(RouterMode mode) { this.mode = mode; return this; }
  public String getHost() { return host; }
  public RouterOptions setHost(String host) { this.host = host; return this; }
  public int getPort() { return port; }
  public RouterOptions setPort(int port) { this.port = port; return this; }
  public double getPdBalanceFactor() { return pdBalanceFactor; }
  public RouterOptions setPdBalanceFactor(double f) { this.pdBalanceFactor = f; return this; }
  public int getMaxEngineAttempts() { return maxEngineAttempts; }
  public RouterOptions setMaxEngineAttempts(int n) { this.maxEngineAttempts = n; return this; }
  public int getMaxPreemptRetries() { return maxPreemptRetries; }
  public RouterOptions setMaxPreemptRetries(int n) { this.maxPreemptRetries = n; return this; }
  public int getConnectTimeoutMs() { return connectTimeoutMs; }
  public RouterOptions setConnectTimeoutMs(int ms) { this.connectTimeoutMs = ms; return this; }
  public long getPrepRecvTimeoutMs() { return prepRecvTimeoutMs; }
  public RouterOptions setPrepRecvTimeoutMs(long ms) { this.prepRecvTimeoutMs = ms; return this; }
  public long getRemoteSendTimeoutMs() { return remoteSendTimeoutMs; }
  public RouterOptions setRemoteSendTimeoutMs(long ms) { this.remoteSendTimeoutMs = ms; return this; }
  public long getFirstChunkTimeoutMs() { return firstChunkTimeoutMs; }
  public RouterOptions setFirstChunkTimeoutMs(long ms) { this.firstChunkTimeoutMs = ms; return this; }
  public long getStartGenerateTimeoutMs() { return startGenerateTimeoutMs; }
  public RouterOptions setStartGenerateTimeoutMs(long ms) { this.startGenerateTimeoutMs = ms; return this; }
  public long getChunkIdleTimeoutMs() { return chunkIdleTimeoutMs; }
  public RouterOptions setChunkIdleTimeoutMs(long ms) { this.chunkIdleTimeoutMs = ms; return this; }
  public long getReleaseTimeoutMs() { return releaseTimeoutMs; }
  public RouterOptions setReleaseTimeoutMs(long ms) { this.releaseTimeoutMs = ms; return this; }
  public int getMaxConnectionsPerEngine() { return maxConnectionsPerEngine; }
  public RouterOptions setMaxConnectionsPerEngine(int n) { this.maxConnectionsPerEngine = n; return this; }
  public int getMaxBodyBytes() { return maxBodyBytes; }
  public RouterOptions setMaxBodyBytes(int n) { this.maxBodyBytes = n; return this; }
  public int getRetryAfterSeconds() { return retryAfterSeconds; }
  public RouterOptions setRetryAfterSeconds(int s) { this.retryAfterSeconds = s; return this; }
  public long getBusyWaitMs() { return busyWaitMs; }
  public RouterOptions setBusyWaitMs(long ms) { this.busyWaitMs = ms; return this; }
  public boolean isRequestTokenIds() { return requestTokenIds; }
  public RouterOptions setRequestTokenIds(boolean b) { this.requestTokenIds = b; return this; }
  public String getPolicy() { return policy; }
  public RouterOptions setPolicy(String p) { this.policy = p; return this; }
  public double getCacheThreshold() { return cacheThreshold; }
  public RouterOptions setCacheThreshold(double t) { this.cacheThreshold = t; return this; }
  public int getBalanceAbs() { return balanceAbs; }
  public RouterOptions setBalanceAbs(int n) { this.balanceAbs = n; return this; }
  public double getBalanceRel() { return balanceRel; }
  public RouterOptions setBalanceRel(double r) { this.balanceRel = r; return this; }
  public String getPdPolicy() { return pdPolicy; }
  public RouterOptions setPdPolicy(String p) { this.pdPolicy = p; return this; }
  public int getPdShortPrompt() { return pdShortPrompt; }
  public RouterOptions setPdShortPrompt(int n) { this.pdShortPrompt = n; return this; }
  public int getPdPrefillBusy() { return pdPrefillBusy; }
  public RouterOptions setPdPrefillBusy(int n) { this.pdPrefillBusy = n; return this; }
}
