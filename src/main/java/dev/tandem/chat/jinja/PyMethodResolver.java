package dev.tandem.chat.jinja;

import java.beans.FeatureDescriptor;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import jinjava.javax.el.ELContext;
import jinjava.javax.el.ELResolver;

/**
 * Resolves what Python objects have and Java ones lack: {@code str} methods, {@code dict.get(key,
 * default)} (None when missing, as Python), {@code list.index}/{@code list.count}, and indexing a
 * string by code point ({@code 'abc'[-1]}). Placed before Jinjava's own resolvers; anything else
 * falls through to them.
 */
final class PyMethodResolver extends ELResolver {

  @Override
  public Object invoke(ELContext context, Object base, Object method, Class<?>[] paramTypes,
      Object[] params) {
    if (base == null || method == null) {
      return null;
    }
    String name = method.toString();
    Object result = PyStrings.UNKNOWN;
    if (base instanceof String s) {
      result = PyStrings.call(s, name, params);
    } else if (base instanceof Map<?, ?> map && name.equals("get") && params != null
        && (params.length == 1 || params.length == 2)) {
      Object key = params[0];
      Object fallback = params.length == 2 ? params[1] : PyNone.NONE;
      result = map.containsKey(key) ? map.get(key) : fallback;
    } else if (base instanceof List<?> list && params != null && params.length == 1) {
      if (name.equals("index")) {
        int i = list.indexOf(params[0]);
        if (i < 0) {
          throw new IllegalArgumentException(PyValues.repr(params[0]) + " is not in list");
        }
        result = i;
      } else if (name.equals("count")) {
        result = (int) list.stream().filter(e -> java.util.Objects.equals(e, params[0])).count();
      }
    }
    if (result == PyStrings.UNKNOWN) {
      return null;
    }
    context.setPropertyResolved(true);
    return result;
  }

  @Override
  public Object getValue(ELContext context, Object base, Object property) {
    if (!(base instanceof String s) || property == null) {
      return null;
    }
    Integer index = integer(property);
    if (index == null) {
      return null;
    }
    context.setPropertyResolved(true);
    int length = s.codePointCount(0, s.length());
    int i = index < 0 ? index + length : index;
    if (i < 0 || i >= length) {
      return null; // Jinja2: an IndexError in a subscript is Undefined
    }
    int at = s.offsetByCodePoints(0, i);
    return new String(Character.toChars(s.codePointAt(at)));
  }

  private static Integer integer(Object property) {
    if (property instanceof Integer || property instanceof Long) {
      return ((Number) property).intValue();
    }
    String p = property.toString();
    if (p.matches("-?\\d{1,9}")) {
      return Integer.parseInt(p);
    }
    return null;
  }

  @Override
  public Class<?> getType(ELContext context, Object base, Object property) {
    return null;
  }

  @Override
  public void setValue(ELContext context, Object base, Object property, Object value) {}

  @Override
  public boolean isReadOnly(ELContext context, Object base, Object property) {
    return false;
  }

  @Override
  public Iterator<FeatureDescriptor> getFeatureDescriptors(ELContext context, Object base) {
    return null;
  }

  @Override
  public Class<?> getCommonPropertyType(ELContext context, Object base) {
    return null;
  }
}
