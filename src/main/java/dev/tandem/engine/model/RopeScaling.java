package dev.tandem.engine.model;

/**
 * Llama 3.1's RoPE frequency remapping ({@code rope_scaling} with {@code rope_type: "llama3"}):
 * wavelengths shorter than {@code originalMaxPositionEmbeddings / highFreqFactor} keep their
 * frequency, longer than {@code originalMaxPositionEmbeddings / lowFreqFactor} are divided by
 * {@code factor}, and those between are interpolated. {@link #remap} follows transformers'
 * {@code _compute_llama3_parameters} operation by operation in float32, as torch computes it.
 */
public record RopeScaling(double factor, double lowFreqFactor, double highFreqFactor,
    int originalMaxPositionEmbeddings) {

  public static final String TYPE = "llama3";

  public RopeScaling {
    if (!(factor > 0) || !(lowFreqFactor > 0) || !(highFreqFactor > lowFreqFactor)
        || originalMaxPositionEmbeddings <= 0) {
      throw new IllegalArgumentException("llama3 rope_scaling needs factor > 0, 0 < low_freq_factor"
          + " < high_freq_factor and original_max_position_embeddings > 0; got factor " + factor
          + ", low_freq_factor " + lowFreqFactor + ", high_freq_factor " + highFreqFactor
          + ", original_max_position_embeddings " + originalMaxPositionEmbeddings);
    }
  }

  /**
   * The remapped inverse frequencies. Torch evaluates a Python number against a float32 tensor in
   * float32 (the number rounded to float first); Python-side arithmetic (the two wavelength
   * bounds, {@code high - low}) is double, then rounded.
   */
  float[] remap(float[] invFreq) {
    double oldContext = originalMaxPositionEmbeddings;
    float lowFreqWavelen = (float) (oldContext / lowFreqFactor);
    float highFreqWavelen = (float) (oldContext / highFreqFactor);
    float twoPi = (float) (2 * Math.PI);
    float f = (float) factor;
    float low = (float) lowFreqFactor;
    float span = (float) (highFreqFactor - lowFreqFactor);
    float oldContextF = (float) oldContext;
    float[] out = new float[invFreq.length];
    for (int i = 0; i < invFreq.length; i++) {
      float inv = invFreq[i];
      float wavelen = twoPi / inv;
      float llama = wavelen > lowFreqWavelen ? inv / f : inv;
      boolean medium = !(wavelen < highFreqWavelen) && !(wavelen > lowFreqWavelen);
      if (medium) {
        float smooth = (oldContextF / wavelen - low) / span;
        out[i] = (1f - smooth) * llama / f + smooth * llama;
      } else {
        out[i] = llama;
      }
    }
    return out;
  }
}
