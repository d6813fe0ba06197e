package dev.tandem.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class WorkloadGeneratorTest {

  private static WorkloadSpec ids(long seed, SharedPrefix prefix, WorkloadClass... classes) {
    return new WorkloadSpec(List.of(classes), PromptKind.IDS, 1000, 3, prefix, seed);
  }

  private static WorkloadClass cls(String name, String prompt, String output, double weight) {
    return new WorkloadClass(name, LengthDistribution.parse(prompt), LengthDistribution.parse(output), weight);
  }

  @Test
  void sameSeedSameRequestsInAnyOrder() {
    WorkloadSpec spec = ids(11, null, cls("a", "uniform:10-50", "lognormal:40,0.6", 1));
    WorkloadGenerator g1 = new WorkloadGenerator(spec);
    WorkloadGenerator g2 = new WorkloadGenerator(spec);
    for (long i = 0; i < 200; i++) {
      assertEquals(g1.request(i), g2.request(i));
    }
    // Asking out of order (as an open loop with another rate might) changes nothing.
    for (long i = 199; i >= 0; i--) {
      assertEquals(g1.request(i), g2.request(199 - (199 - i)));
    }
    WorkloadGenerator other = new WorkloadGenerator(ids(12, null, cls("a", "uniform:10-50", "lognormal:40,0.6", 1)));
    assertNotEquals(g1.request(0), other.request(0));
    // The JSON bodies are byte-identical too.
    assertEquals(CompletionRequestBody.json(g1.request(5), "m", true, true).encode(),
        CompletionRequestBody.json(g2.request(5), "m", true, true).encode());
  }

  @Test
  void idPromptsHaveExactLengthsInRange() {
    WorkloadGenerator g = new WorkloadGenerator(ids(1, null, cls("a", "uniform:10-50", "7", 1)));
    Set<Integer> lengths = new HashSet<>();
    for (long i = 0; i < 500; i++) {
      PlannedRequest r = g.request(i);
      assertEquals(r.promptUnits(), r.promptIds().length);
      assertTrue(r.promptUnits() >= 10 && r.promptUnits() <= 50);
      assertEquals(7, r.maxTokens());
      assertTrue(Arrays.stream(r.promptIds()).allMatch(t -> t >= 3 && t < 1000));
      lengths.add(r.promptUnits());
    }
    assertEquals(41, lengths.size(), "uniform:10-50 covers all 41 lengths in 500 draws");
  }

  @Test
  void lognormalHasTheRequestedMean() {
    WorkloadGenerator g = new WorkloadGenerator(ids(2, null, cls("a", "4", "lognormal:200,0.5", 1)));
    double sum = 0;
    int n = 20_000;
    for (long i = 0; i < n; i++) {
      sum += g.request(i).maxTokens();
    }
    assertEquals(200, sum / n, 4);
  }

  @Test
  void mixFollowsWeights() {
    WorkloadGenerator g = new WorkloadGenerator(ids(3, null, cls("long", "300", "4", 3), cls("short", "8", "64", 1)));
    int longCount = 0;
    int n = 20_000;
    for (long i = 0; i < n; i++) {
      PlannedRequest r = g.request(i);
      if (r.className().equals("long")) {
        longCount++;
        assertEquals(300, r.promptUnits());
        assertEquals(4, r.maxTokens());
      } else {
        assertEquals(8, r.promptUnits());
        assertEquals(64, r.maxTokens());
      }
    }
    assertEquals(0.75, longCount / (double) n, 0.015);
  }

  @Test
  void sharedPrefixesAreReusedAndFollowedByOwnTokens() {
    WorkloadGenerator g = new WorkloadGenerator(ids(4, new SharedPrefix(4, 32), cls("a", "16", "8", 1)));
    Set<String> prefixes = new HashSet<>();
    int[] perPrefix = new int[4];
    for (long i = 0; i < 400; i++) {
      PlannedRequest r = g.request(i);
      assertEquals(48, r.promptIds().length);
      assertEquals(48, r.promptUnits());
      prefixes.add(Arrays.toString(Arrays.copyOf(r.promptIds(), 32)));
      perPrefix[r.prefixIndex()]++;
      // The request's own part differs from another request's with the same prefix.
      PlannedRequest next = g.request(i + 1000);
      if (next.prefixIndex() == r.prefixIndex()) {
        assertTrue(!Arrays.equals(Arrays.copyOfRange(r.promptIds(), 32, 48),
            Arrays.copyOfRange(next.promptIds(), 32, 48)));
      }
    }
    assertEquals(4, prefixes.size());
    assertTrue(Arrays.stream(perPrefix).allMatch(c -> c > 60), Arrays.toString(perPrefix));
  }

  @Test
  void textPromptsAreDeterministicAndShareOnlyThePrefix() {
    WorkloadSpec spec = new WorkloadSpec(List.of(cls("a", "20", "8", 1)), PromptKind.TEXT, 0, 0,
        new SharedPrefix(2, 10), 9);
    WorkloadGenerator g = new WorkloadGenerator(spec);
    PlannedRequest r = g.request(3);
    assertEquals(r, new WorkloadGenerator(spec).request(3));
    assertEquals(30, r.promptUnits());
    String[] words = r.promptText().split(" ");
    assertEquals(10 + 1 + 20, words.length); // prefix, "#3" tag, own words
    assertEquals("#3", words[10]);
    assertEquals(null, r.promptIds());
  }

  /** As a chat: the shared prefix is the system message, the request's own words the user's. */
  @Test
  void aTextPromptAsAChatIsASystemAndAUserMessage() {
    WorkloadSpec spec = new WorkloadSpec(List.of(cls("a", "20", "8", 1)), PromptKind.TEXT, 0, 0,
        new SharedPrefix(2, 10), 9);
    PlannedRequest r = new WorkloadGenerator(spec).request(3);
    io.vertx.core.json.JsonArray messages = CompletionRequestBody.json(r, "m", true, true,
        BenchApi.CHAT).getJsonArray("messages");
    assertEquals(2, messages.size());
    assertEquals("system", messages.getJsonObject(0).getString("role"));
    assertEquals("user", messages.getJsonObject(1).getString("role"));
    assertEquals(r.promptText(), messages.getJsonObject(0).getString("content") + " "
        + messages.getJsonObject(1).getString("content"), "the same words as the completion's");
    assertTrue(messages.getJsonObject(1).getString("content").startsWith("#3 "));
    PlannedRequest ids = new WorkloadGenerator(ids(4, null, cls("a", "16", "8", 1))).request(0);
    assertThrows(IllegalArgumentException.class,
        () -> CompletionRequestBody.json(ids, "m", true, true, BenchApi.CHAT));
  }

  @Test
  void parsesLengthsAndMixEntries() {
    assertEquals(new LengthDistribution.Fixed(12), LengthDistribution.parse("12"));
    assertEquals(new LengthDistribution.Uniform(3, 9), LengthDistribution.parse("uniform:3-9"));
    assertEquals(new LengthDistribution.LogNormal(100, 0.5), LengthDistribution.parse("lognormal:100,0.5"));
    assertEquals("lognormal:100,0.5", LengthDistribution.parse(" LogNormal:100,0.5 ").spec());
    assertThrows(IllegalArgumentException.class, () -> LengthDistribution.parse("0"));
    assertThrows(IllegalArgumentException.class, () -> LengthDistribution.parse("uniform:9-3"));
    assertThrows(IllegalArgumentException.class, () -> LengthDistribution.parse("normal:3"));
    WorkloadClass c = WorkloadClass.parseMixEntry("long=lognormal:900,0.2/uniform:4-8@2.5", 0);
    assertEquals("long", c.name());
    assertEquals(new LengthDistribution.LogNormal(900, 0.2), c.promptLength());
    assertEquals(new LengthDistribution.Uniform(4, 8), c.outputLength());
    assertEquals(2.5, c.weight());
    assertEquals("c1", WorkloadClass.parseMixEntry("32/128", 1).name());
    assertEquals(c, WorkloadClass.parseMixEntry(c.spec(), 5));
    assertThrows(IllegalArgumentException.class, () -> WorkloadClass.parseMixEntry("1024", 0));
    assertThrows(IllegalArgumentException.class, () -> WorkloadClass.parseMixEntry("a=1/2@0", 0));
  }

  @Test
  void idPromptsNeedAVocabulary() {
    assertThrows(IllegalArgumentException.class, () -> new WorkloadSpec(List.of(cls("a", "1", "1", 1)),
        PromptKind.IDS, 0, 0, null, 1));
  }
}
