package dev.tandem.router.dispatch;

import java.util.List;

/**
 * How to resume choices after a preempt (or an interruption the client has not seen): the
 * attempts to run, the choices whose budget is already spent (they finish with {@code length}
 * without another engine call), and whether this is a replay.
 */
record ResumePlan(List<AttemptSpec> specs, List<Integer> exhausted, boolean replay) {}
