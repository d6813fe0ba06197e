package dev.tandem.fleet;

import dev.tandem.api.FleetSecret;
import io.vertx.core.Vertx;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import io.vertx.ext.web.client.WebClientSession;

/**
 * The HTTP client an EngineVerticle probes its engine with (readiness, health, load, drain):
 * one that sends the fleet's secret with every call when the engine's command carries one
 * ({@link FleetSecret#ENV}), so that an engine beyond loopback answers its own watcher.
 */
final class FleetSecretCalls {

  private FleetSecretCalls() {}

  static WebClient client(Vertx vertx, EngineCommand command) {
    WebClient plain = WebClient.create(vertx, new WebClientOptions().setKeepAlive(false));
    String secret = command.extraEnv().get(FleetSecret.ENV);
    return secret == null ? plain : WebClientSession.create(plain).addHeader(FleetSecret.HEADER,
        secret);
  }
}
