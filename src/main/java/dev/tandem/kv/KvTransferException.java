package dev.tandem.kv;

/** A KV transfer that was refused or broke; the message says which check failed. */
public class KvTransferException extends Exception {
  public KvTransferException(String message) {
    super(message);
  }

  public KvTransferException(String message, Throwable cause) {
    super(message, cause);
  }
}
