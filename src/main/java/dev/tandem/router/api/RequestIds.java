package dev.tandem.router.api;

import java.security.SecureRandom;
import java.util.HexFormat;

/** Request ids as MLC and OpenAI make them: {@code cmpl-} and 32 lowercase hex digits. */
public final class RequestIds {

  private static final SecureRandom RANDOM = new SecureRandom();

  private RequestIds() {}

  public static String next() {
    byte[] bytes = new byte[16];
    RANDOM.nextBytes(bytes);
    return "cmpl-" + HexFormat.of().formatHex(bytes);
  }
}
