package dev.tandem.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.transport.Transport;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code --network-transport}: each choice builds a Vert.x on that transport, which serves HTTP. */
class NetworkTransportsTest {

  /**
   * What the Vert.x built for {@code choice} runs on, after one HTTP exchange over loopback. The
   * waits are generous: CI once timed this exchange out at 10 s (cause not found; it passes alone
   * and in the whole suite elsewhere).
   */
  private static String serveOneRequest(NetworkTransport choice) throws Exception {
    Vertx vertx = NetworkTransports.apply(Vertx.builder(), choice).build();
    try {
      HttpServer server = vertx.createHttpServer()
          .requestHandler(req -> req.body().onSuccess(b -> req.response().end("echo:" + b)))
          .listen(0, "127.0.0.1").await(30, TimeUnit.SECONDS);
      HttpClient client = vertx.createHttpClient();
      Buffer body = client.request(HttpMethod.POST, server.actualPort(), "127.0.0.1", "/")
          .compose(req -> req.send("hi")).compose(HttpClientResponse::body)
          .await(30, TimeUnit.SECONDS);
      assertEquals("echo:hi", body.toString());
      return NetworkTransports.describe(vertx, choice);
    } finally {
      vertx.close().await(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void nioRunsEverywhere() throws Exception {
    assertEquals("nio", serveOneRequest(NetworkTransport.NIO));
  }

  @Test
  void autoIsIoUringWhereItLoadsElseEpollElseNioSayingWhy() throws Exception {
    String auto = serveOneRequest(NetworkTransport.AUTO);
    if (Transport.IO_URING.available()) {
      assertEquals("io_uring", auto);
    } else if (Transport.EPOLL.available()) {
      assertTrue(auto.startsWith("epoll (io_uring: "), "says why io_uring did not load: " + auto);
    } else {
      assertTrue(auto.startsWith("nio (io_uring: ") && auto.contains("; epoll: "),
          "says why neither native transport loaded: " + auto);
    }
  }

  @Test
  void epollAndIoUringWhereTheyLoad() throws Exception {
    assumeTrue(Transport.EPOLL.available(), "epoll does not load here");
    assertEquals("epoll", serveOneRequest(NetworkTransport.EPOLL));
    assumeTrue(Transport.IO_URING.available(), "io_uring does not load here: "
        + Transport.IO_URING.unavailabilityCause());
    assertEquals("io_uring", serveOneRequest(NetworkTransport.IO_URING));
  }

  /** A transport as Vert.x reports one the kernel refuses (io_uring under a seccomp profile). */
  private static Transport refused(String why) {
    return new Transport() {
      @Override
      public String name() {
        return "io_uring";
      }

      @Override
      public boolean available() {
        return false;
      }

      @Override
      public Throwable unavailabilityCause() {
        return new UnsupportedOperationException(why);
      }

      @Override
      public io.vertx.core.spi.transport.Transport implementation() {
        throw new UnsupportedOperationException();
      }
    };
  }

  @Test
  void aTransportNamedOutrightThatCannotLoadIsAUsageErrorSayingWhy() {
    ConfigException e = assertThrows(ConfigException.class, () -> NetworkTransports.loaded(
        refused("io_uring_setup: Operation not permitted"), NetworkTransport.IO_URING));
    assertEquals("--network-transport io_uring: not available here"
        + " (java.lang.UnsupportedOperationException: io_uring_setup: Operation not permitted);"
        + " auto or nio run everywhere", e.getMessage());
    // Vert.x leaves a transport whose classes are missing null (kqueue, on this jar)
    ConfigException missing = assertThrows(ConfigException.class,
        () -> NetworkTransports.loaded(null, NetworkTransport.EPOLL));
    assertTrue(missing.getMessage().contains("its classes are not on the class path"),
        missing.getMessage());
  }
}
