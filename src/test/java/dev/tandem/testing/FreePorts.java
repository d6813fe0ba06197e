package dev.tandem.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/** Distinct free loopback ports for tests that must name ports up front (engines, routers). */
public final class FreePorts {

  /** {@code n} distinct ports, held open together while chosen so that none repeats. */
  public static int[] of(int n) throws IOException {
    int[] ports = new int[n];
    List<ServerSocket> held = new ArrayList<>();
    try {
      for (int i = 0; i < n; i++) {
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        held.add(s);
        ports[i] = s.getLocalPort();
      }
    } finally {
      for (ServerSocket s : held) {
        s.close();
      }
    }
    return ports;
  }

  private FreePorts() {}
}
