package dev.tandem.router.dispatch;

/**
 * Where an engine's choice goes: client choice {@code clientIndex}, after skipping what the client
 * already has (a replay regenerates the text from the start), or nowhere ({@code drop}) for a
 * replayed choice that had already finished.
 */
public record ChoiceRoute(int clientIndex, int skipChars, int skipTokens, boolean drop) {

  public static ChoiceRoute to(int clientIndex) {
    return new ChoiceRoute(clientIndex, 0, 0, false);
  }

  public static ChoiceRoute dropped(int clientIndex) {
    return new ChoiceRoute(clientIndex, 0, 0, true);
  }
}
