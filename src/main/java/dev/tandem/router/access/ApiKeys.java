package dev.tandem.router.access;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * A set of keys, held only as SHA-256 digests, and checked in constant time: the presented key is
 * hashed and compared with every digest by {@link MessageDigest#isEqual} (which does not stop at
 * the first differing byte), without stopping at the first match, so the time says nothing about
 * how close a guess was or which key matched.
 *
 * <p>Key file: one key per line, optionally followed by attributes, {@code #} starts a comment:
 * <pre>
 * sk-tandem-3f9a...  name=alice rpm=60 tpm=20000
 * sk-tandem-77c1...  name=batch-jobs
 * </pre>
 * {@code TANDEM_API_KEYS} holds the same lines separated by commas.
 */
public final class ApiKeys {

  private record Entry(byte[] digest, ClientKey client) {}

  public static final ApiKeys NONE = new ApiKeys(List.of());

  private final List<Entry> entries;

  private ApiKeys(List<Entry> entries) {
    this.entries = List.copyOf(entries);
  }

  /**
   * Reads {@code file} (may be null) and the lines of {@code env} (may be null or blank).
   * Blocking (file I/O): call it off the event loop.
   *
   * @throws IllegalArgumentException naming the file and line of a malformed entry (never the key)
   */
  public static ApiKeys load(Path file, String env, boolean admin) throws IOException {
    List<Entry> out = new ArrayList<>();
    if (file != null) {
      parse(Files.readString(file, StandardCharsets.UTF_8).split("\n"), file.toString(), admin, out);
    }
    if (env != null && !env.isBlank()) {
      parse(env.split(","), "TANDEM_API_KEYS", admin, out);
    }
    return new ApiKeys(out);
  }

  /** Keys from text lines (tests; the key file's format). */
  public static ApiKeys of(boolean admin, String... lines) {
    List<Entry> out = new ArrayList<>();
    parse(lines, "keys", admin, out);
    return new ApiKeys(out);
  }

  private static void parse(String[] lines, String source, boolean admin, List<Entry> out) {
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      int hash = line.indexOf('#');
      String[] words = (hash >= 0 ? line.substring(0, hash) : line).strip().split("\\s+");
      if (words.length == 0 || words[0].isEmpty()) {
        continue;
      }
      byte[] digest = sha256(words[0]);
      String name = "key-" + HexFormat.of().formatHex(digest, 0, 4);
      Integer rpm = null;
      Integer tpm = null;
      for (int w = 1; w < words.length; w++) {
        String where = source + " line " + (i + 1);
        String[] kv = words[w].split("=", 2);
        if (kv.length != 2 || kv[1].isEmpty()) {
          throw new IllegalArgumentException(where + ": expected name=, rpm= or tpm= after the key,"
              + " got '" + words[w] + "'");
        }
        switch (kv[0]) {
          case "name" -> name = kv[1];
          case "rpm" -> rpm = count(kv[1], where);
          case "tpm" -> tpm = count(kv[1], where);
          default -> throw new IllegalArgumentException(where + ": unknown attribute '" + kv[0]
              + "' (known: name, rpm, tpm)");
        }
      }
      out.add(new Entry(digest, new ClientKey(name, rpm, tpm, admin)));
    }
  }

  private static int count(String value, String where) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException(where + ": rpm and tpm take a whole number >= 0, not '"
        + value + "'");
  }

  public boolean isEmpty() {
    return entries.isEmpty();
  }

  public int size() {
    return entries.size();
  }

  /** Both sets (user keys and admin keys both open /v1/*). */
  public ApiKeys plus(ApiKeys other) {
    List<Entry> all = new ArrayList<>(entries);
    all.addAll(other.entries);
    return new ApiKeys(all);
  }

  /** The client of {@code presented}, checked against every key in constant time; empty if none. */
  public Optional<ClientKey> match(String presented) {
    if (presented == null) {
      return Optional.empty();
    }
    byte[] digest = sha256(presented);
    ClientKey found = null;
    for (Entry e : entries) {
      boolean same = MessageDigest.isEqual(digest, e.digest());
      if (same && found == null) {
        found = e.client();
      }
    }
    return Optional.ofNullable(found);
  }

  private static byte[] sha256(String key) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
    }
  }
}
