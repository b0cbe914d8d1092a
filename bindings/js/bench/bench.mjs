// The JavaScript package side by side, in one run (docs/performance.md):
//
// 1. The chat templates of ../shared/peer/chat-templates/templates (read
//    now; skipped, visibly, when absent) rendered by this package
//    (`ChatTemplate.apply`) and by @huggingface/jinja (`new Template(text)`,
//    `render`), each template compiled once; those both render are timed.
// 2. The bracket benches (benches/inputs/minijinja-brackets) in node and
//    natively (`cargo run --release --example native`, the same loop).
//
// Run from the repository's root after `cargo xtask wasm`:
//   node bindings/js/bench/bench.mjs [--quick] [--no-native]

import { readFileSync, readdirSync, existsSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

import * as ps from "../pkg/node.js";
import { Template as HfTemplate } from "@huggingface/jinja";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const quick = process.argv.includes("--quick");
const window = quick ? 100 : 500;

/** The best of three runs of at least `window` ms each, in ns/iteration. */
function time(run) {
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const start = process.hrtime.bigint();
    let count = 0;
    let elapsed = 0n;
    do {
      run();
      count++;
      elapsed = process.hrtime.bigint() - start;
    } while (elapsed < BigInt(window) * 1_000_000n);
    best = Math.min(best, Number(elapsed) / count);
  }
  return best;
}

const fmt = (ns) => (ns >= 1e6 ? `${(ns / 1e6).toFixed(2)} ms` : ns >= 1e3 ? `${(ns / 1e3).toFixed(1)} µs` : `${ns.toFixed(0)} ns`);

// --- 1. chat templates ---------------------------------------------------------------------

const messages = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "What is the capital of France?" },
  { role: "assistant", content: "The capital of France is Paris." },
  { role: "user", content: "And of Italy? Answer in one word." },
];
const now = new Date(Date.UTC(2026, 0, 15, 10, 30));
const dir = path.join(root, "../shared/peer/chat-templates/templates");
if (!existsSync(dir)) {
  console.log(`chat templates: SKIPPED (${dir} is absent)`);
} else {
  const rows = [];
  let theirsFail = 0;
  let oursFail = 0;
  let same = 0;
  const names = readdirSync(dir).filter((n) => n.endsWith(".jinja")).sort();
  for (const name of names) {
    const text = readFileSync(path.join(dir, name), "utf8");
    const variables = { bos_token: "<s>", eos_token: "</s>", add_generation_prompt: true, messages };
    let theirs;
    let theirOutput;
    try {
      theirs = new HfTemplate(text);
      theirOutput = theirs.render(variables);
    } catch {
      theirsFail++;
      continue;
    }
    let ours;
    let ourOutput;
    try {
      ours = new ps.ChatTemplate(text, { now });
      ourOutput = ours.apply(messages, { addGenerationPrompt: true, bosToken: "<s>", eosToken: "</s>" });
    } catch {
      oursFail++;
      ours?.free();
      continue;
    }
    if (ourOutput === theirOutput) same++;
    const hf = time(() => theirs.render(variables));
    const us = time(() => ours.apply(messages, { addGenerationPrompt: true, bosToken: "<s>", eosToken: "</s>" }));
    ours.free();
    rows.push({ name, hf, us });
  }
  console.log(`chat templates in ${dir}: ${names.length}; @huggingface/jinja cannot render ${theirsFail}, this package ${oursFail} of the rest`);
  console.log(`timed: ${rows.length} templates both render (identical output on ${same})`);
  console.log("| template | @huggingface/jinja | prompt-suite | speed-up |");
  console.log("|---|---|---|---|");
  for (const r of rows) console.log(`| ${r.name} | ${fmt(r.hf)} | ${fmt(r.us)} | ${(r.hf / r.us).toFixed(2)}x |`);
  const ratios = rows.map((r) => r.hf / r.us).sort((a, b) => a - b);
  const geomean = Math.exp(ratios.reduce((s, x) => s + Math.log(x), 0) / ratios.length);
  const total = (k) => rows.reduce((s, r) => s + r[k], 0);
  console.log(
    `renders/s summed over the ${rows.length}: @huggingface/jinja ${(rows.length * 1e9 / total("hf")).toFixed(0)}, ` +
      `prompt-suite ${(rows.length * 1e9 / total("us")).toFixed(0)}; speed-up geometric mean ${geomean.toFixed(2)}x, ` +
      `median ${ratios[Math.floor(ratios.length / 2)].toFixed(2)}x, min ${ratios[0].toFixed(2)}x, max ${ratios.at(-1).toFixed(2)}x`,
  );
}

// --- 2. bracket benches: node vs native ----------------------------------------------------

const inputs = path.join(root, "benches/inputs/minijinja-brackets");
const context = JSON.parse(readFileSync(path.join(inputs, "context.json"), "utf8"));
const preset = readFileSync(path.join(inputs, "preset.txt"), "utf8");
const prose = readFileSync(path.join(inputs, "prose.txt"), "utf8");
const text = prose.repeat(Math.ceil((1 << 20) / prose.length));
const env = new ps.Environment();
const js = {};
for (const [name, source] of [["preset", preset], ["text-1mb", text]]) {
  const tpl = env.compile(source);
  js[`${name}/compile`] = time(() => env.compile(source).free());
  js[`${name}/render`] = time(() => tpl.render(context));
  tpl.free();
}
const native = process.argv.includes("--no-native") ? { status: 1 } : spawnSync("cargo", ["run", "--quiet", "--release", "-p", "prompt-suite-js", "--example", "native"], {
  cwd: root,
  encoding: "utf8",
  stdio: ["ignore", "pipe", "inherit"],
});
const nat = native.status === 0 ? JSON.parse(native.stdout) : null;
console.log("\n| bracket bench | node (this package) | native | node / native |");
console.log("|---|---|---|---|");
for (const key of Object.keys(js)) {
  const n = nat ? nat[key] : NaN;
  console.log(`| ${key} | ${fmt(js[key])} | ${nat ? fmt(n) : "?"} | ${nat ? (js[key] / n).toFixed(2) + "x" : "?"} |`);
}
