package dev.tandem.world;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class WorldInitConfigTest {
  private static final int[] UID = IntStream.range(0, 125).map(i -> i == 0 ? 65664 : (i * 37) % 256 - 128).toArray();

  private static String uidJson(String sep) {
    return IntStream.of(UID).mapToObj(Integer::toString).collect(Collectors.joining(sep, "[", "]"));
  }

  @Test
  void writesPythonJsonDumpsStyle() {
    String json = new WorldInitConfig(UID, 4, 2).toJson();
    assertEquals("{\"uid\": " + uidJson(", ") + ", \"npes\": 4, \"pe_start\": 2}", json);
  }

  @Test
  void readsAnyValidJson() throws Exception {
    String compact = "{\"pe_start\":1,\"npes\":3,\"extra\":true,\"uid\":" + uidJson(",") + "}";
    WorldInitConfig c = WorldInitConfig.parse(compact);
    assertArrayEquals(UID, c.uid());
    assertEquals(3, c.npes());
    assertEquals(1, c.peStart());
    String spaced = "\n { \"uid\" :\n" + uidJson(" ,\t") + " , \"npes\" : 3 , \"pe_start\" : 0 }\n";
    assertEquals(0, WorldInitConfig.parse(spaced).peStart());
    WorldInitConfig round = WorldInitConfig.parse(new WorldInitConfig(UID, 5, 4).toJson());
    assertEquals(new WorldInitConfig(UID, 5, 4), round);
  }

  private static String refusal(String json) {
    return assertThrows(WorldException.class, () -> WorldInitConfig.parse(json)).getMessage();
  }

  @Test
  void refusesMalformed() {
    assertTrue(refusal("{\"uid\": [1, 2").contains("is not valid JSON"), refusal("{\"uid\": [1, 2"));
    assertTrue(refusal("").contains("is empty"));
    assertTrue(refusal("[1, 2]").contains("must be a JSON object"));
    assertTrue(refusal("{\"npes\": 2, \"pe_start\": 0}").contains("has no \"uid\" key"));
    assertTrue(refusal("{\"uid\": " + uidJson(",") + ", \"pe_start\": 0}").contains("has no \"npes\" key"));
    assertTrue(refusal("{\"uid\": " + uidJson(",") + ", \"npes\": 2}").contains("has no \"pe_start\" key"));
    assertTrue(refusal("{\"uid\": \"abc\", \"npes\": 2, \"pe_start\": 0}").contains("\"uid\" must be an array"));
    assertTrue(refusal("{\"uid\": [1,2,3], \"npes\": 2, \"pe_start\": 0}").contains("must have 125 integers"));
    String withFloat = uidJson(",").replaceFirst(",", ",1.5,").replaceFirst(",-?\\d+]$", "]");
    assertTrue(refusal("{\"uid\": " + withFloat + ", \"npes\": 2, \"pe_start\": 0}").contains("uid[1] must be an integer"),
        refusal("{\"uid\": " + withFloat + ", \"npes\": 2, \"pe_start\": 0}"));
    assertTrue(refusal("{\"uid\": " + uidJson(",") + ", \"npes\": \"2\", \"pe_start\": 0}")
        .contains("\"npes\" must be an integer, got a string \"2\""));
    assertTrue(refusal("{\"uid\": " + uidJson(",") + ", \"npes\": 0, \"pe_start\": 0}").contains("at least 1"));
    assertTrue(refusal("{\"uid\": " + uidJson(",") + ", \"npes\": 2, \"pe_start\": 2}").contains("[0, npes=2)"));
    assertTrue(refusal("{\"uid\": " + uidJson(",") + ", \"npes\": 9999999999, \"pe_start\": 0}")
        .contains("out of the 32-bit integer range"));
  }
}
