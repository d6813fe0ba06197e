package dev.tandem.cli;

import dev.tandem.config.ConfigException;
import dev.tandem.config.NetworkTransport;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.transport.Transport;

/**
 * {@code --network-transport}: the Netty transport a command's Vert.x is built with. {@code auto}
 * is epoll where it loads, else NIO; a transport named outright must load, or the command stops
 * with a usage error saying why it cannot.
 */
final class NetworkTransports {

  private NetworkTransports() {}

  /** {@code builder} set to build its Vert.x on {@code choice}. */
  static VertxBuilder apply(VertxBuilder builder, NetworkTransport choice) {
    return switch (choice) {
      case AUTO -> builder.withTransport(Transport.EPOLL != null && Transport.EPOLL.available()
          ? Transport.EPOLL : Transport.NIO);
      case EPOLL -> builder.withTransport(loaded(Transport.EPOLL, choice));
      case IO_URING -> builder.withTransport(loaded(Transport.IO_URING, choice));
      case NIO -> builder.withTransport(Transport.NIO);
    };
  }

  /** {@code transport} (null: Vert.x found no such class), if it loads here; else a usage error. */
  static Transport loaded(Transport transport, NetworkTransport choice) {
    if (transport == null || !transport.available()) {
      Object why = transport == null ? "its classes are not on the class path"
          : transport.unavailabilityCause();
      throw new ConfigException("--network-transport " + choice + ": not available here ("
          + (why == null ? "no reason given" : why) + "); auto or nio run everywhere");
    }
    return transport;
  }

  /**
   * What carries {@code vertx}'s connections, for the log: {@code "epoll"}, {@code "io_uring"},
   * or {@code "nio"} with why epoll did not load when {@code choice} left it to {@code auto}.
   */
  static String describe(Vertx vertx, NetworkTransport choice) {
    String name = ((VertxInternal) vertx).transport().getClass().getSimpleName();
    return switch (name) {
      case "EpollTransport" -> "epoll";
      case "IoUringTransport" -> "io_uring";
      case "NioTransport" -> choice == NetworkTransport.AUTO
          && Transport.EPOLL != null ? "nio (epoll: " + Transport.EPOLL.unavailabilityCause() + ")"
          : "nio";
      default -> name;
    };
  }
}
