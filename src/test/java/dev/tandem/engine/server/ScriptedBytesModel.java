package dev.tandem.engine.server;

import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.sched.ByteTokenizer;
import dev.tandem.engine.sched.ForwardModel;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A stand-in model that writes a chosen text: after a prompt of {@code promptLength} byte tokens
 * ({@link ByteTokenizer}) the greedy answer is {@code script}'s bytes, then EOS. Positions are all
 * it looks at, so it answers only prompts of that length sensibly; tests use it where a real model
 * cannot be made to write something on demand (a {@code <tool_call>} block).
 */
final class ScriptedBytesModel implements ForwardModel {
  private static final int VOCAB = 258;
  private final LlamaConfig config = new LlamaConfig(VOCAB, 8, 16, 1, 1, 1, 4, 10000, 1e-5, 4096,
      true, ByteTokenizer.BOS, ByteTokenizer.EOS);
  private final int promptLength;
  private final byte[] script;

  ScriptedBytesModel(int promptLength, String script) {
    this.promptLength = promptLength;
    this.script = script.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public LlamaConfig config() {
    return config;
  }

  @Override
  public String fingerprint() {
    return "scripted-bytes";
  }

  @Override
  public float[][] forward(List<ForwardChunk> chunks, KvStore kv) {
    float[][] out = new float[chunks.size()][];
    for (int c = 0; c < chunks.size(); c++) {
      ForwardChunk chunk = chunks.get(c);
      if (chunk.wantLogits()) {
        int k = chunk.startPos() + chunk.tokens().length - promptLength;
        float[] logits = new float[VOCAB];
        logits[k >= 0 && k < script.length ? script[k] & 0xff : ByteTokenizer.EOS] = 10f;
        out[c] = logits;
      }
    }
    return out;
  }
}
