package dev.tandem.tokenizer;

import ai.djl.huggingface.tokenizers.Encoding;
import ai.djl.huggingface.tokenizers.HuggingFaceTokenizer;
import ai.djl.huggingface.tokenizers.jni.TokenizersLibrary;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TextTokenizer} over a model folder's {@code tokenizer.json}, run by the Hugging Face
 * tokenizers library through DJL: truncation and padding off (DJL's defaults would cut input at
 * 512 tokens), no special tokens added, special tokens skipped when decoding.
 *
 * <p>Encoding asks the native library for the ids alone. DJL's {@code encode} also fetches every
 * other field of the encoding (the tokens as Java strings, their character spans as objects, type,
 * word and sequence ids, masks) across JNI, which adds about half again to the tokenizing of a
 * chat prompt (bench/tokenizer-micro.sh). DJL prepares the text first where it is configured to
 * (a prefix space, lower case, accents stripped: its options, or a {@code tokenizer_config.json}
 * it is given, which {@link #load} does not); the constructor checks on a probe text that the
 * ids-only call gives DJL's ids and keeps DJL's call where it does not.
 *
 * <p>A long text is cut where the tokenizer splits anyway ({@link TokenizerSegments}), and the
 * ids of its beginning are kept ({@link PrefixIds}): a conversation's history, which every turn's
 * prompt repeats, is tokenized once.
 */
public final class DjlTokenizer implements TextTokenizer {
  public static final String FILE_NAME = "tokenizer.json";
  private static final Logger LOG = LoggerFactory.getLogger(DjlTokenizer.class);

  static {
    // DJL probes a cloud metadata address unless told it is offline before first use.
    if (System.getProperty("ai.djl.offline") == null) {
      System.setProperty("ai.djl.offline", "true");
    }
  }

  /** Differs from itself under each preparation DJL may make: first word, case, an accent. */
  static final String PROBE = "Probe: Ab \u00e9t\u00e9, cAsE.";

  /**
   * The chars of texts' beginnings whose ids a router's tokenizer keeps: 16 Mi, or a 32nd of the
   * heap where that is less (a char and its share of the ids take about 2-3 bytes).
   */
  public static final long PREFIX_CHARS =
      Math.min(16L << 20, Runtime.getRuntime().maxMemory() / 32);

  /**
   * The chars of beginnings kept in {@code megabytes} of memory ({@code --tokenizer-cache-mb}),
   * counting 3 bytes a char with its share of the ids; -1: {@link #PREFIX_CHARS}; 0: none.
   */
  public static long keptChars(int megabytes) {
    if (megabytes < -1) {
      throw new IllegalArgumentException(
          "megabytes must be -1 (auto), 0 (off) or more: " + megabytes);
    }
    return megabytes == -1 ? PREFIX_CHARS : ((long) megabytes << 20) / 3;
  }

  private final HuggingFaceTokenizer tokenizer;
  private final int vocabSize;
  /** The ids-only call gives DJL's ids (no preparation of the text is configured). */
  private final boolean direct;
  /** Null where texts are not cut: no cut points, or DJL prepares the whole text. */
  private final PrefixIds prefixIds;

  DjlTokenizer(HuggingFaceTokenizer tokenizer, int vocabSize) {
    this(tokenizer, vocabSize, TokenizerSegments.none(), 0);
  }

  /**
   * @param segments where a text may be cut and tokenized in pieces
   * @param prefixChars the chars of texts' beginnings whose ids are kept at most
   */
  DjlTokenizer(HuggingFaceTokenizer tokenizer, int vocabSize, TokenizerSegments segments,
      long prefixChars) {
    this.tokenizer = tokenizer;
    this.vocabSize = vocabSize;
    this.direct = Arrays.equals(viaDjl(PROBE), idsOnly(PROBE));
    this.prefixIds = direct && segments.any() && prefixChars > 0
        ? new PrefixIds(segments, this::idsOnly, prefixChars) : null;
  }

  /** Loads {@code modelDir/tokenizer.json}; slow (native library, parsing): call off event loops. */
  public static DjlTokenizer load(Path modelDir) throws IOException {
    return load(modelDir, 0);
  }

  /**
   * Loads {@code modelDir/tokenizer.json}, keeping the ids of long texts' beginnings where the
   * tokenizer allows ({@link PrefixIds}): a router's, which tokenizes every turn of every
   * conversation. Says in the log which.
   *
   * @param prefixChars the chars of beginnings kept at most; 0: none ({@link #PREFIX_CHARS} is a
   *     router's)
   */
  public static DjlTokenizer load(Path modelDir, long prefixChars) throws IOException {
    Path file = modelDir.resolve(FILE_NAME);
    if (!Files.isRegularFile(file)) {
      throw new IOException(file + ": missing (the model folder needs a Hugging Face tokenizer.json)");
    }
    JsonObject json;
    try {
      json = new JsonObject(Files.readString(file, StandardCharsets.UTF_8));
    } catch (DecodeException e) {
      throw new IOException(file + ": not a valid tokenizer.json: " + e.getMessage(), e);
    }
    int vocab = countVocab(file, json);
    HuggingFaceTokenizer t = HuggingFaceTokenizer.builder().optTokenizerPath(file)
        .optTruncation(false).optPadding(false).optAddSpecialTokens(false).build();
    TokenizerSegments segments = TokenizerSegments.of(json);
    DjlTokenizer loaded = new DjlTokenizer(t, vocab, segments, prefixChars);
    if (prefixChars > 0) {
      if (loaded.prefixIds != null) {
        LOG.info("tokenizer: the ids of long prompts' beginnings are kept, so a conversation's"
            + " history is tokenized once (prompts cut after {}; at most {} Ki chars kept)",
            segments.boundaries(), prefixChars >> 10);
      } else {
        LOG.info("tokenizer: every prompt is tokenized whole, a conversation's history every turn"
            + " ({})", loaded.direct ? segments.whyNone()
            : "the tokenizer prepares the whole text first");
      }
    }
    return loaded;
  }

  /** Highest id in the BPE vocabulary or among the added tokens, plus one. */
  private static int countVocab(Path file, JsonObject json) throws IOException {
    try {
      int max = -1;
      JsonObject model = json.getJsonObject("model");
      JsonObject vocab = model == null ? null : model.getJsonObject("vocab");
      if (vocab != null) {
        for (Map.Entry<String, Object> e : vocab) {
          max = Math.max(max, ((Number) e.getValue()).intValue());
        }
      }
      JsonArray added = json.getJsonArray("added_tokens");
      if (added != null) {
        for (int i = 0; i < added.size(); i++) {
          max = Math.max(max, added.getJsonObject(i).getInteger("id"));
        }
      }
      return max + 1;
    } catch (ClassCastException | NullPointerException e) {
      throw new IOException(file + ": not a valid tokenizer.json: " + e.getMessage(), e);
    }
  }

  @Override
  public int[] encode(String text) {
    if (prefixIds != null) {
      return prefixIds.encode(text);
    }
    return direct ? idsOnly(text) : viaDjl(text);
  }

  /** The cache of texts' beginnings (null where texts are not cut), for tests and benchmarks. */
  PrefixIds prefixIds() {
    return prefixIds;
  }

  @Override
  public KeptBeginnings keptBeginnings() {
    return prefixIds == null ? null : prefixIds.stats();
  }

  /** Whether {@link #encode} takes the ids-only call (false: DJL prepares this text first). */
  boolean encodesIdsOnly() {
    return direct;
  }

  /** DJL's encode: the text prepared as configured, every field of the encoding fetched. */
  int[] viaDjl(String text) {
    Encoding enc = tokenizer.encode(text, false, false);
    return ints(enc.getIds());
  }

  /** The native library's encoding of {@code text} as it is, its ids alone fetched. */
  int[] idsOnly(String text) {
    if (text == null) {
      throw new NullPointerException("text cannot be null");
    }
    TokenizersLibrary lib = TokenizersLibrary.LIB;
    long encoding = lib.encode(tokenizer.getHandle(), text, false);
    try {
      return ints(lib.getTokenIds(encoding));
    } finally {
      lib.deleteEncoding(encoding);
    }
  }

  private static int[] ints(long[] ids) {
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = (int) ids[i];
    }
    return out;
  }

  @Override
  public String decode(int[] ids) {
    long[] l = new long[ids.length];
    for (int i = 0; i < ids.length; i++) {
      l[i] = ids[i];
    }
    return tokenizer.decode(l, true);
  }

  @Override
  public int vocabSize() {
    return vocabSize;
  }

  @Override
  public void close() {
    tokenizer.close();
  }
}
