package dev.tandem.engine.model;

/**
 * The activations of one forward step, kept from step to step so that a step allocates nothing
 * but its returned logits (arrays grow when a step holds more tokens than any before).
 *
 * <p>Arrays that pool tasks read or write are reused only while the pool is quiescent: a
 * descheduled worker may still be finishing a task of an earlier loop (see {@link WorkerPool}),
 * and would write into an array being reused. Then {@link #renewShared} hands out fresh arrays and
 * leaves the old ones to the straggler. {@code x} and {@code h} (the residual stream) are only
 * ever touched by the calling thread.
 */
final class Workspace {
  private final LlamaConfig c;
  private int tokens = -1;
  private int logitRows = -1;

  float[] x;
  float[] h;
  float[] xn;
  float[] qkv;
  float[] rot;
  float[] att;
  float[] o;
  float[] hn;
  float[] gu;
  float[] act;
  float[] down;
  int[] chunkOf;
  int[] posOf;
  /** Attention blocks of the step: batch tokens [blockFrom[b], blockTo[b]) of one chunk. */
  int[] blockFrom;
  int[] blockTo;
  float[] last;
  float[] logits;

  Workspace(LlamaConfig c) {
    this.c = c;
  }

  /** Makes room for a step of {@code n} tokens and {@code m} logit rows; fresh shared arrays unless {@code reuse}. */
  void prepare(int n, int m, boolean reuse) {
    if (n > tokens) {
      tokens = Math.max(n, 16);
      x = new float[tokens * c.hiddenSize()];
      h = new float[tokens * c.hiddenSize()];
      reuse = false;
    }
    if (m > logitRows) {
      logitRows = Math.max(m, 1);
      reuse = false;
    }
    if (!reuse) {
      renewShared();
    }
  }

  /** Fresh arrays for everything pool tasks touch. */
  void renewShared() {
    int hidden = c.hiddenSize();
    int qkvDim = c.qDim() + 2 * c.kvDim();
    xn = new float[tokens * hidden];
    qkv = new float[tokens * qkvDim];
    rot = new float[tokens * qkvDim];
    att = new float[tokens * c.qDim()];
    o = new float[tokens * hidden];
    hn = new float[tokens * hidden];
    gu = new float[tokens * 2 * c.intermediateSize()];
    act = new float[tokens * c.intermediateSize()];
    down = new float[tokens * hidden];
    // Filled once per step and only read by tasks: a renewal within a step keeps their contents.
    chunkOf = chunkOf == null ? new int[tokens] : java.util.Arrays.copyOf(chunkOf, tokens);
    posOf = posOf == null ? new int[tokens] : java.util.Arrays.copyOf(posOf, tokens);
    blockFrom = blockFrom == null ? new int[tokens] : java.util.Arrays.copyOf(blockFrom, tokens);
    blockTo = blockTo == null ? new int[tokens] : java.util.Arrays.copyOf(blockTo, tokens);
    last = new float[logitRows * hidden];
    logits = new float[logitRows * c.vocabSize()];
  }
}
