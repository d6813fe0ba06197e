package dev.tandem.router.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * Request ids as MLC and OpenAI make them: {@code cmpl-} and 32 lowercase hex digits, 128 bits
 * from the OS's cryptographic generator, so ids stay unguessable and unique across routers. The
 * random bytes are drawn a batch at a time per thread: one read of {@code /dev/urandom} (which
 * never blocks) per 4096 ids (64 KiB per thread), and no lock shared between event loops; the
 * reads are ~0.3% of the event loops at 64 streaming connections, most of it the kernel
 * making the bytes (ChaCha20), so larger batches would not help. Where there is no
 * {@code /dev/urandom}, {@link SecureRandom} fills the batch; it is not used otherwise because
 * its Linux default reads the OS in 32-byte pieces and mixes in SHA1PRNG's output: 256 system
 * calls and 8 KiB of SHA-1 per batch, 0.3% of the router's event loop.
 */
public final class RequestIds {

  private static final Path URANDOM = Path.of("/dev/urandom");
  private static final boolean HAS_URANDOM = Files.isReadable(URANDOM);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int ID_BYTES = 16;
  private static final int BATCH = 4096;
  private static final byte[] PREFIX = "cmpl-".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final ThreadLocal<Batch> BATCHES = ThreadLocal.withInitial(Batch::new);

  private RequestIds() {}

  public static String next() {
    Batch batch = BATCHES.get();
    if (batch.used == batch.random.length) {
      fill(batch.random);
      batch.used = 0;
    }
    byte[] out = new byte[PREFIX.length + 2 * ID_BYTES];
    System.arraycopy(PREFIX, 0, out, 0, PREFIX.length);
    for (int i = 0, o = PREFIX.length; i < ID_BYTES; i++) {
      int b = batch.random[batch.used + i];
      out[o++] = HEX[(b >> 4) & 0xf];
      out[o++] = HEX[b & 0xf];
    }
    batch.used += ID_BYTES;
    return new String(out, StandardCharsets.ISO_8859_1);
  }

  private static void fill(byte[] random) {
    if (!HAS_URANDOM) {
      RANDOM.nextBytes(random);
      return;
    }
    try (InputStream in = Files.newInputStream(URANDOM)) {
      if (in.readNBytes(random, 0, random.length) != random.length) {
        throw new IOException("short read from " + URANDOM);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A thread's unused random bytes: {@code random[used..]}. */
  private static final class Batch {
    final byte[] random = new byte[ID_BYTES * BATCH];
    int used = random.length;
  }
}
