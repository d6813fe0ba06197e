package dev.tandem.router.dispatch;

/**
 * Where an engine's choice goes: client choice {@code clientIndex}, after skipping what the client
 * already has (a replay regenerates the text from the start), or nowhere ({@code drop}) for a
 * replayed choice that had already finished.
 *
 * <p>A replay also carries what it must reproduce: the text the client has ({@code delivered},
 * whose length is {@code skipChars}) and, when they are known exactly, the ids of the delivered
 * tokens ({@code deliveredIds}). The relay checks the replay against them token by token (or
 * character by character) before anything new reaches the client.
 */
public record ChoiceRoute(int clientIndex, int skipChars, int skipTokens, boolean drop,
    String delivered, int[] deliveredIds) {

  public ChoiceRoute(int clientIndex, int skipChars, int skipTokens, boolean drop) {
    this(clientIndex, skipChars, skipTokens, drop, null, null);
  }

  public static ChoiceRoute to(int clientIndex) {
    return new ChoiceRoute(clientIndex, 0, 0, false);
  }

  public static ChoiceRoute dropped(int clientIndex) {
    return new ChoiceRoute(clientIndex, 0, 0, true);
  }

  /** A replay of {@code clientIndex} that must reproduce {@code delivered} (and its ids, if known). */
  public static ChoiceRoute replay(int clientIndex, String delivered, int[] deliveredIds,
      int logprobEntries) {
    return new ChoiceRoute(clientIndex, delivered.length(), logprobEntries, false, delivered,
        deliveredIds == null ? null : deliveredIds.clone());
  }
}
