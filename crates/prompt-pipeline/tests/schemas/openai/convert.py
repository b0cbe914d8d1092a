#!/usr/bin/env python3
"""Turn OpenAI's OpenAPI document into closed JSON Schemas for request bodies.

    python3 convert.py OPENAPI_JSON OUT_DIR

OPENAPI_JSON is `openapi.json` from github.com/openai/openai-openapi. For each
root below, OUT_DIR gets `<file>.json`: a draft 2020-12 schema whose `$defs`
hold every component the root reaches, changed only as follows (see README.md):

1. Annotations that never change validation are dropped (description, title,
   example(s), discriminator, x-* extensions); `deprecated` and `default` stay.
2. `nullable: true` (an OpenAPI 3.0 keyword left in this 3.1 document) becomes
   `anyOf: [<the schema without it>, {"type": "null"}]`, so `null` is accepted
   exactly where OpenAPI accepts it, enums included; `nullable: false` goes.
3. `$recursiveRef: "#"` (2019-09) becomes a `$ref` to the component that holds
   the `$recursiveAnchor`, which is what it meant before the component was
   moved under `$defs`.
4. An `allOf` whose branches are all plain objects (properties, required,
   type) is merged into one object; a property named in several branches gets
   the `allOf` of its schemas, so the merge accepts exactly what `allOf` did.
5. `oneOf` becomes `anyOf`. The document uses `oneOf` for tagged unions (its
   `discriminator`s and OpenAI's generated SDKs read it so), but its branches
   overlap: `{"role": "user", "content": [...]}` is both an EasyInputMessage
   and an InputMessage, so strict `oneOf` (exactly one) refuses the very
   input items OpenAI's reference shows. A union accepts what any branch
   accepts, which is `anyOf`; nothing a branch refuses is let through.
6. Every object schema that lists `properties` and says nothing of
   `additionalProperties` gets `additionalProperties: false`: unknown keys
   fail. Free-form objects (no `properties`: JSON Schema parameters, metadata
   maps) keep what the document says.

Standard library only; the output is deterministic (sorted `$defs`).
"""

import json
import sys

ROOTS = {
    "create-chat-completion-request": "CreateChatCompletionRequest",
    "create-response": "CreateResponse",
}
PREFIX = "#/components/schemas/"
DROP = {"description", "title", "example", "examples", "discriminator"}
PLAIN_OBJECT = {"type", "properties", "required"}


def name_of(ref):
    if not ref.startswith(PREFIX):
        sys.exit(f"unexpected $ref {ref!r}")
    return ref[len(PREFIX):]


def reached(schemas, root):
    seen, todo = set(), [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        stack = [schemas[name]]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                if "$ref" in node:
                    todo.append(name_of(node["$ref"]))
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
    return sorted(seen)


def convert(node, schemas, component):
    """Steps 1-3 and 5 on one schema (recursively); steps 4 and 6 run after."""
    if isinstance(node, list):
        return [convert(item, schemas, component) for item in node]
    if not isinstance(node, dict):
        return node
    out = {}
    for key, value in node.items():
        if key in DROP or key.startswith("x-") or key in ("nullable", "$recursiveAnchor"):
            continue
        if key == "$recursiveRef":
            if value != "#" or not schemas[component].get("$recursiveAnchor"):
                sys.exit(f"{component}: unexpected $recursiveRef {value!r}")
            out["$ref"] = "#/$defs/" + component
        elif key == "$ref":
            out["$ref"] = "#/$defs/" + name_of(value)
        elif key == "oneOf":
            out["anyOf"] = convert(value, schemas, component)
        elif key in ("properties", "$defs", "patternProperties"):
            out[key] = {k: convert(v, schemas, component) for k, v in value.items()}
        else:
            out[key] = convert(value, schemas, component)
    if node.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def plain(schema, defs):
    """The plain object a branch of allOf stands for, or None."""
    while set(schema) == {"$ref"}:
        schema = defs[schema["$ref"][len("#/$defs/"):]]
    if "allOf" in schema and set(schema) == {"allOf"}:
        return merge(schema["allOf"], defs)
    if set(schema) <= PLAIN_OBJECT and schema.get("type", "object") == "object":
        return schema
    return None


def merge(branches, defs):
    objects = [plain(b, defs) for b in branches]
    if any(o is None for o in objects):
        return None
    properties, required = {}, []
    for obj in objects:
        for key, value in obj.get("properties", {}).items():
            if key in properties:
                properties[key] = {"allOf": [properties[key], value]}
            else:
                properties[key] = value
        required += [r for r in obj.get("required", []) if r not in required]
    merged = {"type": "object", "properties": properties}
    if required:
        merged["required"] = required
    return merged


def flatten(node, defs):
    """Steps 4 and 6, top down."""
    if isinstance(node, list):
        return [flatten(item, defs) for item in node]
    if not isinstance(node, dict):
        return node
    # Merge before closing the branches (a closed branch would refuse its
    # siblings' properties).
    if set(node) == {"allOf"}:
        merged = merge(node["allOf"], defs)
        if merged is not None:
            node = merged
    node = {
        k: (
            {p: flatten(s, defs) for p, s in v.items()}
            if k in ("properties", "patternProperties")
            else flatten(v, defs)
        )
        for k, v in node.items()
    }
    if "properties" in node and "additionalProperties" not in node:
        node["additionalProperties"] = False
    return node


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        document = json.load(f)
    schemas = document["components"]["schemas"]
    for file, root in ROOTS.items():
        names = reached(schemas, root)
        defs = {n: convert(schemas[n], schemas, n) for n in names}
        # Merging reads the open copy: `defs` is flattened into a new dict.
        defs = {n: flatten(s, defs) for n, s in defs.items()}
        out = {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$comment": (
                f"{root} from OpenAI's OpenAPI document {document['info']['version']}, "
                "converted by convert.py (see README.md)"
            ),
            "$ref": "#/$defs/" + root,
            "$defs": defs,
        }
        with open(f"{sys.argv[2]}/{file}.json", "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1, sort_keys=False, ensure_ascii=False)
            f.write("\n")
        print(f"{file}.json: {root}, {len(names)} components")


if __name__ == "__main__":
    main()
