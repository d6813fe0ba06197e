#!/usr/bin/env python3
"""Summarises a router profile from bench/profile-router.sh.

Input: async-profiler's collapsed stacks taken with the `threads` option (each line
"[thread tid=N];frame;...;frame count"). Prints Markdown: the whole process's samples by thread
kind, then, over the Vert.x event-loop threads' samples, the share of each part of the request path
(a stack counts in every part one of its frames belongs to, so the rows overlap), the split by what
the event loop was handling, and the hottest leaf frames.
"""
import collections
import re
import sys

# (label, frame substrings): a stack is in a part when one of its frames contains one of them.
PARTS = [
    ("socket writes", ("writev", "Native.write", "FileDispatcherImpl.write", "__libc_write", "__write",
                       "Socket.sendAddress", "__GI___send", "__send")),
    ("socket reads", ("Native.read", "FileDispatcherImpl.read", "__libc_read", "__read", "recvfrom",
                      "Socket.recvAddress", "readAddress", "__GI___recv", "recv")),
    ("changing what epoll watches (epoll_ctl)", ("epoll_ctl", "Native.epollCtlMod")),
    ("waiting in epoll / select", ("epollWait", "epoll_wait", "SelectorImpl.select", "EPoll.wait")),
    ("Netty HTTP/1 codec", ("io.netty.handler.codec.http.",)),
    ("Vert.x HTTP server (request, response objects)", ("io.vertx.core.http.impl.Http1xServer",
                                                        "io.vertx.core.http.impl.HttpServer")),
    ("Vert.x Web (router, routing context, body handler)", ("io.vertx.ext.web.",)),
    ("Vert.x HttpClient (pool, request, response)", ("io.vertx.core.http.impl.HttpClient",
                                                     "io.vertx.core.http.impl.Http1xClient",
                                                     "io.vertx.core.http.impl.ClientHttp",
                                                     "io.vertx.core.net.impl.pool.",
                                                     "io.vertx.core.http.impl.SharedClientHttpStreamEndpoint")),
    ("Tandem's engine connections (EngineConnection; inclusive: the relay runs in its reads)", ("dev.tandem.router.upstream.EngineConnection",)),
    ("Vert.x futures and promises", ("io.vertx.core.impl.future.",)),
    ("JSON (Jackson)", ("com.fasterxml.jackson.",)),
    ("metrics (Micrometer)", ("io.micrometer.",)),
    ("logging", ("org.slf4j.", "ch.qos.logback.", "org.apache.logging.")),
    ("Tandem's own code (dev.tandem.*, inclusive)", ("dev.tandem.",)),
]

# What the event loop was handling, by the first frame that says so (root to leaf).
STAGES = [
    ("client request in -> engine request out", ("io.vertx.core.http.impl.Http1xServerConnection.handle",)),
    ("engine answer in -> client answer out", ("io.vertx.core.http.impl.Http1xClientConnection.handle",
                                               "dev.tandem.router.upstream.EngineConnection.channelRead")),
    ("timers and tasks", ("io.vertx.core.impl.VertxImpl$InternalTimerHandler", "io.netty.util.concurrent.AbstractEventExecutor.runTask",
                          "io.netty.util.concurrent.AbstractEventExecutor.safeExecute")),
    ("waiting in epoll / select", ("epollWait", "epoll_wait", "SelectorImpl.select", "EPoll.wait")),
]


# The step of a request that a user-space sample belongs to: the innermost frame on its stack that
# starts with one of the step's prefixes (so metrics recorded at the end of a stream count as
# metrics). Samples whose leaf is not Java (the kernel's system calls and wake-ups, libc, the JVM's
# stubs) are left out: /proc gives the system time.
STEPS = [
    ("metrics (Micrometer meters, request clock)", ("dev.tandem.router.metrics.",)),
    ("engine body built", ("dev.tandem.router.dispatch.EngineBodies", "dev.tandem.router.dispatch.EngineBody.")),
    ("engine chunks read (scanner, record)", ("dev.tandem.router.upstream.ChunkScanner",
                                              "dev.tandem.router.upstream.EngineChunk.")),
    ("engine SSE split into events", ("dev.tandem.api.SseParser",)),
    ("client deltas rendered", ("dev.tandem.router.dispatch.ClientChunks",)),
    ("relay and choice ledger", ("dev.tandem.router.dispatch.ChunkRelay",
                                 "dev.tandem.router.dispatch.ChoiceLedger")),
    ("client writes queued", ("dev.tandem.router.api.SseOutput.write",)),
    ("end of stream (usage chunk, response end)", ("dev.tandem.router.upstream.EngineStream.ended",)),
    ("engine request sent", ("dev.tandem.router.upstream.EngineConnection.send",
                             "dev.tandem.router.upstream.EngineClient.send")),
    ("dispatch and routing", ("dev.tandem.router.dispatch.RoundRobinDispatcher",
                              "dev.tandem.router.dispatch.DisaggregatedDispatcher",
                              "dev.tandem.router.policy.", "dev.tandem.router.registry.")),
    # The JSON readers (JsonTree, and ChunkScanner built on it) are charged to their caller's
    # step: JsonTree here would take the engine's usage record from the chunks' step.
    ("client request read and validated", ("dev.tandem.api.CompletionRequest",
                                           "dev.tandem.router.api.CompletionService",
                                           "dev.tandem.router.api.CompletionsHandler")),
    ("engine bytes handed to Tandem", ("dev.tandem.router.upstream.EngineConnection.channelRead",)),
]


