package dev.tandem.engine.sched;

/** MicroServing window positions (MLC's {@code begin}/{@code end}): a negative one counts from the prompt's end. */
final class PromptWindow {
  private PromptWindow() {}

  static int normalise(int position, int promptLength) {
    return position < 0 ? promptLength + position : position;
  }
}
