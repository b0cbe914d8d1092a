// The playground's pure parts (lib.js) under node's test runner:
// `node --test bindings/js/playground/lib.test.mjs`.

import assert from "node:assert/strict";
import { test } from "node:test";

import * as lib from "./lib.js";

async function deflate(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

test("a state round-trips through the fragment", async () => {
  const state = { ...lib.DEFAULT_STATE, prompt: "Hi [[ name ]] 🎲\u0000\u2028", provider: "gemini", mode: "chat" };
  const fragment = await lib.encodeFragment(state);
  assert.ok(fragment.startsWith(lib.FRAGMENT_PREFIX));
  assert.match(fragment.slice(lib.FRAGMENT_PREFIX.length), /^[A-Za-z0-9_-]*$/);
  const back = await lib.decodeFragment(fragment);
  assert.deepEqual(back, { state, rejected: [] });
});

test("fragments that are not the playground's are nothing", async () => {
  for (const hash of ["", "#", "#section-2", "#s=abc", undefined, null, 42]) {
    assert.equal(await lib.decodeFragment(hash), null);
  }
});

test("hostile fragments are typed errors, never a throw of another kind", async () => {
  const bad = [
    "#s1=!!!<img src=x onerror=alert(1)>",
    "#s1=a",
    "#s1=" + "A".repeat(lib.MAX_FRAGMENT_CHARS + 1),
    "#s1=" + lib.toBase64Url(new TextEncoder().encode("not deflate at all")),
    "#s1=" + lib.toBase64Url(await deflate(new Uint8Array([0xff, 0xfe, 0x00]))),
    "#s1=" + lib.toBase64Url(await deflate(new TextEncoder().encode("{not json"))),
  ];
  for (const hash of bad) {
    await assert.rejects(lib.decodeFragment(hash), lib.FragmentError, hash.slice(0, 40));
  }
});

test("a deflate bomb stops at the size limit", async () => {
  const bomb = await deflate(new Uint8Array(lib.MAX_STATE_BYTES * 4));
  const hash = "#s1=" + lib.toBase64Url(bomb);
  assert.ok(hash.length < lib.MAX_FRAGMENT_CHARS);
  await assert.rejects(lib.decodeFragment(hash), /inflates past/);
});

test("a restored state keeps only known keys of the right type and value", async () => {
  const hostile = {
    prompt: "<img src=x onerror=alert(1)>",
    mode: "<script>",
    provider: "evil",
    contextFormat: "yaml",
    seed: 7,
    addGenerationPrompt: "yes",
    __proto__: { polluted: true },
    constructor: "x",
    extra: 1,
  };
  const { state, rejected } = lib.sanitizeState(JSON.parse(JSON.stringify(hostile)));
  assert.equal(state.prompt, hostile.prompt);
  assert.equal(state.mode, "prompt");
  assert.equal(state.provider, "openai");
  assert.equal(state.contextFormat, "json");
  assert.equal(state.seed, lib.DEFAULT_STATE.seed);
  assert.equal(state.addGenerationPrompt, true);
  assert.deepEqual(rejected.sort(), ["addGenerationPrompt", "constructor", "contextFormat", "extra", "mode", "provider", "seed"]);
  assert.equal({}.polluted, undefined);
  for (const value of [null, [], "x", 3]) assert.deepEqual(lib.sanitizeState(value).state, { ...lib.DEFAULT_STATE });
});

test("pieces cover the text and mark each layer's ranges", () => {
  const text = "Hi Ann, you are 3.";
  const got = lib.pieces(text, [
    { name: "data", ranges: [[3, 6], [16, 17]] },
    { name: "generation", ranges: [[4, 10]] },
  ]);
  assert.equal(got.map((p) => p.text).join(""), text);
  assert.deepEqual(got, [
    { text: "Hi ", names: [] },
    { text: "A", names: ["data"] },
    { text: "nn", names: ["data", "generation"] },
    { text: ", yo", names: ["generation"] },
    { text: "u are ", names: [] },
    { text: "3", names: ["data"] },
    { text: ".", names: [] },
  ]);
});

test("pieces skip bad ranges, clip long ones and merge overlaps", () => {
  const text = "abcdef";
  const got = lib.pieces(text, [
    { name: "data", ranges: [[1, 3], [2, 4], [5, 99], [4, 4], [3, 1], ["1", "2"], [0.5, 2], null, 7, [NaN, 2], [-5, 1]] },
  ]);
  assert.deepEqual(got, [
    { text: "a", names: ["data"] },
    { text: "b", names: ["data"] },
    { text: "cd", names: ["data"] },
    { text: "e", names: [] },
    { text: "f", names: ["data"] },
  ].reduce((out, p) => {
    const last = out[out.length - 1];
    if (last && last.names.join() === p.names.join()) last.text += p.text;
    else out.push({ ...p });
    return out;
  }, []));
  assert.deepEqual(lib.pieces("", [{ name: "data", ranges: [[0, 3]] }]), []);
  assert.deepEqual(lib.pieces("ab", [{ name: "data", ranges: "nope" }]), [{ text: "ab", names: [] }]);
});

test("place puts the caret under the column, in characters, tabs kept", () => {
  const text = "first\n\tsé😀x [[ oops\r\nlast";
  const where = lib.place(text, 2, 5);
  assert.equal(where.lineText, "\tsé😀x [[ oops");
  assert.equal(where.pad, "\t   ");
  assert.equal(text.slice(where.offset, where.offset + 1), "x");
  assert.equal(lib.place(text, 4, 1), null);
  assert.equal(lib.place(text, 0, 1), null);
  assert.equal(lib.place(text, null, null), null);
  assert.equal(lib.place(text, 3, 99).column, 5);
  const bom = lib.place("\ufeffab", 1, 2);
  assert.equal(bom.lineText, "ab");
  assert.equal("\ufeffab".slice(bom.offset, bom.offset + 1), "b");
});

test("JSON errors are placed at the first byte JSON cannot take", () => {
  assert.deepEqual(lib.jsonErrorPosition('{\n  "a": 1,\n  "b": }\n'), { line: 3, column: 8 });
  assert.deepEqual(lib.jsonErrorPosition('[1,]'), { line: 1, column: 4 });
  assert.deepEqual(lib.jsonErrorPosition('{"é😀": tru}'), { line: 1, column: 11 });
  assert.deepEqual(lib.jsonErrorPosition('{"a": 1'), { line: 1, column: 8 });
  assert.deepEqual(lib.jsonErrorPosition('{"a": 1} x'), { line: 1, column: 10 });
  assert.deepEqual(lib.jsonErrorPosition('[1, 2]'), { line: null, column: null });
  assert.deepEqual(lib.positionOf("ab\ncd", 4), { line: 2, column: 2 });
});

test("the JSON walk agrees with JSON.parse, and deep nesting cannot overflow it", () => {
  const cases = [
    "", " ", "0", "-0", "01", "1.", ".5", "1e5", "1E+5", "-", "--1", "true", "truex", "nul", "null",
    '"a"', '"\\u12g4"', '"\\x"', '"tab\there"', '"\\u00e9"', "[]", "[,]", "[1 2]", "{}", '{"a"}', '{"a":}',
    '{"a":1,}', '{"a":1 "b":2}', '{1:2}', "[[[]]]", '[{"a":[{"b":null}]}]', "\ufeff{}", "{}}", "[1]]",
  ];
  for (const text of cases) {
    let parses = true;
    try {
      JSON.parse(text);
    } catch {
      parses = false;
    }
    assert.equal(lib.jsonErrorOffset(text) === null, parses, JSON.stringify(text));
  }
  const deep = "[".repeat(200_000) + "]".repeat(200_000);
  assert.equal(lib.jsonErrorOffset(deep), null);
  assert.equal(lib.jsonErrorOffset("[".repeat(200_000)), 200_000);
});

test("contexts follow the stores rule", () => {
  assert.deepEqual(lib.toStores({ name: "Ann" }), { state: { name: "Ann" }, local: {}, global: {} });
  assert.deepEqual(lib.toStores({ global: { a: 1 } }), { state: {}, local: {}, global: { a: 1 } });
  assert.throws(() => lib.toStores({ state: {}, name: "Ann" }), /mixes stores.*`name`/);
  assert.throws(() => lib.toStores({ state: [] }), /`state` store is not an object/);
  for (const bad of [null, [], "x", 1]) assert.throws(() => lib.toStores(bad), /not an object/);
});

test("seeds are whole numbers up to 2^64 - 1, BigInt past 2^53", () => {
  assert.equal(lib.parseSeed(" 7 "), 7);
  assert.equal(lib.parseSeed("18446744073709551615"), 18446744073709551615n);
  for (const bad of ["", "-1", "1.5", "1e3", "18446744073709551616", "0x10", "７"]) {
    assert.throws(() => lib.parseSeed(bad), /whole number/, bad);
  }
});

test("toJson writes what the package returns, BigInts and Maps included", () => {
  const value = { a: 1n << 64n, m: new Map([["k", [1, "two", null]]]), b: new Uint8Array([1, 2]), s: '"\u0000bigint:5"', e: [] };
  const text = lib.toJson(value);
  assert.equal(text, '{\n  "a": 18446744073709551616,\n  "m": {\n    "k": [\n      1,\n      "two",\n      null\n    ]\n  },\n  "b": [\n    1,\n    2\n  ],\n  "s": "\\"\\u0000bigint:5\\"",\n  "e": []\n}');
  assert.deepEqual(JSON.parse(text.replace("18446744073709551616", "0")).s, value.s);
});

test("odds come in any of the shapes and sort most likely first", () => {
  const want = [{ output: "B", probability: 0.5 }, { output: "A", probability: 0.3 }];
  assert.deepEqual(lib.oddsRows({ outputs: { A: 0.3, B: 0.5 } }), want);
  assert.deepEqual(lib.oddsRows({ outputs: [["A", 0.3], ["B", 0.5]] }), want);
  assert.deepEqual(lib.oddsRows({ outputs: new Map([["A", 0.3], ["B", 0.5]]) }), want);
  assert.deepEqual(lib.oddsRows({ outputs: [{ output: "A", probability: 0.3 }, ["B", 0.5], ["C", "x"], [1, 0.2]] }), want);
  assert.deepEqual(lib.oddsRows(null), []);
  assert.equal(lib.percent(0.375), "37.5 %");
  assert.equal(lib.percent(1 / 3), "33.33 %");
  assert.equal(lib.percent(1), "100 %");
});

test("the package's browser entry is found in its manifest, and only inside it", () => {
  assert.equal(lib.packageEntry({ exports: { ".": { node: "./node.js", browser: "./web.js" } } }), "./web.js");
  assert.equal(lib.packageEntry({ exports: { ".": { import: { browser: "./b.js", default: "./d.js" } } } }), "./b.js");
  assert.equal(lib.packageEntry({ exports: "./index.js" }), "./index.js");
  assert.equal(lib.packageEntry({ module: "web.js" }), "./web.js");
  assert.equal(lib.packageEntry({ exports: { ".": { browser: "https://evil.example/x.js" } }, main: "../../x.js" }), null);
  assert.equal(lib.packageEntry({ exports: { ".": { browser: "./../x.js", default: "./ok.js" } } }), "./ok.js");
  assert.equal(lib.packageEntry(null), null);
});
