package dev.tandem.chat.jinja;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import jinjava.de.odysseus.el.misc.NumberOperations;
import jinjava.de.odysseus.el.misc.TypeConverter;
import jinjava.de.odysseus.el.tree.Bindings;
import jinjava.de.odysseus.el.tree.impl.ast.AstBinary;
import jinjava.de.odysseus.el.tree.impl.ast.AstNode;
import jinjava.javax.el.ELContext;

/** Binary operators with Python's meaning where Jinjava's differs. */
final class PyOperators {
  private PyOperators() {}

  /** {@code +}: strings and lists concatenate, numbers add. */
  static final AstBinary.Operator ADD = new AstBinary.SimpleOperator() {
    @Override
    protected Object apply(TypeConverter converter, Object a, Object b) {
      if (a instanceof CharSequence || b instanceof CharSequence) {
        return PyValues.str(a) + PyValues.str(b);
      }
      if (a instanceof Collection<?> x && b instanceof Collection<?> y) {
        List<Object> result = new ArrayList<>(x);
        result.addAll(y);
        return result;
      }
      return NumberOperations.add(converter, a, b);
    }

    @Override
    public String toString() {
      return "+";
    }
  };

  /** {@code *}: a string or list times an integer repeats it, numbers multiply. */
  static final AstBinary.Operator MUL = new AstBinary.SimpleOperator() {
    @Override
    protected Object apply(TypeConverter converter, Object a, Object b) {
      if (isInteger(b) && (a instanceof CharSequence || a instanceof Collection)) {
        return repeat(a, ((Number) b).intValue());
      }
      if (isInteger(a) && (b instanceof CharSequence || b instanceof Collection)) {
        return repeat(b, ((Number) a).intValue());
      }
      return NumberOperations.mul(converter, a, b);
    }

    @Override
    public String toString() {
      return "*";
    }
  };

  /** {@code and}: the first operand if it is false, else the second (not a boolean), as Python. */
  static final AstBinary.Operator AND = new AstBinary.Operator() {
    @Override
    public Object eval(Bindings bindings, ELContext context, AstNode left, AstNode right) {
      Object l = left.eval(bindings, context);
      return PyValues.truth(l) ? right.eval(bindings, context) : l;
    }

    @Override
    public String toString() {
      return "and";
    }
  };

  /** {@code %}: Python's floored modulo on numbers, printf-style formatting on a string. */
  static final AstBinary.Operator MOD = new AstBinary.SimpleOperator() {
    @Override
    protected Object apply(TypeConverter converter, Object a, Object b) {
      if (a instanceof CharSequence s) {
        return PyFormat.percent(s.toString(), b);
      }
      if (isInteger(a) && isInteger(b)) {
        long x = ((Number) a).longValue();
        long y = ((Number) b).longValue();
        if (y == 0) {
          throw new ArithmeticException("integer division or modulo by zero");
        }
        return Math.floorMod(x, y);
      }
      double x = converter.convert(a, Double.class);
      double y = converter.convert(b, Double.class);
      return x - Math.floor(x / y) * y;
    }

    @Override
    public String toString() {
      return "%";
    }
  };

  static final AstBinary.Operator EQ = new AstBinary.SimpleOperator() {
    @Override
    protected Object apply(TypeConverter converter, Object a, Object b) {
      return equal(a, b);
    }

    @Override
    public String toString() {
      return "==";
    }
  };

  static final AstBinary.Operator NE = new AstBinary.SimpleOperator() {
    @Override
    protected Object apply(TypeConverter converter, Object a, Object b) {
      return !equal(a, b);
    }

    @Override
    public String toString() {
      return "!=";
    }
  };

  /**
   * Python's {@code ==}: None equals only None, numbers compare by value ({@code 1 == 1.0},
   * {@code True == 1}), strings and containers by content; no coercion between kinds.
   */
  static boolean equal(Object a, Object b) {
    if (a == b) {
      return true;
    }
    if (a == null || b == null || a == PyNone.NONE || b == PyNone.NONE) {
      return false;
    }
    if (isNumeric(a) && isNumeric(b)) {
      if (a instanceof Boolean && b instanceof Boolean) {
        return a.equals(b);
      }
      return new java.math.BigDecimal(numeric(a).toString()).compareTo(new java.math.BigDecimal(numeric(b).toString())) == 0;
    }
    if (a instanceof CharSequence x && b instanceof CharSequence y) {
      return x.toString().equals(y.toString());
    }
    if (a instanceof List<?> x && b instanceof List<?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (int i = 0; i < x.size(); i++) {
        if (!equal(x.get(i), y.get(i))) {
          return false;
        }
      }
      return true;
    }
    if (a instanceof java.util.Map<?, ?> x && b instanceof java.util.Map<?, ?> y) {
      if (x.size() != y.size()) {
        return false;
      }
      for (var e : x.entrySet()) {
        if (!y.containsKey(e.getKey()) || !equal(e.getValue(), y.get(e.getKey()))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private static boolean isNumeric(Object o) {
    return o instanceof Number || o instanceof Boolean;
  }

  private static Object numeric(Object o) {
    if (o instanceof Boolean bool) {
      return bool ? 1 : 0;
    }
    if (o instanceof Double d && (d.isNaN() || d.isInfinite())) {
      return d.isNaN() ? "NaN" : d > 0 ? "1e400" : "-1e400";
    }
    return o;
  }

  private static boolean isInteger(Object o) {
    return o instanceof Integer || o instanceof Long;
  }

  private static Object repeat(Object seq, int times) {
    if (seq instanceof CharSequence s) {
      return s.toString().repeat(Math.max(0, times));
    }
    List<Object> result = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      result.addAll((Collection<?>) seq);
    }
    return result;
  }
}
