package dev.tandem.router.api;

import dev.tandem.api.ApiError;
import dev.tandem.api.SamplingControls;
import dev.tandem.bus.EngineStatus;
import java.util.List;
import java.util.function.Supplier;

/**
 * What the fleet's engines can do, by engine kind, so that a request one of them would refuse
 * is refused before any engine sees it. Penalties, logit bias and top-k are served by both
 * kinds; structured output ({@code response_format} other than text) only by MLC engines, since
 * the builtin engine has no grammar-constrained decoding.
 */
final class EngineCapabilities {

  private final Supplier<List<EngineStatus>> engines;

  /** @param engines the engines the router knows (any state: they all may serve a retry) */
  EngineCapabilities(Supplier<List<EngineStatus>> engines) {
    this.engines = engines;
  }

  /** Throws a 400 when some engine of the fleet could not honour {@code controls}. */
  void check(SamplingControls controls) {
    SamplingControls.ResponseFormat format = controls.responseFormat();
    if (format == null || format.isText()) {
      return;
    }
    List<EngineStatus> known = engines.get();
    EngineStatus cannot = known.stream().filter(e -> !e.isMlc()).findFirst().orElse(null);
    if (cannot != null) {
      throw ApiError.invalid("response_format", "unsupported_parameter", "response_format \""
          + format.type() + "\" needs grammar-constrained decoding, which " + cannot.kind()
          + " engines do not do; only MLC engines (--engine mlc) serve structured output");
    }
  }
}
