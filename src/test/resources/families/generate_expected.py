#!/usr/bin/python3
"""Renders the chat templates `tandem make-model --family` writes (src/main/resources/dev/tandem/
engine/model/templates/*.jinja) for every conversation of ../chat/conversations.json with Python's
jinja2 set up as transformers' apply_chat_template sets it up (the environment of
../chat/generate_expected.py), and writes expected.json for FamilyTemplatesGoldenTest.

Run once after changing a template (needs Debian's python3-jinja2, no transformers):
    /usr/bin/python3 src/test/resources/families/generate_expected.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "chat"))
from generate_expected import environment, render  # noqa: E402

TEMPLATES = os.path.join(HERE, "..", "..", "..", "main", "resources", "dev", "tandem", "engine", "model", "templates")
# the special-token variables each family's tokenizer_config.json sets (FamilyConventions.tokenizer())
SPECIAL_TOKENS = {
    "llama3": {"bos_token": "<|begin_of_text|>", "eos_token": "<|eot_id|>"},
    "qwen2": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
    "qwen3": {"eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"},
}


def main():
    env = environment()
    with open(os.path.join(HERE, "..", "chat", "conversations.json"), encoding="utf-8") as f:
        conversations = json.load(f)
    expected = {}
    for name, tokens in SPECIAL_TOKENS.items():
        with open(os.path.join(TEMPLATES, name + ".jinja"), encoding="utf-8") as f:
            source = f.read()
        expected[name] = {}
        for c in conversations:
            variables = dict(tokens)
            variables.update(messages=c["messages"], tools=c.get("tools"), documents=c.get("documents"),
                             add_generation_prompt=c.get("add_generation_prompt", False))
            variables.update(c.get("kwargs", {}))
            expected[name][c["name"]] = render(env, source, variables)
    with open(os.path.join(HERE, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
