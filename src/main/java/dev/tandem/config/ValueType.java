package dev.tandem.config;

import dev.tandem.api.JsonFieldReader;
import io.vertx.core.json.JsonArray;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * How values of one kind are read from JSON and from command-line words, written to JSON and
 * shown in help and docs. Bad input is a {@link BadValue}; the caller names the key or flag.
 *
 * @param label the command line's placeholder ({@code N}, {@code TIME})
 * @param arity picocli's arity: {@code 1}, {@code 1..*} (space-separated lists), {@code 0}
 *     (boolean flags, {@code --x} and {@code --no-x})
 * @param split picocli's split regex for comma-separated lists, or null
 */
public record ValueType<T>(String label, String arity, String split, Reader<T> json,
    Function<T, Object> toJson, Function<List<String>, T> fromArgs, Function<T, String> show) {

  /** Reads a non-null JSON value. */
  @FunctionalInterface
  public interface Reader<T> {
    T read(Object json);
  }

  /** The shared typed reads; every failure becomes a {@link BadValue}. */
  static final JsonFieldReader READ = new JsonFieldReader(new JsonFieldReader.Failures() {
    @Override
    public RuntimeException wrongType(String field, String expected, Object got) {
      return new BadValue("must be " + expected + ", not " + quote(got));
    }

    @Override
    public RuntimeException outOfRange(String field, long got) {
      return new BadValue("must be a whole number between " + Integer.MIN_VALUE + " and "
          + Integer.MAX_VALUE + ", not " + got);
    }
  });

  public static final ValueType<String> STRING = new ValueType<>("TEXT", "1", null,
      v -> READ.stringValue(null, v), s -> s, args -> args.get(0), s -> s);

  public static final ValueType<Integer> INTEGER = new ValueType<>("N", "1", null,
      v -> READ.intValue(null, v, "a whole number"), i -> i, args -> parseInt(args.get(0)),
      String::valueOf);

  public static final ValueType<Double> NUMBER = new ValueType<>("X", "1", null,
      v -> READ.doubleValue(null, v), d -> d, args -> parseDouble(args.get(0)), String::valueOf);

  public static final ValueType<Boolean> BOOLEAN = new ValueType<>("BOOL", "0", null,
      v -> READ.booleanValue(null, v), b -> b, args -> parseBoolean(args.get(0)),
      b -> b ? "on" : "off");

  /**
   * A duration: whole milliseconds in JSON (keys end in {@code Ms}); on the command line seconds
   * ({@code 120}, {@code 0.5}) or with a unit ({@code 500ms}, {@code 2s}, {@code 1m}).
   */
  public static final ValueType<Duration> MILLIS = new ValueType<>("TIME", "1", null,
      v -> Duration.ofMillis(READ.longValue(null, v, "a whole number of milliseconds")),
      Duration::toMillis, args -> parseDuration(args.get(0)), ValueType::showDuration);

  /** Whitespace-separated words in one command-line argument, a list of strings in JSON. */
  public static final ValueType<List<String>> WORDS = new ValueType<>("OPTS", "1", null,
      v -> list(STRING, v), l -> new JsonArray(new ArrayList<>(l)),
      args -> Arrays.stream(args.get(0).trim().split("\\s+")).filter(w -> !w.isEmpty()).toList(),
      l -> String.join(" ", l));

  /** One of a fixed set of names ({@code disagg}, {@code round-robin}), case-insensitive. */
  public static <E> ValueType<E> choice(List<E> values, Function<E, String> name) {
    String names = values.stream().map(name).collect(Collectors.joining("|"));
    List<String> all = values.stream().map(name).toList();
    String allowed = String.join(", ", all.subList(0, all.size() - 1)) + " or "
        + all.get(all.size() - 1);
    Function<String, E> parse = text -> values.stream()
        .filter(v -> name.apply(v).equals(text.trim().toLowerCase(Locale.ROOT))).findFirst()
        .orElseThrow(() -> new BadValue("must be " + allowed + ", not '" + text + "'"));
    return new ValueType<>(names, "1", null, v -> parse.apply(READ.stringValue(null, v)),
        name::apply, args -> parse.apply(args.get(0)), name);
  }

  /**
   * A list: a JSON array, on the command line several words ({@code split} null:
   * {@code --endpoint-ports 8080 8081}) or comma-separated ({@code --endpoint-hosts a,b}).
   */
  public static <E> ValueType<List<E>> listOf(ValueType<E> element, String split) {
    String sep = split == null ? " " : ",";
    return new ValueType<>(element.label(), "1..*", split, v -> list(element, v),
        l -> new JsonArray(l.stream().map(element.toJson()).toList()),
        args -> args.stream().map(a -> element.fromArgs().apply(List.of(a.trim()))).toList(),
        l -> l.stream().map(element.show()).collect(Collectors.joining(sep)));
  }

  /** The same type with another command-line placeholder. */
  public ValueType<T> withLabel(String newLabel) {
    return new ValueType<>(newLabel, arity, split, json, toJson, fromArgs, show);
  }

  private static <E> List<E> list(ValueType<E> element, Object v) {
    JsonArray array = READ.arrayValue(null, v);
    List<E> out = new ArrayList<>(array.size());
    for (Object item : array) {
      if (item == null) {
        throw new BadValue("must not hold null");
      }
      out.add(element.json().read(item));
    }
    return List.copyOf(out);
  }

  private static int parseInt(String text) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new BadValue("must be a whole number, not '" + text + "'");
    }
  }

  private static double parseDouble(String text) {
    try {
      double d = Double.parseDouble(text.trim());
      if (Double.isFinite(d)) {
        return d;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new BadValue("must be a number, not '" + text + "'");
  }

  private static boolean parseBoolean(String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "true", "on", "yes" -> true;
      case "false", "off", "no" -> false;
      default -> throw new BadValue("must be true or false, not '" + text + "'");
    };
  }

  static Duration parseDuration(String text) {
    String v = text.trim().toLowerCase(Locale.ROOT);
    double factor = 1000;
    if (v.endsWith("ms")) {
      factor = 1;
      v = v.substring(0, v.length() - 2);
    } else if (v.endsWith("s")) {
      v = v.substring(0, v.length() - 1);
    } else if (v.endsWith("m")) {
      factor = 60_000;
      v = v.substring(0, v.length() - 1);
    }
    try {
      double ms = Double.parseDouble(v) * factor;
      if (Double.isFinite(ms)) {
        return Duration.ofMillis(Math.round(ms));
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new BadValue("must be a duration (seconds, or with a unit: 500ms, 2s, 1m), not '" + text
        + "'");
  }

  private static String showDuration(Duration d) {
    long ms = d.toMillis();
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  private static String quote(Object v) {
    return v instanceof String ? "'" + v + "'" : String.valueOf(v);
  }
}
