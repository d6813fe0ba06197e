package dev.tandem.chat.jinja;

/** A template that does not parse, failed to render, or called {@code raise_exception(msg)}. */
public final class Jinja2Exception extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What went wrong. */
  public enum Kind {
    /** The template is not valid Jinja: a problem of the template, found when it is compiled. */
    SYNTAX,
    /** The template called {@code raise_exception(msg)}: the message is the template's own. */
    RAISED,
    /** Rendering failed (an unknown method, a value of the wrong type for an operation, ...). */
    RENDER
  }

  private final Kind kind;

  public Jinja2Exception(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  public Kind kind() {
    return kind;
  }
}
