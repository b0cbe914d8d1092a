#!/usr/bin/env python3
"""Seed the fuzz corpora from the conformance fixtures and test inputs.

Writes fuzz/corpus/<target>/seed-* (git-ignored; the fuzzer adds its own
finds beside them). Run by `cargo xtask fuzz`; safe to run again. Each
target's first byte selects its dialect or options, so every text seed is
written once per dialect selector.
"""
import glob
import hashlib
import io
import json
import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def crate(path):
    return os.path.join(ROOT, "crates", path)


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    folder = os.path.join(CORPUS, target)
    os.makedirs(folder, exist_ok=True)
    name = "seed-" + hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def with_selectors(target, text, selectors):
    for selector in selectors:
        write(target, bytes([selector]) + text.encode())


def cases(path):
    with open(crate(path)) as f:
        return json.load(f)["cases"]


def hostile(name):
    """The inputs of a hostile-corpus file (tests/hostile/NAME), built from their pieces."""
    with open(os.path.join(ROOT, "tests", "hostile", name), encoding="utf-8") as f:
        for case in json.load(f)["cases"]:
            data = b""
            for piece in case["input"]:
                if "text" in piece:
                    data += piece["text"].encode()
                elif "repeat" in piece:
                    if len(piece["repeat"]) * piece["times"] > 64 * 1024:
                        break
                    data += piece["repeat"].encode() * piece["times"]
                elif "numbered" in piece:
                    if len(piece["numbered"]) * piece["times"] > 64 * 1024:
                        break
                    unit = piece["numbered"]
                    data += "".join(unit.replace("{i}", str(i)) for i in range(piece["times"])).encode()
                else:
                    data += bytes(piece["bytes"])
            else:
                yield data


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def bundle(text, attachments):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("story.lmml", text)
        for name, data in attachments.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def main():
    # comments: every string input, both dialects.
    for case in cases("prompt-comments/tests/conformance/comments.json"):
        if isinstance(case["input"], str):
            with_selectors("comments", case["input"], [0, 1])
    for path in glob.glob(crate("prompt-comments/tests/inputs/*.*")):
        with_selectors("comments", read(path), [0, 1])

    # flip: transcripts and message arrays as JSON, with a few option sets.
    for case in cases("transcript-flip/tests/conformance/flip.json"):
        document = case["input"].get("transcript", case["input"].get("messages"))
        with_selectors("flip", json.dumps(document), [0, 1, 2, 33, 66, 120])
        write("cli_json", json.dumps(document, indent=1))
    for path in glob.glob(crate("transcript-flip/tests/inputs/*.txt")):
        body = read(path).split("\n---\n", 1)[-1]
        with_selectors("flip", body, [0, 1, 32])
        write("cli_json", body)

    # segment and bundle: every narrative, bare and as a zipped bundle.
    narratives = [case["input"] for case in cases("narrative-segment/tests/conformance/segment.json")]
    narratives += [read(p) for p in glob.glob(crate("narrative-segment/tests/inputs/*.lmml"))]
    narratives += [read(p) for p in glob.glob(crate("prompt-suite-cli/tests/cli/inputs/segment/*.lmml"))]
    for text in narratives:
        with_selectors("segment", text, [0, 1, 2, 11])
        write("bundle", text)
        write("bundle", bundle(text, {"a.png": b"\x89PNG\r\n\x1a\n", "docs/notes.txt": "notes " * 40}))

    # brackets: every template; cli_json: every context.
    for case in cases("minijinja-brackets/tests/conformance/brackets.json"):
        with_selectors("brackets", case["template"], [0, 1, 84])
        context = {key: case.get(key, {}) for key in ("state", "local", "global")}
        write("cli_json", json.dumps(context))
    for path in glob.glob(crate("minijinja-brackets/tests/*inputs/*.txt")):
        with_selectors("brackets", read(path), [0, 1])
        with_selectors("brackets_limits", read(path), [0])
    # brackets_limits (real limits): the templates and the hostile corpus's
    # cases that fit the fuzzer's 64 KiB inputs (its memory bombs among them).
    for case in cases("minijinja-brackets/tests/conformance/brackets.json"):
        with_selectors("brackets_limits", case["template"], [0, 1])
    for case in hostile("minijinja-brackets.json"):
        if len(case) <= 64 * 1024 - 1:
            write("brackets_limits", b"\x00" + case)

    for path in glob.glob(crate("prompt-suite-cli/tests/cli/inputs/*/*.json")):
        write("cli_json", read(path))
    for path in glob.glob(crate("prompt-comments/tests/inputs/messages/*.json")):
        write("cli_json", read(path))

    for target in sorted(os.listdir(CORPUS)):
        print(f"{target}: {len(os.listdir(os.path.join(CORPUS, target)))} files", file=sys.stderr)


if __name__ == "__main__":
    main()
