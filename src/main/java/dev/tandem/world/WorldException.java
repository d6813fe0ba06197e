package dev.tandem.world;

/** The KV world could not be formed or joined; the message says why and what to check. */
public class WorldException extends Exception {
  public WorldException(String message) {
    super(message);
  }

  public WorldException(String message, Throwable cause) {
    super(message, cause);
  }
}
