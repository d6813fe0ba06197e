#!/usr/bin/python3
"""Prints the float32 bits RopeScalingTest expects: Llama 3.1's inverse-frequency remapping
(transformers' _compute_llama3_parameters) evaluated in numpy float32, which follows torch's rules
(a Python number meets a float32 array as float32; Python-side arithmetic stays double).
Run: /usr/bin/python3 src/test/resources/families/rope_llama3.py (numpy only, no torch)."""
import math

import numpy as np

dim, base = 64, 500000.0
factor, low_freq_factor, high_freq_factor, old_context_len = 8.0, 1.0, 4.0, 8192

inv_freq = np.float32(1.0) / (np.float32(base) ** (np.arange(0, dim, 2, dtype=np.int64).astype(np.float32) / np.float32(dim)))

low_freq_wavelen = old_context_len / low_freq_factor
high_freq_wavelen = old_context_len / high_freq_factor
wavelen = np.float32(2 * math.pi) / inv_freq
inv_freq_llama = np.where(wavelen > np.float32(low_freq_wavelen), inv_freq / np.float32(factor), inv_freq)
smooth_factor = (np.float32(old_context_len) / wavelen - np.float32(low_freq_factor)) / np.float32(high_freq_factor - low_freq_factor)
smoothed = (np.float32(1) - smooth_factor) * inv_freq_llama / np.float32(factor) + smooth_factor * inv_freq_llama
is_medium = ~(wavelen < np.float32(high_freq_wavelen)) & ~(wavelen > np.float32(low_freq_wavelen))
out = np.where(is_medium, smoothed, inv_freq_llama).astype(np.float32)

def bits(a):
    return ", ".join("0x%08x" % v for v in a.astype(np.float32).view(np.uint32))

print("base:", bits(inv_freq))
print("remapped:", bits(out))
print("medium:", [int(i) for i in np.nonzero(is_medium)[0]])
