package dev.tandem.chat.jinja;

import com.hubspot.jinjava.util.HasObjectTruthValue;

/**
 * Python's {@code None} inside templates. Jinjava has one {@code null} for both "no such variable or
 * key" and "a null value", where Jinja2 tells {@code Undefined} (prints nothing, {@code is defined}
 * false) from {@code None} (prints "None", {@code is none} true, {@code is defined} true). JSON nulls
 * and the literal {@code none} are this object; Java {@code null} stays Jinja2's Undefined.
 */
final class PyNone implements HasObjectTruthValue {
  static final PyNone NONE = new PyNone();

  private PyNone() {}

  @Override
  public boolean getObjectTruthValue() {
    return false;
  }

  @Override
  public String toString() {
    return "None";
  }

  /** True for Python's None (this object). */
  static boolean is(Object value) {
    return value == NONE;
  }
}
