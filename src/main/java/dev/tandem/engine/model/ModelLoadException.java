package dev.tandem.engine.model;

/** A model folder that cannot be loaded; the message names the file and what is wrong with it. */
public class ModelLoadException extends Exception {
  public ModelLoadException(String message) {
    super(message);
  }

  public ModelLoadException(String message, Throwable cause) {
    super(message, cause);
  }
}
