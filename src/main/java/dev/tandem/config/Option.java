package dev.tandem.config;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One setting, declared once: its JSON key, its command-line flag, its type, its default, the
 * rules its value follows and its help. JSON reading and writing, unknown-key rejection, the
 * {@code tandem router} flags and their help, and the option tables in docs/ all derive from the
 * declarations, so a new option is one line in {@link RouterOptions} or {@link RouterConfig}:
 *
 * <pre>{@code
 * public static final Option<Integer> MAX_ENGINE_ATTEMPTS = OPTIONS.add(Option.integer(
 *     "maxEngineAttempts", "--max-engine-attempts", 3).rule(Rule.atLeast(1)).help("..."));
 * }</pre>
 *
 * Options are immutable; {@link #rule}, {@link #help} and {@link #label} return changed copies.
 */
public final class Option<T> {
  private final String key;
  private final String flag;
  private final ValueType<T> type;
  private final T defaultValue;
  private final List<Rule<T>> rules;
  private final String help;
  private final String label;

  private Option(String key, String flag, ValueType<T> type, T defaultValue, List<Rule<T>> rules,
      String help, String label) {
    this.key = Objects.requireNonNull(key);
    this.flag = flag;
    this.type = Objects.requireNonNull(type);
    this.defaultValue = defaultValue;
    this.rules = List.copyOf(rules);
    this.help = help;
    this.label = label;
  }

  /**
   * @param key the JSON key
   * @param flag the command-line flag ({@code --router-port}), or null for the positional argument
   * @param defaultValue the value when neither JSON nor a flag gives one; null: none
   */
  public static <T> Option<T> of(String key, String flag, ValueType<T> type, T defaultValue) {
    return new Option<>(key, flag, type, defaultValue, List.of(), "", null);
  }

  public static Option<String> string(String key, String flag, String defaultValue) {
    return of(key, flag, ValueType.STRING, defaultValue);
  }

  public static Option<Integer> integer(String key, String flag, int defaultValue) {
    return of(key, flag, ValueType.INTEGER, defaultValue);
  }

  public static Option<Double> number(String key, String flag, double defaultValue) {
    return of(key, flag, ValueType.NUMBER, defaultValue);
  }

  public static Option<Boolean> bool(String key, String flag, boolean defaultValue) {
    return of(key, flag, ValueType.BOOLEAN, defaultValue);
  }

  /** A duration, whole milliseconds in JSON (so its key ends in {@code Ms}). */
  public static Option<Duration> millis(String key, String flag, Duration defaultValue) {
    return of(key, flag, ValueType.MILLIS, defaultValue);
  }

  public Option<T> rule(Rule<T> rule) {
    List<Rule<T>> more = new ArrayList<>(rules);
    more.add(rule);
    return new Option<>(key, flag, type, defaultValue, more, help, label);
  }

  public Option<T> help(String text) {
    return new Option<>(key, flag, type, defaultValue, rules, text, label);
  }

  /** The command line's placeholder for the value, instead of the type's. */
  public Option<T> label(String text) {
    return new Option<>(key, flag, type, defaultValue, rules, help, text);
  }

  public String key() {
    return key;
  }

  /** The flag, or null for the positional argument. */
  public String flag() {
    return flag;
  }

  /** How messages name the option when it was not set from JSON: the flag, else the key. */
  public String name() {
    return flag != null ? flag : key;
  }

  public ValueType<T> type() {
    return type;
  }

  public T defaultValue() {
    return defaultValue;
  }

  public String help() {
    return help;
  }

  public String label() {
    return label != null ? label : type.label();
  }

  /** The default as help and docs show it. */
  public String shownDefault() {
    String shown = defaultValue == null ? "" : type.show().apply(defaultValue);
    return shown.isEmpty() ? "none" : shown;
  }

  /** Checks {@code value} against every rule; null (the default) is always allowed. */
  T check(T value) {
    if (value != null) {
      for (Rule<T> rule : rules) {
        String problem = rule.problem(value, type);
        if (problem != null) {
          throw new BadValue(problem);
        }
      }
    }
    return value;
  }

  /** A non-null JSON value, read and checked. */
  T fromJson(Object json) {
    return check(type.json().read(json));
  }

  /** Command-line words, read and checked. */
  T fromArgs(List<String> args) {
    return check(type.fromArgs().apply(args));
  }

  @Override
  public String toString() {
    return key;
  }
}
