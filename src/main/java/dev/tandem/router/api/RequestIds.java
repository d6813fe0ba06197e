package dev.tandem.router.api;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;

/**
 * Request ids as MLC and OpenAI make them: {@code cmpl-} and 32 lowercase hex digits, 128 bits
 * from {@link SecureRandom}, so ids stay unguessable and unique across routers. The random bytes
 * are drawn a batch at a time per thread: one {@code nextBytes} call (a lock, and a read of the
 * OS's generator) per 512 ids (8 KiB per thread) instead of one per request, and no lock shared between event loops.
 */
public final class RequestIds {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int ID_BYTES = 16;
  private static final int BATCH = 512;
  private static final byte[] PREFIX = "cmpl-".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
  private static final ThreadLocal<Batch> BATCHES = ThreadLocal.withInitial(Batch::new);

  private RequestIds() {}

  public static String next() {
    Batch batch = BATCHES.get();
    if (batch.used == batch.random.length) {
      RANDOM.nextBytes(batch.random);
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

  /** A thread's unused random bytes: {@code random[used..]}. */
  private static final class Batch {
    final byte[] random = new byte[ID_BYTES * BATCH];
    int used = random.length;
  }
}
