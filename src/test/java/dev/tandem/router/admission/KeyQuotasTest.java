package dev.tandem.router.admission;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.router.access.ClientKey;
import io.vertx.core.MultiMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Token buckets with a hand-moved clock: limits, refill, settling, OpenAI's headers. */
class KeyQuotasTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private static final long SECOND = 1_000_000_000L;

  @Test
  void requestsPerMinuteRefillContinuously() {
    KeyQuotas quotas = new KeyQuotas(3, 0, now::get);
    ClientKey key = new ClientKey("k", null, null, false);
    KeyQuotas.Quota q = quotas.of(key);
    for (int i = 0; i < 3; i++) {
      q.reserve(key, 10);
    }
    RateLimited e = assertThrows(RateLimited.class, () -> q.reserve(key, 10));
    assertEquals("key_requests", e.reason());
    assertEquals(429, e.status());
    assertEquals("rate_limit_exceeded", e.code());
    assertEquals(20, e.retryAfterSeconds(), "one request refills in 60 s / 3");
    now.addAndGet(20 * SECOND);
    q.reserve(key, 10);
  }

  @Test
  void tokensAreReservedUpFrontAndSettledOnUsage() {
    KeyQuotas quotas = new KeyQuotas(0, 1000, now::get);
    ClientKey key = new ClientKey("k", null, null, false);
    KeyQuotas.Quota q = quotas.of(key);
    RateLimitHeaders h = q.reserve(key, 600);
    assertEquals(400, h.remainingTokens());
    assertEquals(-1, h.limitRequests(), "no request limit: no request headers");
    RateLimited e = assertThrows(RateLimited.class, () -> q.reserve(key, 600));
    assertEquals("key_tokens", e.reason());
    assertEquals("tokens", e.type());
    q.settle(600, 100); // it used far less than its max_tokens
    assertEquals(900, q.headers(now.get()).remainingTokens());
    q.reserve(key, 600);
    q.settle(600, 1500); // and this one more than it said: the bucket goes into debt
    assertTrue(q.headers(now.get()).remainingTokens() <= 0);
    assertThrows(RateLimited.class, () -> q.reserve(key, 1));
    RateLimited big = assertThrows(RateLimited.class, () -> q.reserve(key, 5000));
    assertEquals("key_too_large", big.reason());
  }

  @Test
  void aKeysOwnLimitsWinAndKeysAreCountedApart() {
    KeyQuotas quotas = new KeyQuotas(100, 0, now::get);
    ClientKey strict = new ClientKey("strict", 1, null, false);
    ClientKey other = new ClientKey("other", null, null, false);
    quotas.of(strict).reserve(strict, 1);
    assertThrows(RateLimited.class, () -> quotas.of(strict).reserve(strict, 1));
    quotas.of(other).reserve(other, 1);
    MultiMap headers = MultiMap.caseInsensitiveMultiMap();
    quotas.of(other).headers(now.get()).addTo(headers);
    assertEquals("100", headers.get("x-ratelimit-limit-requests"));
    assertEquals("99", headers.get("x-ratelimit-remaining-requests"));
    assertTrue(headers.get("x-ratelimit-reset-requests").endsWith("s"));
    assertEquals(null, headers.get("x-ratelimit-limit-tokens"));
  }

  @Test
  void aRefusedRequestTakesNothing() {
    KeyQuotas quotas = new KeyQuotas(5, 100, now::get);
    ClientKey key = new ClientKey("k", null, null, false);
    KeyQuotas.Quota q = quotas.of(key);
    assertThrows(RateLimited.class, () -> q.reserve(key, 101));
    RateLimitHeaders h = q.headers(now.get());
    assertEquals(5, h.remainingRequests());
    assertEquals(100, h.remainingTokens());
    q.reserve(key, 50);
    q.cancel(50); // admitted by the key, then refused by the queue: all of it back
    assertEquals(5, q.headers(now.get()).remainingRequests());
  }
}
