package dev.tandem.config;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Values of the options of one {@link OptionTable}: what was set, the defaults for the rest.
 * Every value passed its option's rules when it was set (from JSON, a flag or code), so readers
 * never check again. JSON {@code null} and a {@code null} value restore the default.
 *
 * @param <S> the concrete type, for fluent {@link #set}
 */
public abstract class OptionValues<S extends OptionValues<S>> {
  private final OptionTable table;
  private final Map<Option<?>, Object> values = new HashMap<>();

  protected OptionValues(OptionTable table) {
    this.table = table;
  }

  /**
   * Reads {@code json} (keys as {@link #toJson()} writes them; absent keys keep their defaults).
   * An unknown key, a value of the wrong type or one that breaks its option's rule is a
   * {@link ConfigException} naming the key.
   */
  protected OptionValues(OptionTable table, JsonObject json) {
    this(table);
    if (json == null) {
      return;
    }
    for (String key : json.fieldNames()) {
      Option<?> option = table.byKey(key);
      Object value = json.getValue(key);
      if (value != null) {
        try {
          values.put(option, option.fromJson(value));
        } catch (BadValue e) {
          throw e.named("router configuration key '" + key + "'");
        }
      }
    }
  }

  /** The options these values are for. */
  public final OptionTable options() {
    return table;
  }

  @SuppressWarnings("unchecked")
  public final <T> T get(Option<T> option) {
    requireKnown(option);
    return values.containsKey(option) ? (T) values.get(option) : option.defaultValue();
  }

  /**
   * Sets {@code option} after checking its rules; a rejected value is a {@link ConfigException}
   * naming the option's flag (or key), and the old value stays.
   */
  public final <T> S set(Option<T> option, T value) {
    requireKnown(option);
    if (value == null) {
      values.remove(option);
      return self();
    }
    try {
      values.put(option, option.check(value instanceof List<?> l ? copy(l, option) : value));
    } catch (BadValue e) {
      throw e.named(option.name());
    }
    return self();
  }

  /** Sets {@code option} from command-line words ({@code ["2s"]}); failures name the flag. */
  public final <T> S setFromArgs(Option<T> option, List<String> args) {
    requireKnown(option);
    try {
      values.put(option, option.fromArgs(args));
    } catch (BadValue e) {
      throw e.named(option.name());
    }
    return self();
  }

  /** Whether {@code option} was set (it may still equal its default). */
  public final boolean isSet(Option<?> option) {
    return values.containsKey(option);
  }

  /** Every option, defaults included, so a written file documents itself. */
  public final JsonObject toJson() {
    JsonObject json = new JsonObject();
    for (Option<?> option : table.options()) {
      json.put(option.key(), write(option));
    }
    return json;
  }

  /** Copies the values {@code from} holds for this table's options. */
  protected final void copyFrom(OptionValues<?> from) {
    for (Option<?> option : table.options()) {
      if (from.values.containsKey(option)) {
        values.put(option, from.values.get(option));
      }
    }
  }

  private <T> Object write(Option<T> option) {
    T value = get(option);
    return value == null ? null : option.type().toJson().apply(value);
  }

  @SuppressWarnings("unchecked")
  private static <T> T copy(List<?> list, Option<T> option) {
    return (T) List.copyOf(list);
  }

  private void requireKnown(Option<?> option) {
    if (!table.contains(option)) {
      throw new IllegalArgumentException("option " + option.key() + " is not one of "
          + getClass().getSimpleName() + "'s");
    }
  }

  @SuppressWarnings("unchecked")
  private S self() {
    return (S) this;
  }

  @Override
  public final boolean equals(Object o) {
    return o != null && o.getClass() == getClass()
        && toJson().equals(((OptionValues<?>) o).toJson());
  }

  @Override
  public final int hashCode() {
    return toJson().hashCode();
  }

  @Override
  public String toString() {
    return toJson().encode();
  }
}
