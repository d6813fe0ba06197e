package dev.tandem.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * What the process writes to standard error while it is open (the log lines of slf4j-simple, which
 * looks System.err up at each line), still passed on to the real standard error unless the capture
 * is {@link #silent()}. Closing puts the real one back.
 */
public final class StandardErrorCapture implements AutoCloseable {

  private final PrintStream real = System.err;
  private final ByteArrayOutputStream captured = new ByteArrayOutputStream();

  private StandardErrorCapture(boolean passOn) {
    OutputStream both = new OutputStream() {
      @Override
      public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
      }

      @Override
      public void write(byte[] bytes, int off, int len) {
        synchronized (captured) {
          captured.write(bytes, off, len);
        }
        if (passOn) {
          real.write(bytes, off, len);
        }
      }
    };
    System.setErr(new PrintStream(both, true, StandardCharsets.UTF_8));
  }

  public static StandardErrorCapture start() {
    return new StandardErrorCapture(true);
  }

  /**
   * A capture that keeps what it reads from the real standard error: for a test that provokes a
   * warning on purpose (a control), so that a build's log shows none it should not.
   */
  public static StandardErrorCapture silent() {
    return new StandardErrorCapture(false);
  }

  /** What was written so far. */
  public String text() {
    synchronized (captured) {
      return captured.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.setErr(real);
  }
}
