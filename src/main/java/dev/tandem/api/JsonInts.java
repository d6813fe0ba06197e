package dev.tandem.api;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * Token ids as a JSON array value of a {@code JsonObject}: {@link JsonBytes} writes the ints
 * straight from the array, with no {@code Integer} per id; everything else (Jackson, Vert.x's
 * {@code copy}, {@code getJsonArray}) sees a read-only {@code List<Integer>}. Every engine body
 * holds its prompt's ids, and {@link JsonTree} reads a request's top-level arrays of plain
 * non-negative integers (a prompt's ids) into one. The array is not copied: whoever passes it
 * must not change it.
 *
 * <p>One read from a request keeps the bytes it was read from when they are exactly what
 * {@link JsonBytes} (and Jackson) would write for it, so that the prompt goes to the engine as a
 * copy of the client's bytes rather than written again digit by digit.
 */
public final class JsonInts extends AbstractList<Integer> implements RandomAccess {

  private final int[] ids;
  private final byte[] json;

  public JsonInts(int[] ids) {
    this(ids, null);
  }

  /**
   * The ids with their JSON text written now, on the caller's thread: a tokenizer's worker, so
   * that an event loop copies the bytes into engine bodies rather than writing each id (a
   * 2,000-token chat's ids took about a tenth of the loop's time for the request).
   */
  public static JsonInts written(int[] ids) {
    JsonBytes out = JsonBytes.threadWriter();
    out.value(new JsonInts(ids));
    return new JsonInts(ids, out.toBytes());
  }

  /** @param json the array's JSON text as written compactly ({@code [1,2,3]}), or null */
  JsonInts(int[] ids, byte[] json) {
    this.ids = ids;
    this.json = json;
  }

  public int[] ids() {
    return ids;
  }

  /** The array's compact JSON text when it was read from it, else null (never written to). */
  byte[] json() {
    return json;
  }

  @Override
  public Integer get(int index) {
    return ids[index];
  }

  @Override
  public int size() {
    return ids.length;
  }
}
