package dev.tandem.router.dispatch;

import dev.tandem.api.FastJson;
import dev.tandem.api.JsonBytes;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.Map;

/**
 * One engine call's JSON body: the client's passed-on fields (the job's engine fields, in their
 * order), then the router's own fields in the order they were set; a router field takes the place
 * of a passed-on field of the same name, so no key is written twice. Immutable: {@link #with}
 * makes the body of another call from this one (a MicroServing call adds its window fields).
 * {@link #toBuffer} writes it straight as JSON bytes (every request has at least one engine body:
 * a JsonObject copied, filled and then encoded was two passes over it); {@link #toJson} is the
 * same body as a JsonObject, same keys in the same order.
 *
 * <p>A body made by adding fields to another ({@code base}) is written as the base's bytes, kept
 * once written, with the added fields after them: disaggregation's three MicroServing calls carry
 * the same generation body, prompt and all, and it is written once per attempt, not three times.
 */
final class EngineBody {

  private static final byte[] COMMA = {','};
  private static final byte[] COLON = {':'};
  private static final byte[] OPEN = {'{'};
  private static final byte[] CLOSE = {'}'};

  private final JsonObject passed;
  private final String[] keys;
  private final Object[] values;
  /** The body whose fields are this one's first {@code base.keys.length} router fields, or null. */
  private final EngineBody base;
  /** Its bytes, once a body made from it needed them; null before, or if Jackson writes it. */
  private byte[] written;

  /**
   * @param passed the client's fields for the engine (never written to)
   * @param keys the router's fields, distinct names
   */
  EngineBody(JsonObject passed, String[] keys, Object[] values) {
    this(passed, keys, values, null);
  }

  private EngineBody(JsonObject passed, String[] keys, Object[] values, EngineBody base) {
    this.passed = passed;
    this.keys = keys;
    this.values = values;
    this.base = base;
  }

  /** This body with the router's field {@code key} set to {@code value} (replaced if set). */
  EngineBody with(String key, Object value) {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        Object[] v = values.clone();
        v[i] = value;
        return new EngineBody(passed, keys, v, base != null && i >= base.keys.length ? base : null);
      }
    }
    String[] k = Arrays.copyOf(keys, keys.length + 1);
    Object[] v = Arrays.copyOf(values, values.length + 1);
    k[keys.length] = key;
    v[values.length] = value;
    // a passed-on field of this name is in the base's bytes: the whole body is written then
    EngineBody from = base != null ? base : this;
    return new EngineBody(passed, k, v, passed.containsKey(key) ? null : from);
  }

  /** The value of the router's field {@code key}, or null. */
  Object get(String key) {
    for (int i = 0; i < keys.length; i++) {
      if (keys[i].equals(key)) {
        return values[i];
      }
    }
    return null;
  }

  private boolean routerKey(String key) {
    for (String k : keys) {
      if (k.equals(key)) {
        return true;
      }
    }
    return false;
  }

  JsonObject toJson() {
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : passed) {
      if (!routerKey(e.getKey())) {
        out.put(e.getKey(), e.getValue());
      }
    }
    for (int i = 0; i < keys.length; i++) { // router values may be shared: a copy to write to
      out.put(keys[i], values[i] instanceof JsonObject o ? o.copy() : values[i]);
    }
    return out;
  }

  /** The body's JSON bytes, as {@link FastJson} encodes {@link #toJson()}. */
  Buffer toBuffer() {
    byte[] head = base == null ? null : base.written();
    if (head == null) {
      JsonBytes whole = write(JsonBytes.threadWriter());
      // null: a value only the codec writes
      return whole != null ? whole.toBuffer() : FastJson.toBuffer(toJson());
    }
    JsonBytes w = JsonBytes.threadWriter().raw(head, 0, head.length - 1); // without its '}'
    for (int i = base.keys.length; i < keys.length; i++) {
      if (!w.raw(COMMA).value(keys[i]) || !w.raw(COLON).value(values[i])) {
        return FastJson.toBuffer(toJson());
      }
    }
    return w.raw(CLOSE).toBuffer();
  }

  /** This body's bytes, written once; null where Jackson must write it. */
  private byte[] written() {
    if (written == null) {
      JsonBytes w = write(JsonBytes.threadWriter());
      written = w == null ? null : w.toBytes();
    }
    return written;
  }

  /** The whole body into {@code w}; null where a value only the codec writes. */
  private JsonBytes write(JsonBytes w) {
    w.raw(OPEN);
    boolean first = true;
    for (Map.Entry<String, Object> e : passed.getMap().entrySet()) {
      if (!routerKey(e.getKey())) {
        if (!first) {
          w.raw(COMMA);
        }
        first = false;
        if (!w.value(e.getKey()) || !w.raw(COLON).value(e.getValue())) {
          return null;
        }
      }
    }
    for (int i = 0; i < keys.length; i++) {
      if (!first) {
        w.raw(COMMA);
      }
      first = false;
      if (!w.value(keys[i]) || !w.raw(COLON).value(values[i])) {
        return null;
      }
    }
    return w.raw(CLOSE);
  }
}
