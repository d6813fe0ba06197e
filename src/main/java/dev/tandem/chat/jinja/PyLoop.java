package dev.tandem.chat.jinja;

import com.hubspot.jinjava.util.ForLoop;
import java.util.List;

/**
 * Jinja2's {@code loop} object: Jinjava's (index, index0, revindex, first, last, length, cycle, and
 * the hooks {@code break}/{@code continue} use) plus {@code previtem} and {@code nextitem}. Public
 * only because templates read its getters by reflection.
 */
public final class PyLoop extends ForLoop {
  private final List<?> items;

  PyLoop(List<?> items) {
    super(items.iterator(), items.size());
    this.items = items;
  }

  /** The item before this one; Undefined (null) on the first. */
  public Object getPrevitem() {
    int i = getIndex0() - 1;
    return i >= 0 && i < items.size() ? items.get(i) : null;
  }

  /** The item after this one; Undefined (null) on the last. */
  public Object getNextitem() {
    int i = getIndex0() + 1;
    return i >= 0 && i < items.size() ? items.get(i) : null;
  }
}
