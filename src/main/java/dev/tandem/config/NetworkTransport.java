package dev.tandem.config;

/**
 * The network transport of the {@code tandem router} process's Vert.x ({@code --network-transport}):
 * which Netty transport carries every client and engine connection. BENCHMARKS.md ("The network
 * transport") has what each costs.
 */
public enum NetworkTransport {
  /**
   * Netty's io_uring transport where it loads and starts, else its native epoll transport where
   * that loads (Linux x86-64), else Java NIO.
   */
  AUTO("auto"),
  /** Netty's native epoll transport; the router does not start where it cannot load. */
  EPOLL("epoll"),
  /**
   * Netty's io_uring transport (a recent Linux kernel, where neither the host nor a container's
   * seccomp profile forbids io_uring); the router does not start where it cannot load.
   */
  IO_URING("io_uring"),
  /** Java NIO, which runs everywhere. */
  NIO("nio");

  private final String wireName;

  NetworkTransport(String wireName) {
    this.wireName = wireName;
  }

  /** The name used on the command line and in JSON. */
  public String wireName() {
    return wireName;
  }

  @Override
  public String toString() {
    return wireName;
  }
}
