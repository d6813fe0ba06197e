package dev.tandem.engine.server;

/**
 * How the engine's HTTP server listens and answers.
 *
 * @param modelId the model as given to {@code serve} (reported by /v1/models)
 * @param debug --enable-debug: {@code usage.extra} and the /debug routes
 */
public record EngineServerConfig(String host, int port, String modelId, boolean debug) {}
