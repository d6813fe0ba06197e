package dev.tandem.engine.sched;

import java.util.List;

/**
 * What one engine step produced for one request: the choices with new text or a finish reason,
 * and, in the request's last output, its usage.
 */
public record GenerationOutput(String requestId, List<ChoiceDelta> choices, RequestUsage usage) {
  public boolean isFinal() {
    return usage != null;
  }
}
