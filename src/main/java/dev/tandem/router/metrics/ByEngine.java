package dev.tandem.router.metrics;

import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * Values by engine id ({@code -1}, "none", included), made on first use and then found by index:
 * a request's meters are looked up at its end on every event loop, and a map keyed by the boxed
 * id hashed it every time. Reads take no lock; a new engine copies the array.
 */
final class ByEngine<T> {

  private final IntFunction<T> make;
  private volatile Object[] slots = new Object[8];

  ByEngine(IntFunction<T> make) {
    this.make = make;
  }

  @SuppressWarnings("unchecked")
  T get(int engine) {
    Object[] s = slots;
    int i = engine + 1;
    if (i >= 0 && i < s.length && s[i] != null) {
      return (T) s[i];
    }
    return made(engine);
  }

  @SuppressWarnings("unchecked")
  private synchronized T made(int engine) {
    if (engine < -1) {
      throw new IllegalArgumentException("no engine id " + engine);
    }
    int i = engine + 1;
    Object[] s = slots;
    if (i < s.length && s[i] != null) {
      return (T) s[i];
    }
    Object[] grown = Arrays.copyOf(s, Math.max(s.length, Integer.highestOneBit(i) * 2));
    T value = make.apply(engine);
    grown[i] = value;
    slots = grown;
    return value;
  }
}
