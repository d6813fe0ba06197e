package dev.tandem.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The options of one configuration section, in the order they are written, helped and
 * documented. Keys are unique; a key that is not here is reported with the nearest known one.
 */
public final class OptionTable {
  private final String title;
  private final Map<String, Option<?>> byKey = new LinkedHashMap<>();
  private final List<OptionTable> sections = new ArrayList<>();

  /** @param title what this section is called in help and docs ("Router", "Fleet") */
  public OptionTable(String title) {
    this.title = title;
    sections.add(this);
  }

  /** Several sections read and written as one flat JSON object. */
  public static OptionTable of(String title, OptionTable... parts) {
    OptionTable all = new OptionTable(title);
    all.sections.clear();
    for (OptionTable part : parts) {
      part.options().forEach(all::put);
      all.sections.add(part);
    }
    return all;
  }

  /** Adds {@code option} (declaration order is the table's order) and returns it. */
  public <T> Option<T> add(Option<T> option) {
    put(option);
    return option;
  }

  private void put(Option<?> option) {
    if (byKey.putIfAbsent(option.key(), option) != null) {
      throw new IllegalStateException("option key '" + option.key() + "' declared twice");
    }
  }

  public String title() {
    return title;
  }

  public List<Option<?>> options() {
    return List.copyOf(byKey.values());
  }

  /** The sections this table was made of (itself, when it is one section). */
  public List<OptionTable> sections() {
    return Collections.unmodifiableList(sections);
  }

  public boolean contains(Option<?> option) {
    return byKey.get(option.key()) == option;
  }

  /** The option with JSON key {@code key}; an unknown key is a {@link ConfigException}. */
  Option<?> byKey(String key) {
    Option<?> option = byKey.get(key);
    if (option == null) {
      String near = nearest(key);
      throw new ConfigException("unknown router configuration key '" + key + "'"
          + (near == null ? "" : " (did you mean '" + near + "'?)")
          + "; every key is listed in docs/fleet.md and in tandem router --help");
    }
    return option;
  }

  private String nearest(String key) {
    String best = null;
    int bestDistance = Math.max(3, key.length() / 3) + 1;
    for (String known : byKey.keySet()) {
      int d = distance(key.toLowerCase(Locale.ROOT), known.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        best = known;
        bestDistance = d;
      }
    }
    return best;
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
      }
      int[] t = prev;
      prev = cur;
      cur = t;
    }
    return prev[b.length()];
  }

  /**
   * The Markdown table of every option (flag, JSON key, default, help), the one docs/ show; a
   * test keeps the docs equal to it.
   */
  public String markdown() {
    StringBuilder sb = new StringBuilder("| flag | JSON key | default | notes |\n");
    sb.append("|---|---|---|---|\n");
    for (OptionTable section : sections) {
      if (sections.size() > 1) {
        sb.append("| **").append(section.title()).append("** | | | |\n");
      }
      for (Option<?> o : section.options()) {
        sb.append("| `").append(usage(o)).append(o.flag() == null ? "` (positional)" : "`")
            .append(" | `").append(o.key()).append("` | ")
            .append(o.shownDefault()).append(" | ").append(o.help()).append(" |\n");
      }
    }
    return sb.toString();
  }

  /** How the option is written on the command line: {@code --endpoint-ports PORT...}. */
  private static String usage(Option<?> o) {
    ValueType<?> type = o.type();
    if (o.flag() == null) {
      return o.label();
    }
    if (type.arity().equals("0")) {
      return "--[no-]" + o.flag().substring(2);
    }
    String more = type.arity().endsWith("*") ? (type.split() == null ? "..." : ",...") : "";
    return (o.flag() + " " + o.label() + more).replace("|", "\\|");
  }
}
