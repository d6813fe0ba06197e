package dev.tandem.chat;

import dev.tandem.tokenizer.TextTokenizer;
import dev.tandem.tokenizer.TokenizerWork;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.function.Function;

/**
 * A chat's prompt as token ids, for router and builtin engine alike: rendered with the model's
 * chat template, then tokenized as the text it is (the template wrote the special tokens). A
 * conversation with little text is rendered on the asking event loop, and tokenized there too
 * unless the template made its prompt long; any other is rendered and tokenized on one worker
 * ({@link TokenizerWork}).
 */
public final class ChatPrompt {

  private ChatPrompt() {}

  /**
   * The prompt's ids, passed through {@code then} on the thread that tokenized them (a worker
   * for a long prompt: {@code then} may write or check every id).
   */
  public static <T> Future<T> ids(Vertx vertx, ChatRequest request, ChatTemplate template,
      TextTokenizer tokenizer, Function<int[], T> then) {
    if (!TokenizerWork.textOnLoop(request.textChars())) {
      return TokenizerWork.run(vertx, false,
          () -> then.apply(tokenizer.encode(template.render(request))));
    }
    return TokenizerWork.run(vertx, true, () -> template.render(request))
        .compose(text -> TokenizerWork.run(vertx, TokenizerWork.textOnLoop(text.length()),
            () -> then.apply(tokenizer.encode(text))));
  }
}
