#!/usr/bin/python3
"""Renders the chat-template test data with Python's jinja2 set up as transformers' apply_chat_template
sets it up (transformers/utils/chat_template_utils.py: ImmutableSandboxedEnvironment, trim_blocks,
lstrip_blocks, loopcontrols, the {% generation %} tag, its own tojson, raise_exception and
strftime_now), and writes the expected outputs the Java tests compare with, character for character.

Run once after changing the inputs (needs Debian's python3-jinja2, no transformers):
    /usr/bin/python3 src/test/resources/chat/generate_expected.py
Inputs:  jinja2-cases.json, templates/manifest.json + templates/*.jinja, conversations.json
Outputs: expected/jinja2-cases.json, expected/goldens.json
"""
import json
import os
from datetime import datetime

import jinja2
import jinja2.ext
import jinja2.nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

HERE = os.path.dirname(os.path.abspath(__file__))


class GenerationTag(jinja2.ext.Extension):
    """transformers' AssistantTracker, minus the tracking: {% generation %} renders its body."""
    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller):
        return caller()


def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[GenerationTag, jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
    return env


def render(env, source, variables):
    try:
        return {"output": env.from_string(source).render(**variables)}
    except jinja2.exceptions.TemplateError as e:  # raise_exception and syntax errors
        return {"error": str(e), "raised": type(e) is jinja2.exceptions.TemplateError}
    except Exception as e:  # a failure while rendering (TypeError, ...)
        return {"error": type(e).__name__ + ": " + str(e), "raised": False}


def load(name):
    with open(os.path.join(HERE, name), encoding="utf-8") as f:
        return json.load(f)


def dump(name, value):
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        json.dump(value, f, ensure_ascii=False, indent=1)
        f.write("\n")


def main():
    env = environment()
    cases = {c["name"]: render(env, c["template"], c["context"]) for c in load("jinja2-cases.json")}
    dump("expected/jinja2-cases.json", cases)

    goldens = {}
    conversations = load("conversations.json")
    for t in load("templates/manifest.json"):
        with open(os.path.join(HERE, "templates", t["file"]), encoding="utf-8") as f:
            source = f.read()
        goldens[t["name"]] = {}
        for c in conversations:
            # what apply_chat_template passes: special tokens, then messages, tools, documents,
            # add_generation_prompt and the extra keyword arguments
            variables = dict(t.get("special_tokens", {}))
            variables.update(messages=c["messages"], tools=c.get("tools"), documents=c.get("documents"),
                             add_generation_prompt=c.get("add_generation_prompt", False))
            variables.update(c.get("kwargs", {}))
            goldens[t["name"]][c["name"]] = render(env, source, variables)
    dump("expected/goldens.json", goldens)


if __name__ == "__main__":
    main()
