package dev.tandem.bench;

/**
 * Multi-turn conversations ({@code --multi-turn TURNS}): request {@code c * turns + t} is turn
 * {@code t} of conversation {@code c}, whose prompt is every earlier turn (user message, then the
 * assistant's reply) followed by a new user message: a shared prefix that grows by a turn each
 * time, as in a chat session. User messages are drawn from the class's prompt-length
 * distribution, replies from its output-length distribution (a turn's {@code max_tokens} is its
 * reply's length). The replies inside later prompts are the workload's own seeded stand-ins for
 * what the server answered, so every request stays a pure function of the seed and its index;
 * the server's cache holds the earlier prompts (and its own answers), so the prefix it can reuse
 * is the previous prompt.
 *
 * <p>Turn {@code t + 1} is sent {@code thinkSeconds} after turn {@code t} ended; conversations
 * arrive as the run's arrivals (Poisson at {@code --rate / turns} conversations per second, or a
 * new one whenever one of {@code --concurrency} users finishes). A conversation ends early when
 * its next turn would need more than {@code contextLimit} tokens (prompt plus answer).
 */
public record MultiTurn(int turns, double thinkSeconds, int contextLimit) {

  public static final int DEFAULT_CONTEXT_LIMIT = 4000;

  public MultiTurn {
    if (turns < 2) {
      throw new IllegalArgumentException("--multi-turn needs at least 2 turns, got " + turns);
    }
    if (!(thinkSeconds >= 0) || contextLimit < 2) {
      throw new IllegalArgumentException("--think-time must be >= 0 and --context-limit >= 2");
    }
  }
}
