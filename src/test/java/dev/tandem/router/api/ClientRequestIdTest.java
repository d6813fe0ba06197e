package dev.tandem.router.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * The X-Request-Id a client names its request with is taken as it is when it is up to 128
 * printable ASCII characters without spaces, and ignored otherwise (not refused: it only labels
 * the request). What happens to a taken one is OperationsIT's.
 */
class ClientRequestIdTest {

  @Test
  void printableIdsUpTo128CharsAreTakenAnythingElseIsIgnored() {
    assertEquals("trace-42", RequestRunner.Origin.clientRequestId("trace-42"));
    assertEquals("a/b:c=d;e~!", RequestRunner.Origin.clientRequestId("a/b:c=d;e~!"));
    String longest = "x".repeat(128);
    assertEquals(longest, RequestRunner.Origin.clientRequestId(longest));
    assertNull(RequestRunner.Origin.clientRequestId(longest + "x"), "too long");
    assertNull(RequestRunner.Origin.clientRequestId(null));
    assertNull(RequestRunner.Origin.clientRequestId(""));
    assertNull(RequestRunner.Origin.clientRequestId("two words"), "a space");
    assertNull(RequestRunner.Origin.clientRequestId("caf\u00e9"), "not ASCII");
    assertNull(RequestRunner.Origin.clientRequestId("line\nbreak"), "a control char");
  }
}
