// The JavaScript blocks of docs/javascript.md, of the package's README and
// of the repository's README
// run, in order, one module per page, with "prompt-suite" resolved to the
// built package and `console.assert` made to throw.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

const pkg = new URL("../pkg/node.js", import.meta.url).href;
const pages = ["../../../docs/javascript.md", "../js/README.md", "../../../README.md"];

function blocks(text) {
  return [...text.matchAll(/^```js\n([\s\S]*?)^```/gm)].map((m) => m[1]);
}

for (const page of pages) {
  test(`the js blocks of ${path.basename(page)} run`, async () => {
    const found = blocks(readFileSync(new URL(page, import.meta.url), "utf8"));
    assert.ok(found.length > 0, `${page} has no js block`);
    const code = found.join("\n").replaceAll('from "prompt-suite"', `from ${JSON.stringify(pkg)}`);
    const dir = mkdtempSync(path.join(tmpdir(), "prompt-suite-docs-"));
    const file = path.join(dir, "page.mjs");
    writeFileSync(file, code);
    const assertBefore = console.assert;
    const logBefore = console.log;
    console.assert = (ok, ...what) => {
      if (!ok) throw new Error(`console.assert failed: ${what.join(" ")}`);
    };
    console.log = () => {};
    try {
      await import(file);
    } finally {
      console.assert = assertBefore;
      console.log = logBefore;
      rmSync(dir, { recursive: true, force: true });
    }
  });
}
