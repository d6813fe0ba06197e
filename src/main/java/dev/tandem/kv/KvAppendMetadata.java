package dev.tandem.kv;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * MLC's {@code kv_append_metadata}: the slots a receiver reserved, compressed into runs
 * {@code [k, start1, len1, ..., startk, lenk]}, written as compact JSON, prefixed with its byte
 * length as a u64 little-endian (TVM's string serializer) and base64-encoded with padding.
 * {@code [0]} means nothing to send. One group (one model) only. Shared by the builtin engine
 * (which writes and reads it) and the router (which counts its slots before it hands it to a
 * prefill engine: a wrong count is a fatal check inside an MLC engine, reference §6 item 13).
 */
public final class KvAppendMetadata {
  private KvAppendMetadata() {}

  public static String encode(int[] slots) {
    List<int[]> runs = new ArrayList<>();
    for (int s : slots) {
      int[] last = runs.isEmpty() ? null : runs.get(runs.size() - 1);
      if (last != null && last[0] + last[1] == s) {
        last[1]++;
      } else {
        runs.add(new int[] {s, 1});
      }
    }
    StringBuilder json = new StringBuilder("[").append(runs.size());
    for (int[] run : runs) {
      json.append(',').append(run[0]).append(',').append(run[1]);
    }
    json.append(']');
    byte[] bytes = json.toString().getBytes(StandardCharsets.US_ASCII);
    ByteBuffer buf = ByteBuffer.allocate(8 + bytes.length).order(ByteOrder.LITTLE_ENDIAN);
    buf.putLong(bytes.length).put(bytes);
    return Base64.getEncoder().encodeToString(buf.array());
  }

  /** The expanded slot list; IllegalArgumentException saying what is malformed. */
  public static int[] decode(String metadata) {
    long[] runs = runs(metadata);
    int[] slots = new int[count(runs)];
    int at = 0;
    for (int i = 0; i < runs[0]; i++) {
      int start = (int) runs[1 + 2 * i];
      int n = (int) runs[2 + 2 * i];
      for (int j = 0; j < n; j++) {
        slots[at++] = start + j;
      }
    }
    return slots;
  }

  /**
   * How many slots {@code metadata} names, checked as {@link #decode} checks it but not expanded
   * (the router counts a window's slots per disaggregated request).
   */
  public static int slotCount(String metadata) {
    return count(runs(metadata));
  }

  private static int count(long[] runs) {
    long total = 0;
    for (int i = 0; i < runs[0]; i++) {
      total += runs[2 + 2 * i];
    }
    if (total > 1 << 26) {
      throw new IllegalArgumentException("kv_append_metadata names " + total + " slots, too many");
    }
    return (int) total;
  }

  /** The integers {@code [k, start1, len1, ...]}, each run a valid slot range. */
  private static long[] runs(String metadata) {
    if (metadata == null) {
      throw new IllegalArgumentException("kv_append_metadata is missing");
    }
    byte[] raw;
    try {
      raw = Base64.getDecoder().decode(metadata);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("kv_append_metadata is not base64: " + e.getMessage());
    }
    if (raw.length < 8) {
      throw new IllegalArgumentException("kv_append_metadata is shorter than its 8-byte length prefix");
    }
    long len = ByteBuffer.wrap(raw, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    if (len != raw.length - 8) {
      throw new IllegalArgumentException("kv_append_metadata length prefix says " + len
          + " bytes but " + (raw.length - 8) + " follow");
    }
    String json = new String(raw, 8, raw.length - 8, StandardCharsets.US_ASCII).trim();
    if (!json.startsWith("[") || !json.endsWith("]")) {
      throw new IllegalArgumentException("kv_append_metadata is not a JSON array: " + abbreviate(json));
    }
    long[] values = integers(json);
    if (values.length == 0) {
      throw new IllegalArgumentException("kv_append_metadata is an empty array");
    }
    long k = values[0];
    if (k < 0 || values.length != 2 * k + 1) {
      throw new IllegalArgumentException("kv_append_metadata has " + values.length
          + " integers, expected 2k+1 = " + (2 * k + 1) + " for k = " + k
          + " runs (several model groups are not supported)");
    }
    for (int i = 0; i < k; i++) {
      long start = values[1 + 2 * i];
      long n = values[2 + 2 * i];
      if (start < 0 || n < 0 || start + n > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("kv_append_metadata run " + i + " [" + start + ", +" + n
            + ") is not a valid slot range");
      }
    }
    return values;
  }

  /** The comma-separated integers between the brackets of {@code json} (white space allowed). */
  private static long[] integers(String json) {
    String body = json.substring(1, json.length() - 1).trim();
    if (body.isEmpty()) {
      return new long[0];
    }
    long[] values = new long[8];
    int n = 0;
    int from = 0;
    while (true) {
      int comma = body.indexOf(',', from);
      String item = (comma < 0 ? body.substring(from) : body.substring(from, comma)).trim();
      long v;
      try {
        v = Long.parseLong(item);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("kv_append_metadata holds a non-integer: "
            + abbreviate(json));
      }
      if (n == values.length) {
        values = java.util.Arrays.copyOf(values, n * 2);
      }
      values[n++] = v;
      if (comma < 0) {
        return java.util.Arrays.copyOf(values, n);
      }
      from = comma + 1;
    }
  }

  private static String abbreviate(String s) {
    return s.length() > 60 ? s.substring(0, 60) + "..." : s;
  }
}
