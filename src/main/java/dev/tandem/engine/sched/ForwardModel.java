package dev.tandem.engine.sched;

import dev.tandem.engine.model.KvStore;
import dev.tandem.engine.model.ForwardChunk;
import dev.tandem.engine.model.LlamaConfig;
import dev.tandem.engine.model.LlamaModel;
import java.util.List;

/**
 * What the scheduler needs from a model: its shape and one batched forward step (see
 * {@link LlamaModel#forward}). An interface so the scheduler's logic can also be tested against a
 * small arithmetic stand-in where a failure must be provoked.
 */
public interface ForwardModel {
  LlamaConfig config();

  /** Equal fingerprints mean interchangeable KV. */
  String fingerprint();

  float[][] forward(List<ForwardChunk> chunks, KvStore kv);

  static ForwardModel of(LlamaModel model) {
    return new ForwardModel() {
      @Override
      public LlamaConfig config() {
        return model.config();
      }

      @Override
      public String fingerprint() {
        return model.fingerprint();
      }

      @Override
      public float[][] forward(List<ForwardChunk> chunks, KvStore kv) {
        return model.forward(chunks, kv);
      }
    };
  }
}
