package dev.tandem.chat.jinja;

import java.util.ArrayList;
import java.util.List;
import jinjava.de.odysseus.el.tree.Bindings;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.de.odysseus.el.tree.impl.ast.AstRightValue;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELException;

/**
 * {@code seq[start:stop:step]} with Python's semantics: any part may be left out, negative indices
 * count from the end, out-of-range bounds are clipped, a negative step walks backwards. Strings are
 * sliced by code point, as Python's {@code str}.
 */
final class PySlice extends AstRightValue {
  private final AstNode base;
  private final AstNode start;
  private final AstNode stop;
  private final AstNode step;

  PySlice(AstNode base, AstNode start, AstNode stop, AstNode step) {
    this.base = base;
    this.start = start;
    this.stop = stop;
    this.step = step;
  }

  @Override
  public Object eval(Bindings bindings, ELContext context) {
    Object sequence = base.eval(bindings, context);
    Integer a = bound(start, bindings, context);
    Integer b = bound(stop, bindings, context);
    Integer c = bound(step, bindings, context);
    if (sequence instanceof CharSequence s) {
      int[] codePoints = s.toString().codePoints().toArray();
      StringBuilder sb = new StringBuilder();
      for (int i : indices(codePoints.length, a, b, c)) {
        sb.appendCodePoint(codePoints[i]);
      }
      return sb.toString();
    }
    if (sequence instanceof Iterable<?> iterable) {
      List<Object> items = new ArrayList<>();
      iterable.forEach(items::add);
      List<Object> result = new ArrayList<>();
      for (int i : indices(items.size(), a, b, c)) {
        result.add(items.get(i));
      }
      return result;
    }
    if (sequence == null) {
      return null;
    }
    throw new ELException("'" + sequence.getClass().getSimpleName() + "' object is not subscriptable");
  }

  private static Integer bound(AstNode node, Bindings bindings, ELContext context) {
    if (node == null) {
      return null;
    }
    Object v = node.eval(bindings, context);
    if (v == null || v == PyNone.NONE) {
      return null;
    }
    if (!(v instanceof Number n)) {
      throw new ELException("slice indices must be integers or None, got " + v);
    }
    return n.intValue();
  }

  /** The indices {@code range(*slice(start, stop, step).indices(length))} visits. */
  static int[] indices(int length, Integer start, Integer stop, Integer step) {
    int s = step == null ? 1 : step;
    if (s == 0) {
      throw new ELException("slice step cannot be zero");
    }
    int lower = s < 0 ? -1 : 0;
    int upper = s < 0 ? length - 1 : length;
    int from = start == null ? (s < 0 ? upper : lower) : clip(start, length, lower, upper);
    int to = stop == null ? (s < 0 ? lower : upper) : clip(stop, length, lower, upper);
    int count = s > 0 ? Math.max(0, (to - from + s - 1) / s) : Math.max(0, (from - to - s - 1) / -s);
    int[] result = new int[count];
    for (int i = 0; i < count; i++) {
      result[i] = from + i * s;
    }
    return result;
  }

  private static int clip(int index, int length, int lower, int upper) {
    int i = index < 0 ? index + length : index;
    return Math.max(lower, Math.min(upper, i));
  }

  @Override
  public void appendStructure(StringBuilder builder, Bindings bindings) {
    builder.append(this);
  }

  @Override
  public String toString() {
    return base + "[" + (start == null ? "" : start) + ":" + (stop == null ? "" : stop)
        + (step == null ? "" : ":" + step) + "]";
  }

  @Override
  public int getCardinality() {
    return 4;
  }

  @Override
  public AstNode getChild(int i) {
    return switch (i) {
      case 0 -> base;
      case 1 -> start;
      case 2 -> stop;
      case 3 -> step;
      default -> null;
    };
  }
}
