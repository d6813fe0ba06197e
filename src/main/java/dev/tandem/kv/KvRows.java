package dev.tandem.kv;

/**
 * K/V rows of {@code numTokens} consecutive positions: {@code keys[layer]} and {@code values[layer]}
 * each hold {@code numTokens * kvDim} floats, position-major.
 */
public record KvRows(int numTokens, int kvDim, float[][] keys, float[][] values) {}
