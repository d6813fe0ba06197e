package dev.tandem.fleet;

import dev.tandem.api.FleetSecret;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.WebClientSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP client an EngineVerticle probes its engine with (readiness, health, load, drain):
 * one that sends the fleet's secret with every call when the engine's command carries one
 * ({@link FleetSecret#ENV}), so that an engine beyond loopback answers its own watcher.
 *
 * <p>An engine that dies resets the probe connections it had open. A call in flight fails with
 * that (and the watcher reports the engine's state); a reset that reaches a connection with no
 * call on it, Vert.x would log as a bare "ERROR ConnectionBase - Connection reset" beside the
 * engine's UNHEALTHY line, so each connection's own failures are logged here, at debug.
 */
final class FleetSecretCalls {

  private static final Logger LOG = LoggerFactory.getLogger(FleetSecretCalls.class);

  private FleetSecretCalls() {}

  static WebClient client(Vertx vertx, EngineCommand command) {
    HttpClientAgent http = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setKeepAlive(false))
        .withConnectHandler(connection -> connection.exceptionHandler(e -> LOG.debug(
            "probe connection to {} failed: {}", connection.remoteAddress(), e.toString())))
        .build();
    WebClient plain = WebClient.wrap(http, new WebClientOptions().setKeepAlive(false));
    String secret = command.extraEnv().get(FleetSecret.ENV);
    return secret == null ? plain : WebClientSession.create(plain).addHeader(FleetSecret.HEADER,
        secret);
  }
}
