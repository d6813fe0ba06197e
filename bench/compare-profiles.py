#!/usr/bin/env python3
"""Compares two CPU profiles from bench/profile-router.sh in microseconds per request.

    bench/compare-profiles.py FLOOR_DIR ROUTER_DIR

Each folder is an OUT_DIR of profile-router.sh taken with EVENT=cpu at INTERVAL=1ms (the
defaults): its router.collapsed and profile-summary.txt (which holds the number of requests wrk
completed while the profile ran). A sample is a millisecond of CPU, so a part's samples over the
requests is what that part cost per request. Typical use: MODE=floor (the relay floor, the
router's transport with none of its work) against the router at the same load, which puts a
number on what each of Tandem's steps adds over the floor.

Prints Markdown: the whole process by thread kind, the event loops' kernel and user time, the
user time by whose code ran (the leaf frame), by the request's phase (the outermost handler on
the stack: the client's request in, the engine's answer in, anything else) and by Tandem's step
(the innermost step on the stack, as bench/summarize-profile.py names them; a floor has none).
"""
import collections
import importlib.util
import os
import re
import sys

_spec = importlib.util.spec_from_file_location(
    "summarize_profile", os.path.join(os.path.dirname(os.path.abspath(__file__)), "summarize-profile.py"))
_summary = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_summary)
STEPS = _summary.STEPS  # one list of Tandem's steps for both scripts

# The outermost handler on an event-loop stack names the phase (first match, root to leaf).
PHASES = [
    ("client request in -> engine request out",
     ("dev/tandem/router/api/CompletionsHandler.lambda$handle$", "dev/tandem/bench/RelayFloorServer.relay",
      "dev/tandem/bench/RelayFloorServer.lambda$relay$")),
    ("engine answer in -> client answer out",
     ("dev/tandem/router/upstream/EngineConnection.channelRead", "dev/tandem/bench/RelayUpstream.channelRead")),
]

OWNERS = [
    ("Tandem", ("dev/tandem/",)),
    ("Vert.x futures", ("io/vertx/core/impl/future/",)),
    ("Vert.x, other", ("io/vertx/",)),
    ("Netty HTTP codec", ("io/netty/handler/codec/",)),
    ("Netty buffers", ("io/netty/buffer/", "io/netty/util/internal/PlatformDependent", "io/netty/util/internal/RefCnt")),
    ("Netty, other", ("io/netty/",)),
    ("JDK", ("java/", "jdk/", "sun/")),
]


def owner(leaf):
    for who, prefixes in OWNERS:
        if leaf.startswith(prefixes):
            return who
    return "JVM stubs, libc, vDSO (itable stubs, array copies, clock_gettime)"


def load(folder):
    with open(folder + "/profile-summary.txt", encoding="utf-8") as f:
        found = re.search(r"(\d+) requests", f.read())
    if not found:
        sys.exit(f"{folder}/profile-summary.txt names no request count")
    requests = int(found.group(1))
    rows = collections.Counter()
    with open(folder + "/router.collapsed", encoding="utf-8", errors="replace") as f:
        for line in f:
            stack, _, count = line.rstrip("\n").rpartition(" ")
            if not stack or not count.isdigit():
                continue
            n = int(count)
            frames = stack.split(";")
            kind = re.sub(r"\d+", "N", re.sub(r" tid=\d+", "", frames[0].strip("[]")))
            rows[("total", "")] += n
            if "eventloop" not in kind:
                rows[("thread", kind)] += n
                continue
            leaf = frames[-1]
            kernel = leaf.endswith("_[k]")
            rows[("loop", "kernel" if kernel else "user")] += n
            if kernel:
                continue
            rows[("owner", owner(leaf))] += n
            phase = next((label for label, needles in PHASES
                          if any(fr.startswith(needles) for fr in frames)), "other (reads, codecs, tasks)")
            rows[("phase", phase)] += n
            dotted = [fr.replace("/", ".") for fr in frames]
            step = next((name for fr in reversed(dotted) for name, prefixes in STEPS
                         if fr.startswith(prefixes)), "(no Tandem step: Netty, Vert.x, futures)")
            rows[("step", step)] += n
    return requests, rows


def main(a_dir, b_dir):
    a_req, a = load(a_dir)
    b_req, b = load(b_dir)

    def us(rows, req, key):
        return rows[key] * 1000.0 / req  # 1 ms samples

    print(f"A = {a_dir} ({a_req} requests), B = {b_dir} ({b_req} requests); us of CPU per request\n")

    def table(title, keys):
        print(f"| {title} | A | B | B - A |")
        print("|---|---:|---:|---:|")
        for key in keys:
            x, y = us(a, a_req, key), us(b, b_req, key)
            print(f"| {key[1] or key[0]} | {x:.2f} | {y:.2f} | {y - x:+.2f} |")
        print()

    table("the process", [("total", ""), ("loop", "kernel"), ("loop", "user")]
          + sorted({k for k in a | b if k[0] == "thread"}, key=lambda k: -(b[k] + a[k]))[:6])
    table("event loops' user time by whose code ran",
          sorted({k for k in a | b if k[0] == "owner"}, key=lambda k: -b[k]))
    table("event loops' user time by phase of the request",
          [("phase", label) for label, _ in PHASES] + [("phase", "other (reads, codecs, tasks)")])
    table("event loops' user time by Tandem's step (innermost)",
          sorted({k for k in a | b if k[0] == "step"}, key=lambda k: -b[k]))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