OWNERS = [
    ("Tandem (dev.tandem)", ("dev.tandem.",)),
    ("Vert.x", ("io.vertx.",)),
    ("Netty", ("io.netty.",)),
    ("Jackson", ("com.fasterxml.jackson.",)),
    ("Micrometer", ("io.micrometer.",)),
    ("JDK (java.*, jdk.*, sun.*)", ("java.", "jdk.", "sun.")),
]


def owner(frame):
    for who, prefixes in OWNERS:
        if frame.startswith(prefixes):
            return who
    # Kernel frames end in _[k] and may hold dots (finish_task_switch.isra.0_[k]); the JVM's and
    # libc's own frames hold "::" or "@@" (HeapRegionType::get_trace_type, clock_gettime@@GLIBC).
    native = frame.endswith("_[k]") or "::" in frame or "@@" in frame
    if "." in frame and not frame.startswith("[") and not native:
        return "other Java"
    return "kernel, libc and the JVM's own code (syscalls, stubs, GC barriers)"


def thread_kind(name):
    name = re.sub(r" tid=\d+", "", name.strip("[]"))
    return re.sub(r"\d+", "N", name)


def main(path):
    threads = collections.Counter()
    loop = []  # (frames, count) of event-loop samples
    total = 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            frames = [fr.replace("/", ".") for fr in stack.split(";")]
            total += n
            kind = thread_kind(frames[0]) if frames[0].startswith("[") else "(no thread)"
            threads[kind] += n
            if "eventloop" in kind:
                loop.append((frames[1:], n))
    if total == 0:
        sys.exit("no samples in " + path)
    loop_total = sum(n for _, n in loop)

    print("\n| thread kind | samples | share of the process |")
    print("|---|---:|---:|")
    for kind, n in threads.most_common(12):
        print(f"| {kind} | {n} | {100.0 * n / total:.1f}% |")
    if loop_total == 0:
        print("\n(no event-loop samples)")
        return

    print(f"\nOver the event loops' {loop_total} samples (rows overlap):\n")
    print("| part of the request path | share |")
    print("|---|---:|")
    for label, needles in PARTS:
        n = sum(c for frames, c in loop if any(any(s in fr for s in needles) for fr in frames))
        print(f"| {label} | {100.0 * n / loop_total:.1f}% |")

    print("\n| the event loop was handling | share |")
    print("|---|---:|")
    stages = collections.Counter()
    for frames, c in loop:
        for label, needles in STAGES:
            if any(any(s in fr for s in needles) for fr in frames):
                stages[label] += c
                break
        else:
            stages["other"] += c
    for label, _ in STAGES + [("other", ())]:
        print(f"| {label} | {100.0 * stages[label] / loop_total:.1f}% |")

    print("\n| whose code the event loops ran (leaf frame, exclusive) | share |")
    print("|---|---:|")
    owners = collections.Counter()
    for frames, c in loop:
        owners[owner(frames[-1] if frames else "")] += c
    for who, n in owners.most_common():
        print(f"| {who} | {100.0 * n / loop_total:.1f}% |")

    print("\n| Java time of the event loops by step of the request (innermost step) | share |")
    print("|---|---:|")
    steps = collections.Counter()
    for frames, c in loop:
        if not frames or owner(frames[-1]).startswith("kernel"):
            continue
        label = "(outside these steps: Netty, Vert.x, futures)"
        for fr in reversed(frames):
            hit = next((name for name, prefixes in STEPS if fr.startswith(prefixes)), None)
            if hit:
                label = hit
                break
        steps[label] += c
    user_total = sum(steps.values())
    for label, n in steps.most_common():
        print(f"| {label} | {100.0 * n / max(user_total, 1):.1f}% |")

    print("\n| hottest leaf frames (event loops) | share |")
    print("|---|---:|")
    leaves = collections.Counter()
    for frames, c in loop:
        leaves[frames[-1] if frames else "?"] += c
    for frame, n in leaves.most_common(15):
        print(f"| `{frame[:110]}` | {100.0 * n / loop_total:.1f}% |")


if __name__ == "__main__":
    main(sys.argv[1])
