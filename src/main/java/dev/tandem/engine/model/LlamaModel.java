package dev.tandem.engine.model;

import dev.tandem.engine.kv.KvStore;
import java.nio.file.Path;
import java.util.List;

/**
 * A loaded Llama-family decoder. {@link #forward} is batch-invariant: a token's K/V rows and
 * logits are bit-identical whatever else is in the batch and however its prompt was chunked.
 * Thread-safe for one caller at a time (the engine's step thread); uses its own worker threads.
 */
public final class LlamaModel implements AutoCloseable {

  /** Loads {@code dir} (config.json + *.safetensors); the message of a failure names the file and the problem. */
  public static LlamaModel load(Path dir) throws ModelLoadException {
    throw new ModelLoadException("model loading is not implemented yet");
  }

  public LlamaConfig config() {
    throw new UnsupportedOperationException();
  }

  /** Hex SHA-256 over the config and weights: equal fingerprints mean interchangeable KV. */
  public String fingerprint() {
    throw new UnsupportedOperationException();
  }

  /**
   * Runs one step: writes the K/V of every chunk token into its slot, and returns, in chunk order,
   * the logits (length vocabSize) of each chunk that wants them (null entries for the others).
   */
  public float[][] forward(List<ForwardChunk> chunks, KvStore kv) {
    throw new UnsupportedOperationException();
  }

  @Override
  public void close() {}
}
