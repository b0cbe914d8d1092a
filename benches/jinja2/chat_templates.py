"""Jinja2's figure for the `chat-templates` bench (benches/benches/chat-templates.rs):
compile and render every chat template of ../shared/peer/chat-templates/templates with
every conversation of crates/minijinja-brackets/tests/chat-templates/conversations.json,
in Jinja2 set up as transformers' apply_chat_template sets it up (the oracle's
environment, tests/chat-templates/oracle.py). Prints nothing rendered: only counts and
times.

Usage: python chat_templates.py [REPEATS]   (with jinja2 installed; see docs/performance.md)

Two figures, as the Rust bench measures them:
  compile+render: each template compiled once (a fresh environment, so Jinja2's template
                  cache does not help), then rendered with each conversation;
  render:         the templates compiled beforehand, each rendered with each conversation.
The median of REPEATS passes (default 20) over the whole set is printed for each.
"""

import datetime
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TESTS = os.path.join(ROOT, "crates", "minijinja-brackets", "tests", "chat-templates")
TEMPLATES = os.path.join(ROOT, "..", "shared", "peer", "chat-templates", "templates")
NOW = datetime.datetime.fromisoformat("2026-01-15T10:30:00")

sys.path.insert(0, TESTS)
import oracle  # noqa: E402  (the oracle's environment: one setup for both uses)


def load():
    with open(os.path.join(TESTS, "conversations.json"), encoding="utf-8") as f:
        conversations = [c["context"] for c in json.load(f)["conversations"]]
    sources = []
    for name in sorted(os.listdir(TEMPLATES)):
        if name.endswith(".jinja"):
            with open(os.path.join(TEMPLATES, name), encoding="utf-8", newline="") as f:
                sources.append(f.read())
    return sources, conversations


def render_all(templates, conversations):
    rendered = refused = 0
    for template in templates:
        for context in conversations:
            try:
                template.render(**context)
                rendered += 1
            except Exception:  # noqa: BLE001 - a refusal is part of the work
                refused += 1
    return rendered, refused


def compile_all(env, sources):
    templates = []
    for source in sources:
        try:
            templates.append(env.from_string(source))
        except Exception:  # noqa: BLE001
            pass
    return templates


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    if not os.path.isdir(TEMPLATES):
        print(f"SKIPPED: {TEMPLATES} is absent")
        return
    sources, conversations = load()
    both, render_only = [], []
    counts = None
    for _ in range(repeats):
        env = oracle.environment(NOW)
        start = time.perf_counter()
        templates = compile_all(env, sources)
        counts = render_all(templates, conversations)
        both.append(time.perf_counter() - start)
        start = time.perf_counter()
        render_all(templates, conversations)
        render_only.append(time.perf_counter() - start)
    rendered, refused = counts
    print(f"jinja2 {oracle.jinja2.__version__}, {len(sources)} templates x "
          f"{len(conversations)} conversations: {rendered} rendered, {refused} refused")
    print(f"compile+render: median {statistics.median(both) * 1000:.1f} ms ({repeats} passes)")
    print(f"render:         median {statistics.median(render_only) * 1000:.1f} ms ({repeats} passes)")


if __name__ == "__main__":
    main()
