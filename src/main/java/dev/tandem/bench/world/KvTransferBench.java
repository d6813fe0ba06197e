package dev.tandem.bench.world;

import dev.tandem.kv.KvReceiveTarget;
import dev.tandem.kv.KvRows;
import dev.tandem.world.EngineWorld;
import dev.tandem.world.WorldInitConfig;
import dev.tandem.world.WorldRoot;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * KV transfer throughput of the builtin engines' transport (a prefill engine's shipper into a
 * decode engine's receiver, both joined in one world on 127.0.0.1) beside raw loopback TCP
 * streaming the same number of bytes, measured in the same run, interleaved.
 *
 * <p>Default shape: a 2,000-token prompt of the {@code small} model (30 layers, kvDim 192), K and V
 * in float32: 92.16 MB per transfer. Only rows travel; no model is loaded. The receiving target
 * accepts the rows without copying them into a cache, so the numbers are the transport's.
 *
 * <p>Usage: {@code KvTransferBench [--tokens N] [--layers L] [--kv-dim D] [--iterations I] [--warmup W]}
 */
public final class KvTransferBench {
  private static final int CHUNK = 1 << 20;

  private KvTransferBench() {}

  public static void main(String[] args) throws Exception {
    int tokens = 2000;
    int layers = 30;
    int kvDim = 192;
    int iterations = 11;
    int warmup = 3;
    for (int i = 0; i < args.length; i += 2) {
      int v = Integer.parseInt(args[i + 1]);
      switch (args[i]) {
        case "--tokens" -> tokens = v;
        case "--layers" -> layers = v;
        case "--kv-dim" -> kvDim = v;
        case "--iterations" -> iterations = v;
        case "--warmup" -> warmup = v;
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    long bytes = 2L * layers * tokens * kvDim * Float.BYTES;
    KvRows rows = rows(layers, kvDim, tokens);
    int[] slots = new int[tokens];
    Arrays.setAll(slots, i -> i);

    try (WorldRoot root = WorldRoot.start("127.0.0.1", 2);
        RawChannelPair raw = new RawChannelPair(bytes);
        RawStreamPair stream = new RawStreamPair(bytes)) {
      KvReceiveTarget sink = (requestId, s, r) -> { }; // the transport's cost only
      CompletableFuture<EngineWorld> d = join(root, 1, sink);
      CompletableFuture<EngineWorld> p = join(root, 0, sink);
      try (EngineWorld decode = d.get(30, TimeUnit.SECONDS); EngineWorld prefill = p.get(30, TimeUnit.SECONDS)) {
        List<Long> rawNs = new ArrayList<>();
        List<Long> streamNs = new ArrayList<>();
        List<Long> kvNs = new ArrayList<>();
        long[] cpu = new long[3];
        for (int i = 0; i < warmup + iterations; i++) {
          long c0 = cpuNanos();
          long a = raw.transfer();
          long c1 = cpuNanos();
          long b = stream.transfer();
          long c2 = cpuNanos();
          long t0 = System.nanoTime();
          prefill.shipper().ship(1, "bench-" + i, slots, rows).get(120, TimeUnit.SECONDS);
          long c = System.nanoTime() - t0;
          long c3 = cpuNanos();
          if (i >= warmup) {
            rawNs.add(a);
            streamNs.add(b);
            kvNs.add(c);
            cpu[0] += c1 - c0;
            cpu[1] += c2 - c1;
            cpu[2] += c3 - c2;
          }
        }
        report(tokens, layers, kvDim, bytes, iterations, rawNs, streamNs, kvNs);
        System.out.printf("process CPU per transfer (all threads, GC included): raw SocketChannel %.1f ms,"
            + " raw streams %.1f ms, Tandem KV %.1f ms%n", cpu[0] / 1e6 / iterations, cpu[1] / 1e6 / iterations,
            cpu[2] / 1e6 / iterations);
      }
    }
  }

  private static void report(int tokens, int layers, int kvDim, long bytes, int iterations, List<Long> rawNs,
      List<Long> streamNs, List<Long> kvNs) {
    System.out.printf("KV transfer: %d tokens x %d layers x kvDim %d, K+V float32 = %.2f MB per transfer, "
        + "%d measured iterations (median, best)%n%n", tokens, layers, kvDim, bytes / 1e6, iterations);
    System.out.println("| path | median MB/s | best MB/s | median ms |");
    System.out.println("|---|---:|---:|---:|");
    row("raw loopback TCP (SocketChannel, direct buffers)", bytes, rawNs);
    row("raw loopback TCP (Socket streams, 1 MiB byte[])", bytes, streamNs);
    row("Tandem KV transport (TcpKvShipper -> KvReceiver)", bytes, kvNs);
    long fasterRaw = Math.min(median(rawNs), median(streamNs));
    System.out.printf("%nratio Tandem KV / faster raw loopback TCP, medians: %.2f (goal >= 0.5)%n",
        (double) fasterRaw / median(kvNs));
  }

  private static void row(String name, long bytes, List<Long> ns) {
    System.out.printf("| %s | %.0f | %.0f | %.1f |%n", name, bytes / 1e6 / (median(ns) / 1e9),
        bytes / 1e6 / (ns.stream().mapToLong(Long::longValue).min().orElseThrow() / 1e9), median(ns) / 1e6);
  }

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime();
  }

  private static long median(List<Long> ns) {
    long[] sorted = ns.stream().mapToLong(Long::longValue).sorted().toArray();
    return sorted[sorted.length / 2];
  }

  private static CompletableFuture<EngineWorld> join(WorldRoot root, int pe, KvReceiveTarget target) {
    String json = new WorldInitConfig(root.uid(), root.npes(), pe).toJson();
    return CompletableFuture.supplyAsync(() -> {
      try {
        return EngineWorld.join(json, 1, "127.0.0.1", target, "bench-model", Duration.ofSeconds(30));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
  }

  private static KvRows rows(int layers, int kvDim, int tokens) {
    Random random = new Random(42);
    float[][] k = new float[layers][tokens * kvDim];
    float[][] v = new float[layers][tokens * kvDim];
    for (int l = 0; l < layers; l++) {
      for (int i = 0; i < k[l].length; i++) {
        k[l][i] = (float) random.nextGaussian();
        v[l][i] = (float) random.nextGaussian();
      }
    }
    return new KvRows(tokens, kvDim, k, v);
  }

  /** Plain NIO: the sender writes {@code bytes} from a direct buffer, a thread reads and drops them. */
  private static final class RawChannelPair implements AutoCloseable {
    private final long bytes;
    private final ServerSocketChannel server;
    private final SocketChannel out;
    private final SocketChannel in;
    private final ByteBuffer payload;
    private final ByteBuffer ack = ByteBuffer.allocate(1);

    RawChannelPair(long bytes) throws IOException {
      this.bytes = bytes;
      server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      out = SocketChannel.open(server.getLocalAddress());
      in = server.accept();
      payload = ByteBuffer.allocateDirect(CHUNK).order(ByteOrder.LITTLE_ENDIAN);
      Thread reader = new Thread(this::drain, "raw-channel-reader");
      reader.setDaemon(true);
      reader.start();
    }

    private void drain() {
      ByteBuffer buf = ByteBuffer.allocateDirect(CHUNK);
      try {
        while (true) {
          long left = bytes;
          while (left > 0) {
            buf.clear().limit((int) Math.min(CHUNK, left));
            int n = in.read(buf);
            if (n < 0) {
              return;
            }
            left -= n;
          }
          in.write(ByteBuffer.wrap(new byte[] {1}));
        }
      } catch (IOException e) {
        // closed at the end of the run
      }
    }

    long transfer() throws IOException {
      long t0 = System.nanoTime();
      long left = bytes;
      while (left > 0) {
        payload.clear().limit((int) Math.min(CHUNK, left));
        while (payload.hasRemaining()) {
          left -= out.write(payload);
        }
      }
      ack.clear();
      out.read(ack);
      return System.nanoTime() - t0;
    }

    @Override
    public void close() throws IOException {
      out.close();
      in.close();
      server.close();
    }
  }

  /** Plain java.net streams with a 1 MiB byte[] on each side. */
  private static final class RawStreamPair implements AutoCloseable {
    private final long bytes;
    private final ServerSocket server;
    private final Socket out;
    private final Socket in;
    private final byte[] chunk = new byte[CHUNK];

    RawStreamPair(long bytes) throws IOException {
      this.bytes = bytes;
      server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      out = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
      in = server.accept();
      Thread reader = new Thread(this::drain, "raw-stream-reader");
      reader.setDaemon(true);
      reader.start();
    }

    private void drain() {
      byte[] buf = new byte[CHUNK];
      try (InputStream is = in.getInputStream(); OutputStream os = in.getOutputStream()) {
        while (true) {
          long left = bytes;
          while (left > 0) {
            int n = is.read(buf, 0, (int) Math.min(CHUNK, left));
            if (n < 0) {
              return;
            }
            left -= n;
          }
          os.write(1);
          os.flush();
        }
      } catch (IOException e) {
        // closed at the end of the run
      }
    }

    long transfer() throws IOException {
      long t0 = System.nanoTime();
      OutputStream os = out.getOutputStream();
      long left = bytes;
      while (left > 0) {
        int n = (int) Math.min(CHUNK, left);
        os.write(chunk, 0, n);
        left -= n;
      }
      os.flush();
      out.getInputStream().read();
      return System.nanoTime() - t0;
    }

    @Override
    public void close() throws IOException {
      out.close();
      in.close();
      server.close();
    }
  }
}
