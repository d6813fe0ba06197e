package dev.tandem.api;

import java.util.AbstractList;
import java.util.RandomAccess;

/**
 * Token ids as a JSON array value of a {@code JsonObject}: {@link JsonBytes} writes the ints
 * straight from the array, with no {@code Integer} per id; everything else (Jackson, Vert.x's
 * {@code copy}, {@code getJsonArray}) sees a read-only {@code List<Integer>}. Every engine body
 * holds its prompt's ids. The array is not copied: whoever passes it must not change it.
 */
public final class JsonInts extends AbstractList<Integer> implements RandomAccess {

  private final int[] ids;

  public JsonInts(int[] ids) {
    this.ids = ids;
  }

  int[] ids() {
    return ids;
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
