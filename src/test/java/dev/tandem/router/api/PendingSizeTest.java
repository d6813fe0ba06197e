package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PendingSizeTest {

  @Test
  void growsAtOnceToWhatAWriteNeededWithAnEighthMore() {
    PendingSize size = new PendingSize();
    size.wrote(4096);
    assertEquals(4096 + 512 + 64, size.next());
  }

  @Test
  void answersThatAlternateBetweenSizesKeepTheLargerRoom() {
    PendingSize size = new PendingSize();
    for (int i = 0; i < 100; i++) {
      size.wrote(240); // one token per engine read
      size.wrote(520); // the last token, the usage chunk and [DONE]
    }
    assertEquals(520 + 65 + 64, size.next());
  }

  @Test
  void shrinksByQuartersWhileWritesNeedLessThanHalf() {
    PendingSize size = new PendingSize();
    size.wrote(60_000);
    int big = size.next();
    size.wrote(240);
    assertEquals(big - (big >> 2), size.next());
    for (int i = 0; i < 30; i++) {
      size.wrote(240);
    }
    assertTrue(size.next() <= 2 * (240 + 30 + 64), "settles within twice the need: " + size.next());
    assertTrue(size.next() >= 240 + 30 + 64, "never below the need: " + size.next());
  }

  @Test
  void staysWithinItsBounds() {
    PendingSize size = new PendingSize();
    size.wrote(10_000_000);
    assertEquals(PendingSize.MAX, size.next());
    for (int i = 0; i < 100; i++) {
      size.wrote(0);
    }
    assertTrue(size.next() >= PendingSize.MIN && size.next() <= 2 * PendingSize.MIN,
        "settles between the least room and twice it: " + size.next());
  }
}
