package dev.tandem.tokenizer;

import java.util.List;

/**
 * What a written tokenizer holds besides its byte-level BPE: the added tokens (each one id, never
 * split by BPE), where they sit, and the {@code tokenizer_config.json} fields a model family uses
 * (its special-token names and chat template).
 *
 * @param added added tokens in id order
 * @param addedFirst true: ids 0.. (Tandem's original layout); false: the last ids of the
 *     vocabulary, after the BPE tokens (Llama 3 and Qwen), and left out of {@code model.vocab}
 * @param bos {@code bos_token}, or null (written as null, as Qwen does)
 * @param eos {@code eos_token}
 * @param pad {@code pad_token}, or null
 * @param unk {@code unk_token}, or null
 * @param additionalSpecialTokens {@code additional_special_tokens}
 * @param chatTemplate {@code chat_template}
 * @param tokenizerClass {@code tokenizer_class}
 */
public record TokenizerSpec(List<AddedToken> added, boolean addedFirst, String bos, String eos, String pad,
    String unk, List<String> additionalSpecialTokens, String chatTemplate, String tokenizerClass) {

  /**
   * One added token.
   *
   * @param special true for control tokens (skipped when decoding with special tokens skipped);
   *     false for tokens that are text, such as Qwen's {@code <tool_call>} and {@code <think>}
   */
  public record AddedToken(String content, boolean special) {}

  public TokenizerSpec {
    added = List.copyOf(added);
    additionalSpecialTokens = List.copyOf(additionalSpecialTokens);
  }

  /** The id {@code content} gets in a vocabulary of {@code vocabSize} tokens. */
  public int idOf(String content, int vocabSize) {
    for (int i = 0; i < added.size(); i++) {
      if (added.get(i).content().equals(content)) {
        return addedFirst ? i : vocabSize - added.size() + i;
      }
    }
    throw new IllegalArgumentException(content + " is not an added token");
  }
}
