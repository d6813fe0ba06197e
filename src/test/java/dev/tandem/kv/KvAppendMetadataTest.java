package dev.tandem.kv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class KvAppendMetadataTest {

  @Test
  void encodesExactlyAsMlcDoes() {
    // the examples of the protocol reference, section 4.4
    assertEquals("AwAAAAAAAABbMF0=", KvAppendMetadata.encode(new int[0]));
    assertEquals("CgAAAAAAAABbMSw4MCwxMDBd", KvAppendMetadata.encode(range(80, 100)));
    int[] two = new int[32];
    System.arraycopy(range(80, 20), 0, two, 0, 20);
    System.arraycopy(range(160, 12), 0, two, 20, 12);
    assertEquals("EAAAAAAAAABbMiw4MCwyMCwxNjAsMTJd", KvAppendMetadata.encode(two));
  }

  @Test
  void decodesWhatItEncodes() {
    int[] slots = {5, 6, 7, 32, 33, 100};
    assertArrayEquals(slots, KvAppendMetadata.decode(KvAppendMetadata.encode(slots)));
    assertArrayEquals(new int[0], KvAppendMetadata.decode("AwAAAAAAAABbMF0="));
    assertArrayEquals(range(80, 3), KvAppendMetadata.decode("CAAAAAAAAABbMSw4MCwzXQ=="));
  }

  @Test
  void rejectsMalformedMetadata() {
    assertThrows(IllegalArgumentException.class, () -> KvAppendMetadata.decode("not base64!"));
    assertThrows(IllegalArgumentException.class, () -> KvAppendMetadata.decode("AAAA"));
    // length prefix says 10 bytes but 3 follow
    assertThrows(IllegalArgumentException.class, () -> KvAppendMetadata.decode("CgAAAAAAAABbMF0="));
    // [2,80,100]: k = 2 runs need 5 integers
    String bad = java.util.Base64.getEncoder().encodeToString(withLength("[2,80,100]"));
    assertThrows(IllegalArgumentException.class, () -> KvAppendMetadata.decode(bad));
    String negative = java.util.Base64.getEncoder().encodeToString(withLength("[1,-5,3]"));
    assertThrows(IllegalArgumentException.class, () -> KvAppendMetadata.decode(negative));
  }

  /** The router's count: decode's length, with decode's refusals, for well-formed and malformed. */
  @Test
  void slotCountIsDecodesLengthAndRefusesWhatItRefuses() {
    java.util.Base64.Encoder b64 = java.util.Base64.getEncoder();
    for (int[] slots : new int[][] {{}, {4}, {5, 6, 7, 32, 33, 100}, range(1000, 4096)}) {
      assertEquals(slots.length, KvAppendMetadata.slotCount(KvAppendMetadata.encode(slots)));
    }
    String spaced = b64.encodeToString(withLength(" [ 2 , 80 , 3 ,7, 2 ] "));
    assertEquals(5, KvAppendMetadata.slotCount(spaced));
    for (String bad : new String[] {"not base64!", "AAAA", "CgAAAAAAAABbMF0=",
        b64.encodeToString(withLength("[2,80,100]")), b64.encodeToString(withLength("[1,-5,3]")),
        b64.encodeToString(withLength("[1,5,x]")), b64.encodeToString(withLength("[1,5,,3]")),
        b64.encodeToString(withLength("[]")), b64.encodeToString(withLength("{1}"))}) {
      IllegalArgumentException count = assertThrows(IllegalArgumentException.class,
          () -> KvAppendMetadata.slotCount(bad), bad);
      IllegalArgumentException decode = assertThrows(IllegalArgumentException.class,
          () -> KvAppendMetadata.decode(bad), bad);
      assertEquals(decode.getMessage(), count.getMessage());
    }
  }

  private static byte[] withLength(String json) {
    byte[] b = json.getBytes();
    return java.nio.ByteBuffer.allocate(8 + b.length).order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putLong(b.length).put(b).array();
  }

  private static int[] range(int start, int n) {
    int[] r = new int[n];
    for (int i = 0; i < n; i++) {
      r[i] = start + i;
    }
    return r;
  }
}
