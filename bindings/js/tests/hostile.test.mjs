// Hostile inputs never abort the instance: deep nesting, huge outputs and
// runaway loops end in typed errors, and the next call works. A render loop
// keeps WebAssembly memory flat when what it makes is freed.

import { test } from "node:test";
import assert from "node:assert/strict";

import * as ps from "../pkg/node.js";

/** Runs `run`, which must fail with a PromptSuiteError of one of `kinds`; then checks the instance still renders. */
function refused(run, kinds) {
  let caught = null;
  try {
    run();
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof ps.PromptSuiteError, `expected a PromptSuiteError, got ${caught}`);
  assert.ok(kinds.includes(caught.kind), `${caught.kind}: ${caught.message}`);
  assert.equal(ps.render("still [[ x ]]", { x: "here" }), "still here");
}

test("deep nesting in templates is a typed error at every depth", () => {
  const env = new ps.Environment();
  for (const depth of [200, 1_000, 10_000, 100_000]) {
    refused(() => env.compile(`[[ ${"(".repeat(depth)}1${")".repeat(depth)} ]]`), ["recursion_limit", "syntax_error"]);
    refused(() => env.compile(`[[ ${"[".repeat(depth)}${"]".repeat(depth)} ]]`), ["recursion_limit", "syntax_error"]);
    refused(() => env.compile("[% if x %]".repeat(depth)), ["recursion_limit", "syntax_error"]);
    refused(() => env.compile(`[[ ${"-".repeat(depth)}1 ]]`), ["recursion_limit", "syntax_error"]);
    refused(() => env.compile(`[[ x${".a".repeat(depth)} ]]`).render(), ["recursion_limit", "syntax_error"]);
  }
  const jinja = new ps.Environment({ syntax: "jinja", profile: "jinja2" });
  refused(() => jinja.compile(`{{ ${"(".repeat(50_000)}1${")".repeat(50_000)} }}`), ["recursion_limit", "syntax_error"]);
});

test("recursive macros and includes stop at the recursion limit", () => {
  refused(() => ps.render("[% macro f(n) %][[ f(n + 1) ]][% endmacro %][[ f(0) ]]"), ["recursion_limit"]);
  const env = new ps.Environment({ templates: { "a.txt": "[% include 'b.txt' %]", "b.txt": "[% include 'a.txt' %]" } });
  refused(() => env.compile("[% include 'a.txt' %]").render(), ["template_cycle", "recursion_limit"]);
  refused(() => ps.applyChatTemplate("{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}", []), ["recursion_limit"]);
});

test("huge outputs and runaway loops end at their limits", () => {
  refused(() => ps.render("[% for i in range(100000) %][% for j in range(100000) %]xxxxxxxxxx[% endfor %][% endfor %]"), [
    "out_of_fuel",
    "output_limit",
  ]);
  refused(() => ps.render("[% for i in range(100000000) %]x[% endfor %]"), ["invalid_operation"]);
  refused(() => ps.render("[[ 'x' * 1000000000 ]]"), ["output_limit", "invalid_operation", "string_too_long"]);
  refused(() => ps.render("[% set s = 'xx' %][% for i in range(64) %][% set s = s ~ s %][% endfor %][[ s ]]"), [
    "output_limit",
    "string_too_long",
    "invalid_operation",
    "out_of_fuel",
  ]);
  refused(() => ps.render("[% for i in range(100000) %][% for j in range(100000) %][% endfor %][% endfor %]"), ["out_of_fuel"]);
  refused(() => ps.applyChatTemplate("{% for i in range(100000) %}{% for j in range(100000) %}{{ i }}{% endfor %}{% endfor %}", []), [
    "out_of_fuel",
    "output_limit",
  ]);
});

test("deep values are refused before they cross, deep JSON texts after", () => {
  let deep = 1;
  for (let i = 0; i < 10_000; i++) deep = [deep];
  assert.throws(() => ps.render("[[ x ]]", { x: deep }), /nested deeper than 128 levels/);
  const text = "[".repeat(100_000) + "]".repeat(100_000);
  refused(() => ps.flip(text, "ann"), ["invalid_json"]);
  refused(() => ps.StateHistory.fromJSON(text), ["invalid_history", "invalid_json"]);
  refused(() => ps.convert(text), ["invalid_json", "invalid_request"]);
});

test("large inputs render whole", () => {
  const big = "é".repeat(1_000_000);
  const out = new ps.Environment().compile("<[[ big ]]>").renderOutcome({ state: { big } });
  assert.equal(out.output.length, big.length + 2);
  assert.deepEqual(out.dataRanges, [[1, big.length + 1]]);
  assert.equal(ps.segment(`## user\n${"word ".repeat(200_000)}`).length, 1);
});

test("100 000 renders keep WebAssembly memory flat", () => {
  const env = new ps.Environment();
  env.addFilter("twice", (s) => s + s);
  const tpl = env.compile("[% set n = n + 1 %][[ name -> twice ]] #[[ n ]] [% chance 0.5 %]a[% else %]b[% endchance %]");
  const run = (from, count) => {
    for (let i = from; i < from + count; i++) {
      const out = tpl.renderOutcome({ state: { name: "Ann", n: i }, seed: i });
      assert.equal(out.writes[0].value, i + 1);
    }
  };
  run(0, 10_000);
  const settled = ps.wasmMemoryBytes();
  assert.ok(settled > 0);
  run(10_000, 90_000);
  assert.equal(ps.wasmMemoryBytes(), settled, "memory grew while rendering");
  tpl.free();
  env.free();
});

test("compiling and freeing on every keystroke keeps memory and host callables flat", () => {
  const held = ps.hostCallableCount();
  const cycle = (i) => {
    const env = new ps.Environment({ templates: { "t.txt": "[[ x ]]" } });
    env.addFilter("up", (s) => s.toUpperCase());
    const tpl = env.compile(`[% include 't.txt' %] [[ 'k${i}' -> up ]]`);
    assert.equal(tpl.render({ state: { x: i } }), `${i} K${i}`);
    const history = new ps.StateHistory();
    history.record(0, tpl.renderOutcome({ state: { x: i } }));
    const chat = new ps.ChatTemplate("{{ messages[0].content }}");
    assert.equal(chat.apply([{ role: "user", content: String(i) }]), String(i));
    chat.free();
    history.free();
    tpl.free();
    env.free();
  };
  for (let i = 0; i < 2_000; i++) cycle(i);
  const settled = ps.wasmMemoryBytes();
  for (let i = 2_000; i < 20_000; i++) cycle(i);
  assert.equal(ps.wasmMemoryBytes(), settled, "memory grew while compiling and freeing");
  assert.equal(ps.hostCallableCount(), held, "host callables were not released");
});

test("freed objects refuse use instead of touching freed memory", () => {
  const env = new ps.Environment();
  const tpl = env.compile("[[ 1 ]]");
  env.free();
  env.free();
  assert.equal(tpl.render(), "1");
  tpl.free();
  assert.throws(() => tpl.render(), /freed/);
  assert.throws(() => env.compile("x"), /freed/);
});
