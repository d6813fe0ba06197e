package dev.tandem.api;

import io.vertx.core.http.HttpServerOptions;

/**
 * The options every Tandem HTTP server starts from: the router's API and admin servers, the
 * builtin engine's, the relay floor's. Tandem serves no WebSockets, so the WebSocket compression
 * handshakers are off: with either on, Vert.x puts a {@code WebSocketServerExtensionHandler} in
 * every HTTP/1 connection's pipeline, which looks at each request's headers for an upgrade and
 * sits in the path of each response write.
 */
public final class HttpServers {

  private HttpServers() {}

  /** Plain HTTP/1 and HTTP/2 on {@code host:port}, Nagle off. */
  public static HttpServerOptions options(String host, int port) {
    return new HttpServerOptions().setHost(host).setPort(port).setTcpNoDelay(true)
        .setPerFrameWebSocketCompressionSupported(false)
        .setPerMessageWebSocketCompressionSupported(false);
  }
}
