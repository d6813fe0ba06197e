package dev.tandem.config;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * A rule one option's value must follow, checked whenever the value is set (JSON, command line or
 * code), so an option object never holds a value its rule rejects. The failure reads
 * {@code <name> <must>, not <value> (<hint>)}, e.g. {@code --max-engine-attempts must be at least
 * 1, not 0}. Rules across options (list lengths, ports, topology) are {@link ConfigValidator}'s.
 *
 * @param ok whether a (non-null) value is allowed
 * @param must what an allowed value is, as the rest of the sentence after the option's name
 * @param hint what the option means or what to do instead; may be null
 * @param offender the part of a rejected value the failure shows (null: the whole value)
 */
public record Rule<T>(Predicate<? super T> ok, String must, String hint,
    Function<? super T, Object> offender) {

  public static <T> Rule<T> of(Predicate<? super T> ok, String must) {
    return new Rule<>(ok, must, null, null);
  }

  /** The same rule with a hint appended to its failure in parentheses. */
  public Rule<T> hint(String text) {
    return new Rule<>(ok, must, text, offender);
  }

  public static Rule<Integer> atLeast(int min) {
    return of(v -> v >= min, "must be at least " + min);
  }

  public static Rule<Integer> between(int min, int max) {
    return of(v -> v >= min && v <= max, "must be between " + min + " and " + max);
  }

  public static Rule<Duration> positive() {
    return of(d -> !d.isZero() && !d.isNegative(), "must be positive");
  }

  public static Rule<Duration> notNegative() {
    return of(d -> !d.isNegative(), "must be 0 or more");
  }

  public static Rule<String> notBlank() {
    return of(s -> !s.isBlank(), "must not be empty");
  }

  public static <E> Rule<List<E>> notEmpty() {
    return of(l -> !l.isEmpty(), "needs at least one value");
  }

  /** The rule for every element of a list: {@code <name> values <must>, not <element>}. */
  public static <E> Rule<List<E>> each(Rule<E> element) {
    Predicate<? super E> ok = element.ok();
    return new Rule<List<E>>(l -> l.stream().allMatch(ok::test), "values " + element.must(),
        element.hint(), l -> l.stream().filter(e -> !ok.test(e)).findFirst().orElse(null));
  }

  /** The failure for {@code value}, or null when it follows the rule. */
  String problem(T value, ValueType<T> type) {
    if (ok.test(value)) {
      return null;
    }
    String shown = offender == null ? type.show().apply(value)
        : String.valueOf(offender.apply(value));
    return must + ", not " + shown + (hint == null ? "" : " (" + hint + ")");
  }
}
