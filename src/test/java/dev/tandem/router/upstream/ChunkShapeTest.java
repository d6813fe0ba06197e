package dev.tandem.router.upstream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The reader that compares a chunk with the last one against Jackson: whatever a stream's chunks
 * are, each must be read as Jackson reads it alone, and refused where Jackson refuses it.
 */
class ChunkShapeTest {

  /** Per-token chunks as engines write them: %s is the text's JSON, %d a token id. */
  private static final List<String> SHAPES = List.of(
      // the builtin engine (MLC's field order) with return_token_ids
      "{\"id\":\"cmpl-1\",\"choices\":[{\"finish_reason\":null,\"index\":0,\"logprobs\":null,"
          + "\"text\":%s,\"token_ids\":[%d]}],\"created\":1733,\"model\":\"m\","
          + "\"object\":\"text_completion\",\"usage\":null}",
      // MLC: no token ids
      "{\"id\":\"cmpl-2\",\"choices\":[{\"finish_reason\":null,\"index\":1,\"logprobs\":null,"
          + "\"text\":%s}],\"created\":0,\"model\":null,\"object\":\"text_completion\","
          + "\"usage\":null}",
      // ids before the text, white space, null ids after
      " { \"choices\" : [ { \"token_ids\" : [ %2$d , 7 ] , \"index\" : 0 , \"text\" : %1$s } ] } ",
      "{\"choices\":[{\"index\":0,\"text\":%s,\"token_ids\":null}],\"usage\":null}");

  private static final List<String> TEXTS = List.of("\"Hello\"", "\" world\"", "\"\"",
      "\"a\\\"b\\\\c\\/\\n\\u00e9\"", "\"h\u00e9llo \ud83d\ude00 \u4e2d\"", "\"x\"", "\",\"",
      "\"]}\"", "\"\\\"\"");

  private static EngineChunk read(ChunkShape shape, String json) {
    byte[] b = ("zz" + json + "zz").getBytes(StandardCharsets.UTF_8);
    return shape.read(b, 2, b.length - 4);
  }

  private static EngineChunk jackson(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    return EngineChunk.jackson(b, 0, b.length);
  }

  @Test
  void aStreamOfTokensIsReadAsJacksonReadsEachChunk() {
    for (String shape : SHAPES) {
      ChunkShape reader = new ChunkShape();
      int id = 100;
      for (String text : TEXTS) {
        String json = String.format(shape, text, id++);
        ChunkScannerTest.assertSame(jackson(json), read(reader, json), json);
      }
      assertEquals(TEXTS.size() - 1, reader.rereads(), "every chunk after the first: " + shape);
    }
  }

  /**
   * EngineStream hands a sink (the relay) each re-read chunk as its fields, without a chunk
   * object: a sink that takes them gets every chunk after the first there, each what Jackson reads.
   */
  @Test
  void reReadChunksReachASinkAsTheirFields() {
    for (String shape : SHAPES) {
      ChunkShape reader = new ChunkShape();
      List<EngineChunk> tokens = new ArrayList<>();
      List<EngineChunk> whole = new ArrayList<>();
      ChunkSink sink = new ChunkSink() {
        @Override
        public void accept(EngineChunk chunk) {
          whole.add(chunk);
        }

        @Override
        public void token(int index, String text, String finishReason, int[] tokenIds) {
          tokens.add(new EngineChunk(List.of(new EngineChunk.Choice(index, text, finishReason,
              tokenIds, null)), null, null, null));
        }
      };
      List<String> jsons = new ArrayList<>();
      int id = 100;
      for (String text : TEXTS) {
        String json = String.format(shape, text, id++);
        jsons.add(json);
        byte[] b = ("zz" + json + "zz").getBytes(StandardCharsets.UTF_8);
        if (!reader.tokenTo(b, 2, b.length - 4, sink)) {
          sink.accept(reader.scan(b, 2, b.length - 4));
        }
      }
      assertEquals(1, whole.size(), shape);
      ChunkScannerTest.assertSame(jackson(jsons.get(0)), whole.get(0), jsons.get(0));
      assertEquals(TEXTS.size() - 1, tokens.size(), shape);
      for (int k = 0; k < tokens.size(); k++) {
        ChunkScannerTest.assertSame(jackson(jsons.get(k + 1)), tokens.get(k), jsons.get(k + 1));
      }
    }
  }

