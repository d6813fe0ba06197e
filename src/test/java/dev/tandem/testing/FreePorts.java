package dev.tandem.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Distinct free loopback ports for tests that must name ports up front (engines, routers).
 *
 * <p>They are drawn below the kernel's ephemeral range: a port taken from that range with
 * {@code bind(0)} and released could be handed to another {@code bind(0)} (a world root, a KV
 * receiver, a client socket) before the engine or router that was told to use it binds it.
 */
public final class FreePorts {
  private static final int LOWEST = 20000;

  /** {@code n} distinct ports, held open together while chosen so that none repeats. */
  public static int[] of(int n) throws IOException {
    int highest = ephemeralStart() - 1;
    int[] ports = new int[n];
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0, tries = 0; i < n; tries++) {
        if (tries > 10_000) {
          throw new IOException("no free loopback port in " + LOWEST + ".." + highest);
        }
        int candidate = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
        try {
          ServerSocket s = new ServerSocket(candidate, 50, InetAddress.getLoopbackAddress());
          held.add(s);
          ports[i++] = candidate;
        } catch (IOException inUse) {
          // taken: draw another
        }
      }
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
    return ports;
  }

  public static int one() throws IOException {
    return of(1)[0];
  }

  /** First port of Linux's ephemeral range; 32768 where it cannot be read. */
  private static int ephemeralStart() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim();
      int start = Integer.parseInt(range.split("\\s+")[0]);
      return start > LOWEST + 1000 ? start : 32768;
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }

  private FreePorts() {}
}
