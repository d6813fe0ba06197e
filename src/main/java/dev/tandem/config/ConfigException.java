package dev.tandem.config;

/**
 * A configuration that cannot be used. The message is one line that says what is wrong and how to
 * fix it; the command line prints it and exits with {@link #EXIT_CODE}, as argparse does.
 */
public class ConfigException extends RuntimeException {
  /** Exit code of a usage or configuration error (argparse and picocli use 2 as well). */
  public static final int EXIT_CODE = 2;

  public ConfigException(String message) {
    super(message);
  }
}
