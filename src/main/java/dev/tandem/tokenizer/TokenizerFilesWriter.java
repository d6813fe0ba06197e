package dev.tandem.tokenizer;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes {@code tokenizer.json} (Hugging Face tokenizers format, byte-level BPE) and
 * {@code tokenizer_config.json} (special tokens, chat template) for a random model: Tandem's
 * original layout ({@link #ORIGINAL}: three ChatML specials first), or a family's
 * ({@link TokenizerSpec}).
 */
public final class TokenizerFilesWriter {
  public static final String END_OF_TEXT = "<|endoftext|>";
  public static final String IM_START = "<|im_start|>";
  public static final String IM_END = "<|im_end|>";
  /** Ids 0, 1, 2. {@code <|endoftext|>} (0) is both bos and eos. */
  public static final List<String> SPECIALS = List.of(END_OF_TEXT, IM_START, IM_END);
  public static final String CHAT_TEMPLATE =
      "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content']"
      + " + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

  /** The layout {@code make-model --family llama} has always written. */
  public static final TokenizerSpec ORIGINAL = new TokenizerSpec(
      SPECIALS.stream().map(s -> new TokenizerSpec.AddedToken(s, true)).toList(), true, END_OF_TEXT,
      END_OF_TEXT, END_OF_TEXT, END_OF_TEXT, List.of(IM_START, IM_END), CHAT_TEMPLATE, "GPT2Tokenizer");

  private TokenizerFilesWriter() {}

  public static void write(Path dir, int vocabSize, int maxLength, long seed) throws IOException {
    write(dir, ORIGINAL, vocabSize, maxLength, seed);
  }

  /** Writes a tokenizer of exactly {@code vocabSize} ids laid out as {@code spec} says. */
  public static void write(Path dir, TokenizerSpec spec, int vocabSize, int maxLength, long seed) throws IOException {
    List<String> added = spec.added().stream().map(TokenizerSpec.AddedToken::content).toList();
    ByteLevelBpe.Vocabulary v = spec.addedFirst()
        ? ByteLevelBpe.build(added, vocabSize, trainingText(), seed)
        : ByteLevelBpe.build(List.of(), vocabSize - added.size(), trainingText(), seed);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("tokenizer.json"), tokenizerJson(v, spec).encode() + "\n", StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("tokenizer_config.json"),
        tokenizerConfig(spec, vocabSize, maxLength).encodePrettily() + "\n", StandardCharsets.UTF_8);
  }

  static String trainingText() {
    try (InputStream in = TokenizerFilesWriter.class.getResourceAsStream("bpe-training-text.txt")) {
      if (in == null) {
        throw new IllegalStateException("bpe-training-text.txt is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static JsonObject tokenizerJson(ByteLevelBpe.Vocabulary v, TokenizerSpec spec) {
    int vocabSize = v.tokens().size() + (spec.addedFirst() ? 0 : spec.added().size());
    JsonArray added = new JsonArray();
    for (TokenizerSpec.AddedToken t : spec.added()) {
      added.add(new JsonObject().put("id", spec.idOf(t.content(), vocabSize)).put("content", t.content())
          .put("single_word", false).put("lstrip", false).put("rstrip", false).put("normalized", false)
          .put("special", t.special()));
    }
    JsonObject vocab = new JsonObject();
    for (int i = 0; i < v.tokens().size(); i++) {
      vocab.put(v.tokens().get(i), i);
    }
    JsonObject model = new JsonObject().put("type", "BPE").putNull("dropout").putNull("unk_token")
        .putNull("continuing_subword_prefix").putNull("end_of_word_suffix").put("fuse_unk", false)
        .put("byte_fallback", false).put("ignore_merges", false)
        .put("vocab", vocab).put("merges", new JsonArray(List.copyOf(v.merges())));
    return new JsonObject()
        .put("version", "1.0")
        .putNull("truncation")
        .putNull("padding")
        .put("added_tokens", added)
        .putNull("normalizer")
        .put("pre_tokenizer", byteLevel(false, true))
        .put("post_processor", byteLevel(true, false))
        .put("decoder", byteLevel(true, true))
        .put("model", model);
  }

  private static JsonObject byteLevel(boolean addPrefixSpace, boolean trimOffsets) {
    return new JsonObject().put("type", "ByteLevel").put("add_prefix_space", addPrefixSpace)
        .put("trim_offsets", trimOffsets).put("use_regex", true);
  }

  /** The config in the key order Hugging Face writes (sorted); absent special tokens are null. */
  static JsonObject tokenizerConfig(TokenizerSpec spec, int vocabSize, int maxLength) {
    JsonObject decoder = new JsonObject();
    for (TokenizerSpec.AddedToken t : spec.added()) {
      decoder.put(String.valueOf(spec.idOf(t.content(), vocabSize)), new JsonObject().put("content", t.content())
          .put("lstrip", false).put("normalized", false).put("rstrip", false).put("single_word", false)
          .put("special", t.special()));
    }
    return new JsonObject()
        .put("add_bos_token", false)
        .put("add_eos_token", false)
        .put("add_prefix_space", false)
        .put("added_tokens_decoder", decoder)
        .put("additional_special_tokens", new JsonArray(List.copyOf(spec.additionalSpecialTokens())))
        .put("bos_token", spec.bos())
        .put("chat_template", spec.chatTemplate())
        .put("clean_up_tokenization_spaces", false)
        .put("eos_token", spec.eos())
        .put("model_max_length", maxLength)
        .put("pad_token", spec.pad())
        .put("tokenizer_class", spec.tokenizerClass())
        .put("unk_token", spec.unk());
  }
}
