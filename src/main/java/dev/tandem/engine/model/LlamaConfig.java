package dev.tandem.engine.model;

/** The parts of a Hugging Face Llama {@code config.json} the engine uses. */
public record LlamaConfig(int vocabSize, int hiddenSize, int intermediateSize, int numLayers,
    int numHeads, int numKvHeads, int headDim, double ropeTheta, double rmsNormEps,
    int maxPositionEmbeddings, boolean tieWordEmbeddings, int bosTokenId, int eosTokenId) {

  public int kvDim() {
    return numKvHeads * headDim;
  }
}
