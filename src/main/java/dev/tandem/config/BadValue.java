package dev.tandem.config;

/**
 * A value that cannot be used, before it is known where it came from: the message is the rest of
 * a sentence ({@code must be a whole number, not '80'}) that the reader of a JSON key, a flag or a
 * setter completes with the name it knows into a {@link ConfigException}.
 */
final class BadValue extends RuntimeException {
  BadValue(String problem) {
    super(problem, null, false, false);
  }

  ConfigException named(String name) {
    return new ConfigException(name + " " + getMessage());
  }
}
