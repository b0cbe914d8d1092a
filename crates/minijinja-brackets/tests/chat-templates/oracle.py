"""The oracle for tests/chat_templates.rs: renders chat templates with Python's
jinja2 set up as transformers' apply_chat_template sets it up
(src/transformers/utils/chat_template_utils.py in huggingface/transformers).

Usage: oracle.py TEMPLATE_DIR CONVERSATIONS_JSON NOW_ISO
Prints one JSON object per line: {"template", "conversation", "output"} or
{"template", "conversation", "error": CLASS, "message"}.

Usage: oracle.py --cases CASES_JSON NOW_ISO
Renders each case of CASES_JSON ({"context", "cases": [{"name", "template"}]};
a case's own "context" replaces the shared one)
and prints {"case", "output"} or {"case", "error": CLASS, "message"} per line.

CLASS is
`template_raised` (raise_exception), `undefined` (UndefinedError),
`sandbox` (SecurityError), `syntax` (TemplateSyntaxError) or `other`.
"""

import datetime
import json
import os
import sys

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension
from jinja2.sandbox import ImmutableSandboxedEnvironment


class AssistantTracker(Extension):
    """transformers' `{% generation %}` tag: renders its body."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(["name:endgeneration"], drop_needle=True)
        call = self.call_method("_generation_support")
        return nodes.CallBlock(call, [], [], body).set_lineno(lineno)

    @jinja2.pass_eval_context
    def _generation_support(self, context, caller):
        return caller()


def environment(now):
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(
            x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
        )

    def strftime_now(format):
        return now.strftime(format)

    env = ImmutableSandboxedEnvironment(
        trim_blocks=True,
        lstrip_blocks=True,
        extensions=[AssistantTracker, jinja2.ext.loopcontrols],
    )
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def classify(err):
    if isinstance(err, jinja2.exceptions.UndefinedError):
        return "undefined"
    if isinstance(err, jinja2.exceptions.SecurityError):
        return "sandbox"
    if isinstance(err, jinja2.exceptions.TemplateSyntaxError):
        return "syntax"
    if type(err) is jinja2.exceptions.TemplateError:
        return "template_raised"
    return "other"


def cases(path, now):
    env = environment(datetime.datetime.fromisoformat(now))
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    for case in data["cases"]:
        row = {"case": case["name"]}
        try:
            context = case.get("context", data.get("context", {}))
            row["output"] = env.from_string(case["template"]).render(**context)
        except Exception as err:  # noqa: BLE001 - every failure is reported
            row["error"] = classify(err)
            row["message"] = f"{type(err).__name__}: {err}"
        print(json.dumps(row, ensure_ascii=False))


def main():
    if sys.argv[1] == "--cases":
        cases(sys.argv[2], sys.argv[3])
        return
    directory, conversations, now = sys.argv[1:4]
    env = environment(datetime.datetime.fromisoformat(now))
    with open(conversations, encoding="utf-8") as f:
        conversations = json.load(f)["conversations"]
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".jinja"):
            continue
        with open(os.path.join(directory, name), encoding="utf-8", newline="") as f:
            source = f.read()
        try:
            template = env.from_string(source)
        except Exception as err:  # noqa: BLE001 - every failure is reported
            template, compile_error = None, err
        for conversation in conversations:
            row = {"template": name, "conversation": conversation["name"]}
            try:
                if template is None:
                    raise compile_error
                row["output"] = template.render(**conversation["context"])
            except Exception as err:  # noqa: BLE001
                row["error"] = classify(err)
                row["message"] = f"{type(err).__name__}: {err}"
            print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
