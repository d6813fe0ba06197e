package dev.tandem.engine.sched;

/**
 * Receives a request's outputs. Called on the engine thread: implementations hand the work to
 * their own thread (e.g. a Vert.x context) and return at once.
 */
public interface GenerationListener {
  void onOutput(GenerationOutput output);

  /** The request ended with an error instead of a final output (e.g. the model step failed). */
  void onFailure(Throwable failure);
}
