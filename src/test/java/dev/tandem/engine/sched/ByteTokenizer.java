package dev.tandem.engine.sched;

import dev.tandem.tokenizer.TextTokenizer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** A byte-level tokenizer for tests: ids 0..255 are bytes, 256 is BOS and 257 EOS (skipped on decode). */
public class ByteTokenizer implements TextTokenizer {
  public static final int BOS = 256;
  public static final int EOS = 257;

  @Override
  public int[] encode(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    int[] ids = new int[bytes.length];
    for (int i = 0; i < bytes.length; i++) {
      ids[i] = bytes[i] & 0xff;
    }
    return ids;
  }

  @Override
  public String decode(int[] ids) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (int id : ids) {
      if (id < 256) {
        out.write(id);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  @Override
  public int vocabSize() {
    return 258;
  }

  @Override
  public void close() {}
}
