package dev.tandem.config;

import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.transport.Transport;

/**
 * {@code --network-transport}: the Netty transport a command's Vert.x is built with. {@code auto}
 * is io_uring where it loads (the router's cheapest under load: BENCHMARKS.md, "The network
 * transport"), else epoll, else NIO; a transport named outright must load, or the command stops
 * with a usage error saying why it cannot.
 */
public final class NetworkTransports {

  private NetworkTransports() {}

  /** {@code builder} set to build its Vert.x on {@code choice}. */
  public static VertxBuilder apply(VertxBuilder builder, NetworkTransport choice) {
    return builder.withTransport(switch (choice) {
      case AUTO -> auto(true);
      case EPOLL -> loaded(Transport.EPOLL, choice);
      case IO_URING -> loaded(Transport.IO_URING, choice);
      case NIO -> Transport.NIO;
    });
  }

  /**
   * As {@code auto} without io_uring: for a Vert.x whose io_uring event loops could not start
   * although io_uring loaded (a ring the kernel refused, a locked-memory limit).
   */
  public static VertxBuilder applyWithoutIoUring(VertxBuilder builder) {
    return builder.withTransport(auto(false));
  }

  /** Whether {@code choice} would pick io_uring: the one transport that may still fail to start. */
  public static boolean picksIoUring(NetworkTransport choice) {
    return choice == NetworkTransport.AUTO && loads(Transport.IO_URING);
  }

  private static Transport auto(boolean ioUring) {
    if (ioUring && loads(Transport.IO_URING)) {
      return Transport.IO_URING;
    }
    return loads(Transport.EPOLL) ? Transport.EPOLL : Transport.NIO;
  }

  private static boolean loads(Transport transport) {
    return transport != null && transport.available();
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
   * What carries {@code vertx}'s connections, for the log: {@code "io_uring"}, {@code "epoll"} or
   * {@code "nio"}, and when {@code choice} left it to {@code auto}, why the better ones are not
   * used ({@code "epoll (io_uring: ...)"}).
   */
  public static String describe(Vertx vertx, NetworkTransport choice) {
    String name = ((VertxInternal) vertx).transport().getClass().getSimpleName();
    String used = switch (name) {
      case "IoUringTransport" -> "io_uring";
      case "EpollTransport" -> "epoll";
      case "NioTransport" -> "nio";
      default -> name;
    };
    if (choice != NetworkTransport.AUTO || used.equals("io_uring")) {
      return used;
    }
    String why = "io_uring: " + whyNot(Transport.IO_URING);
    if (used.equals("nio")) {
      why += "; epoll: " + whyNot(Transport.EPOLL);
    }
    return used + " (" + why + ")";
  }

  private static String whyNot(Transport transport) {
    if (transport == null) {
      return "its classes are not on the class path";
    }
    return transport.available() ? "its event loops did not start"
        : String.valueOf(transport.unavailabilityCause());
  }
}