  @Test
  void aChangedEnvelopeIsReadInFull() {
    String first = String.format(SHAPES.get(0), "\"a\"", 1);
    List<String> others = List.of(
        first.replace("\"finish_reason\":null", "\"finish_reason\":\"length\""),
        first.replace("\"index\":0", "\"index\":1"),
        first.replace("\"usage\":null", "\"usage\":{\"completion_tokens\":3}"),
        // a text that would carry its own fields: the bytes after it are not the envelope's
        first.replace("\"a\"", "\"x\",\"index\":5,\"text\":\"y\""),
        first.replace("\"a\"", "\"x\",\"token_ids\":[9],\"index\":2,\"text\":\"q\""),
        first.replace("\"a\"", "null"),
        first.replace("[1]", "null"),
        first.replace("\"logprobs\":null", "\"logprobs\":{\"tokens\":[\"a\"]}"),
        first.replace("\"cmpl-1\"", "\"cmpl-2\""));
    for (String json : others) {
      ChunkShape reader = new ChunkShape();
      read(reader, first);
      ChunkScannerTest.assertSame(jackson(json), read(reader, json), json);
      assertEquals(0, reader.rereads(), json);
    }
  }

  /** A choice's last chunk (it has a finish reason) leaves the per-token shape learned before it. */
  @Test
  void aChoicesLastChunkKeepsTheLearnedShape() {
    String first = String.format(SHAPES.get(0), "\"a\"", 1);
    String last = first.replace("\"finish_reason\":null", "\"finish_reason\":\"length\"");
    String next = String.format(SHAPES.get(0), "\"b\"", 2);
    ChunkShape reader = new ChunkShape();
    read(reader, first);
    ChunkScannerTest.assertSame(jackson(last), read(reader, last), last);
    assertEquals(0, reader.rereads());
    ChunkScannerTest.assertSame(jackson(next), read(reader, next), next);
    assertEquals(1, reader.rereads()); // read as the first chunk's shape
  }

  /** Every one-byte change, cut and duplication of a next chunk: never a different reading. */
  @Test
  void mutationsOfTheNextChunkAreReadAsJacksonReadsThem() {
    Random random = new Random(15);
    byte[] alphabet = "{}[]\",:\\ 0123456789-.eEtrunlfasxbu\u00e9".getBytes(StandardCharsets.UTF_8);
    int reread = 0;
    for (String shape : SHAPES) {
      byte[] learned = String.format(shape, "\"Hello\"", 42).getBytes(StandardCharsets.UTF_8);
      byte[] next = String.format(shape, "\" wor\\u006cd\"", 7).getBytes(StandardCharsets.UTF_8);
      for (int n = 0; n < 4000; n++) {
        byte[] b = mutate(next, random, alphabet);
        ChunkShape reader = new ChunkShape();
        reader.read(learned, 0, learned.length);
        String shown = new String(b, StandardCharsets.UTF_8);
        EngineChunk expected;
        try {
          expected = EngineChunk.jackson(b, 0, b.length);
        } catch (IllegalArgumentException refused) {
          try {
            reader.read(b, 0, b.length);
          } catch (IllegalArgumentException alsoRefused) {
            continue;
          }
          fail("read what Jackson refuses (" + refused.getMessage() + "): " + shown);
          return;
        }
        ChunkScannerTest.assertSame(expected, reader.read(b, 0, b.length), shown);
        reread += reader.rereads();
      }
    }
    // many mutations are in the text or the ids: the shortcut must have read them
    assertTrue(reread > 1000, "only " + reread + " mutated chunks were read by the shortcut");
  }

  private static byte[] mutate(byte[] original, Random random, byte[] alphabet) {
    byte[] b = original.clone();
    int at = random.nextInt(b.length);
    switch (random.nextInt(3)) {
      case 0 -> b[at] = alphabet[random.nextInt(alphabet.length)];
      case 1 -> b = Arrays.copyOf(b, at);
      default -> {
        byte[] longer = new byte[b.length + 1];
        System.arraycopy(b, 0, longer, 0, at + 1);
        System.arraycopy(b, at, longer, at + 1, b.length - at);
        b = longer;
      }
    }
    return b;
  }
}
