// The playground in a real headless Chromium: `cargo xtask test` runs it
// after building the package (`cargo xtask wasm`), or by hand:
//
//   PLAYWRIGHT_CORE=<dir of playwright-core> node --test bindings/js/playground/browser.test.mjs
//
// The page and the package are served by a static server inside this test,
// on 127.0.0.1 and a port the system picks; the browser may reach nothing
// else (every other request is refused, and the test fails if one is made).
// Assertions are on the DOM; a screenshot is written under the target
// directory (PLAYGROUND_SCREENSHOT, default target/playground/playground.png)
// as a check that the page draws, never compared to anything.
//
// Environment: CHROMIUM (default /usr/bin/chromium), PLAYWRIGHT_CORE (the
// playwright-core package directory; default: resolved from here),
// PROMPT_SUITE_PKG (the package directory served as ../pkg/; default
// bindings/js/pkg).

import assert from "node:assert/strict";
import { once } from "node:events";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve, sep } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const jsRoot = resolve(here, "..");
const repoRoot = resolve(jsRoot, "..", "..");
const pkgDir = resolve(process.env.PROMPT_SUITE_PKG || join(jsRoot, "pkg"));
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const screenshotPath = resolve(process.env.PLAYGROUND_SCREENSHOT || join(repoRoot, "target", "playground", "playground.png"));

/** Each wait's bound; the whole file is bounded by node's --test-timeout in xtask too. */
const WAIT_MS = 20_000;

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".wasm": "application/wasm",
  ".ts": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
};

/** A static server of /playground/ and /pkg/ on 127.0.0.1, nothing else, no listing, no `..`. */
function serve() {
  const mounts = { playground: here, pkg: pkgDir };
  const server = createServer((request, response) => {
    const refuse = (status) => {
      response.writeHead(status, { "content-type": "text/plain" });
      response.end(String(status));
    };
    if (request.method !== "GET" && request.method !== "HEAD") return refuse(405);
    let path;
    try {
      path = decodeURIComponent(new URL(request.url, "http://127.0.0.1").pathname);
    } catch {
      return refuse(400);
    }
    const [, mount, ...rest] = path.split("/");
    const root = mounts[mount];
    if (!root || rest.includes("..") || path.includes("\0")) return refuse(404);
    const file = resolve(root, ...(rest.length === 0 || rest.at(-1) === "" ? [...rest, "index.html"] : rest));
    if (!(file + sep).startsWith(root + sep) && file !== root) return refuse(404);
    let body;
    try {
      if (!statSync(file).isFile()) return refuse(404);
      body = readFileSync(file);
    } catch {
      return refuse(404);
    }
    response.writeHead(200, {
      "content-type": TYPES[extname(file)] || "application/octet-stream",
      "cache-control": "no-store",
    });
    response.end(request.method === "HEAD" ? undefined : body);
  });
  server.listen(0, "127.0.0.1");
  return server;
}

let server;
let origin;
let context;
let page;
let userDataDir;
const offsite = [];
const consoleErrors = [];

before(async () => {
  assert.ok(existsSync(chromiumPath), `no Chromium at ${chromiumPath}: apt-get install chromium (cargo xtask test does)`);
  assert.ok(existsSync(join(pkgDir, "package.json")), `no package in ${pkgDir}: run cargo xtask wasm`);
  const where = process.env.PLAYWRIGHT_CORE;
  const { chromium } = await import(where ? pathToFileURL(join(where, "index.mjs")).href : "playwright-core");
  server = serve();
  await once(server, "listening");
  origin = `http://127.0.0.1:${server.address().port}`;
  userDataDir = mkdtempSync(join(tmpdir(), "prompt-suite-playground-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath,
    headless: true, // --headless
    timeout: WAIT_MS,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1280, height: 1000 },
  });
  context.setDefaultTimeout(WAIT_MS);
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`)) return route.continue();
    offsite.push(url);
    return route.abort("blockedbyclient");
  });
  page = context.pages()[0] ?? (await context.newPage());
  watch(page);
}, { timeout: 3 * WAIT_MS });

after(async () => {
  await context?.close().catch(() => {});
  if (server) {
    server.closeAllConnections();
    server.close();
  }
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
}, { timeout: WAIT_MS });

function watch(p) {
  p.on("console", (message) => {
    if (message.type() === "error") consoleErrors.push(message.text());
  });
  p.on("pageerror", (error) => consoleErrors.push(String(error)));
}

/** Opens the playground (with `fragment`) and waits until the package is loaded and the page has drawn. */
async function open(p, fragment = "") {
  await p.goto(`${origin}/playground/index.html${fragment}`);
  await p.waitForFunction(() => document.body.dataset.ready !== "loading", null, { timeout: WAIT_MS });
  assert.equal(await p.evaluate(() => document.body.dataset.ready), "ready", await p.textContent("#notice"));
  await p.waitForFunction(() => Number(document.body.dataset.updates) >= 1);
}

/** Polls `check` until it returns something truthy, which it returns; fails after WAIT_MS. */
async function until(check) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not so after ${WAIT_MS} ms: ${check}`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

/** How many updates the page has made. */
const updates = (p) => p.evaluate(() => Number(document.body.dataset.updates || 0));

/**
 * Waits for the page to draw the last change: an update after `before`, and
 * none pending (the editors are debounced; an update already scheduled by an
 * earlier change may run first).
 */
async function settled(p, before) {
  await p.waitForFunction(
    (n) => Number(document.body.dataset.updates) > n && document.body.dataset.pending !== "1",
    before,
  );
}

/** Replaces an editor's text the way a paste does (one input event), then waits for the update. */
async function setText(p, selector, text) {
  const n = await updates(p);
  await p.fill(selector, text);
  await settled(p, n);
}

test("the page loads the package and draws the example", async () => {
  await open(page);
  assert.match(await page.textContent("#version"), /^v\d/);
  assert.notEqual((await page.textContent("#rendered")).trim(), "");
  assert.notEqual((await page.textContent("#body")).trim(), "");
  assert.ok((await page.locator("#turns li").count()) >= 2);
});

test("typing into the editors changes the output, data highlighted", async () => {
  await setText(page, "#prompt", "You are [[ bot ]].\n\n## user\n[[ question ]]");
  await setText(page, "#context", '{"bot": "Penny", "question": "Where is my parcel?"}');
  const n = await updates(page);
  await page.focus("#prompt");
  await page.keyboard.press("Control+End");
  await page.keyboard.type(" Sign as [[ bot -> upper ]].");
  await settled(page, n);
  await page.waitForFunction(() => document.querySelector("#rendered").textContent.includes("Sign as PENNY."));
  const rendered = await page.textContent("#rendered");
  assert.equal(rendered, "You are Penny.\n\n## user\nWhere is my parcel? Sign as PENNY.");
  // The bytes from the context are marked, and only they.
  const marked = await page.$$eval("#rendered mark.data", (marks) => marks.map((m) => m.textContent));
  assert.deepEqual(marked, ["Penny", "Where is my parcel?", "PENNY"]);
  // Turns follow the text.
  const turns = await page.$$eval("#turns li", (items) => items.map((li) => [li.dataset.role, li.querySelector("pre").textContent]));
  assert.deepEqual(turns, [
    ["context", "You are Penny.\n\n"],
    ["user", "Where is my parcel? Sign as PENNY."],
  ]);
  // Typing into the context changes it too.
  await setText(page, "#context", '{"bot": "Zed", "question": "Hi?"}');
  assert.equal(await page.textContent("#rendered"), "You are Zed.\n\n## user\nHi? Sign as ZED.");
});

test("an error shows under its line", async () => {
  await setText(page, "#prompt", "Line one.\nLine two [[ bot\nLine three.");
  const diagnostic = page.locator("#prompt-diagnostics .diagnostic").first();
  await diagnostic.waitFor();
  assert.equal(await diagnostic.getAttribute("data-line"), "2");
  assert.equal(await diagnostic.locator(".src").textContent(), "Line two [[ bot");
  assert.notEqual(await diagnostic.getAttribute("data-kind"), null);
  // The caret sits under the column the error names.
  const column = Number(await diagnostic.getAttribute("data-column"));
  assert.equal((await diagnostic.locator(".pad").textContent()).length, column - 1);
  assert.equal(await page.locator(".editor[data-editor=prompt] .gutter .error").textContent(), "2");
  // Its button puts the cursor there.
  await diagnostic.locator("button.where").click();
  const caret = await page.evaluate(() => [document.activeElement.id, document.activeElement.selectionStart]);
  assert.deepEqual(caret, ["prompt", "Line one.\n".length + column - 1]);
  // A context that is not JSON is placed in the context.
  await setText(page, "#prompt", "Hi [[ bot ]].");
  await setText(page, "#context", '{\n  "bot": "Penny",\n  "x": }\n');
  const contextDiagnostic = page.locator("#context-diagnostics .diagnostic").first();
  await contextDiagnostic.waitFor();
  assert.equal(await contextDiagnostic.getAttribute("data-line"), "3");
  assert.equal(await contextDiagnostic.getAttribute("data-column"), "8");
  assert.equal(await page.locator("#prompt-diagnostics .diagnostic").count(), 0);
  // Fixed, the diagnostics go.
  await setText(page, "#context", '{"bot": "Penny"}');
  assert.equal(await page.locator(".diagnostic").count(), 0);
  assert.equal(await page.textContent("#rendered"), "Hi Penny.");
});

test("switching the provider changes the body", async () => {
  await setText(page, "#prompt", "/// param: model=some-model, max_tokens=50\nYou are [[ bot ]].\n\n## user\nHello.");
  const bodies = {};
  for (const provider of ["openai", "anthropic", "gemini", "openai-responses"]) {
    const n = await updates(page);
    await page.selectOption("#provider", provider);
    await settled(page, n);
    assert.equal(await page.locator("#body-problems .problem").count(), 0, await page.textContent("#body-problems"));
    bodies[provider] = JSON.parse(await page.textContent("#body"));
  }
  assert.equal(bodies.openai.messages[0].role, "system");
  assert.equal(bodies.openai.messages[0].content, "You are Penny.");
  assert.equal(bodies.anthropic.system, "You are Penny.");
  assert.equal(bodies.anthropic.max_tokens, 50);
  assert.ok(Array.isArray(bodies.gemini.contents));
  assert.notDeepEqual(bodies["openai-responses"], bodies.openai);
  await page.selectOption("#provider", "openai");
  // What the build could not carry is listed under the body.
  await setText(page, "#prompt", "/// param: model=some-model\nHi.\n\n## user\n@@@missing.png");
  assert.match(await page.textContent("#body-notices"), /unclosed_embed/);
});

test("a conversation is seen by its speaker, in the turns and the body", async () => {
  await setText(page, "#prompt", "/// param: model=some-model\nYou are [[ bot ]].");
  await setText(page, "#conversation", '[\n  {"speaker": "ana", "text": "Hi Ben"},\n  {"speaker": "ben", "text": "Hello"},\n  {"speaker": "ana", "text": "How are you?"}\n]');
  // Without a speaker the page says so under the conversation.
  assert.equal(await page.getAttribute("#conversation-diagnostics .diagnostic", "data-kind"), "missing_speaker");
  await setText(page, "#speaker", "ben");
  const turns = await page.$$eval("#turns li", (items) => items.map((li) => [li.dataset.role, li.querySelector("pre").textContent]));
  assert.deepEqual(turns, [
    ["context", "You are Penny."],
    ["user", "ana: Hi Ben"],
    ["assistant", "Hello"],
    ["user", "ana: How are you?"],
  ]);
  const body = JSON.parse(await page.textContent("#body"));
  assert.deepEqual(body.messages.map((m) => m.role), ["system", "user", "assistant", "user"]);
  // A conversation that is not JSON is placed where it stops being JSON.
  await setText(page, "#conversation", '[\n  {"speaker": "ana", "text": "Hi"},\n  {"speaker" "ben"}\n]');
  const diagnostic = page.locator("#conversation-diagnostics .diagnostic").first();
  assert.deepEqual([await diagnostic.getAttribute("data-line"), await diagnostic.getAttribute("data-column")], ["3", "14"]);
  await setText(page, "#conversation", "");
  await setText(page, "#speaker", "");
  assert.equal(await page.locator(".diagnostic").count(), 0);
});

test("the odds of the random blocks are exact", async () => {
  await setText(page, "#prompt", "[% chance 0.25 %]A[% elif 0.5 %]B[% else %]C[% endchance %]");
  assert.equal(await page.textContent("#odds-problems"), "");
  assert.match(await page.textContent("#odds"), /3 distinct outputs from 3 random paths/);
  const rows = await page.$$eval("#odds table tr", (trs) =>
    trs.slice(1).map((tr) => [tr.querySelector("td.p").textContent, tr.querySelector("pre").textContent]),
  );
  assert.deepEqual(
    rows.sort((a, b) => a[1].localeCompare(b[1])),
    [["25 %", "A"], ["37.5 %", "B"], ["37.5 %", "C"]],
  );
  // A template without random blocks has one output, certain.
  await setText(page, "#prompt", "Hi [[ bot ]].");
  assert.match(await page.textContent("#odds"), /no random choice/);
});

test("the URL fragment round-trips the whole page", async () => {
  await setText(page, "#prompt", "Fragment [[ bot ]] 🎲 <b>not markup</b>");
  await page.selectOption("#provider", "anthropic");
  await setText(page, "#seed", "42");
  // The fragment is written after a pause; wait until it holds the last edit.
  const { decodeFragment } = await import("./lib.js");
  const hash = await until(async () => {
    const hash = await page.evaluate(() => location.hash);
    const restored = await decodeFragment(hash);
    return restored && restored.state.seed === "42" && restored.state.provider === "anthropic" && hash;
  });
  const want = await page.evaluate(() => ({
    prompt: document.querySelector("#prompt").value,
    context: document.querySelector("#context").value,
    provider: document.querySelector("#provider").value,
    seed: document.querySelector("#seed").value,
    rendered: document.querySelector("#rendered").textContent,
  }));
  const second = await context.newPage();
  watch(second);
  try {
    await open(second, hash);
    const got = await second.evaluate(() => ({
      prompt: document.querySelector("#prompt").value,
      context: document.querySelector("#context").value,
      provider: document.querySelector("#provider").value,
      seed: document.querySelector("#seed").value,
      rendered: document.querySelector("#rendered").textContent,
    }));
    assert.deepEqual(got, want);
    assert.equal(await second.locator("#rendered b").count(), 0);
    assert.equal(await second.locator("#notice").isHidden(), true);
  } finally {
    await second.close();
  }
  // A page too large for a link it could read back keeps the last link, and says so.
  const { randomBytes } = await import("node:crypto");
  await setText(page, "#prompt", randomBytes(150_000).toString("base64"));
  await page.waitForFunction(() => /too large to keep in its link/.test(document.querySelector("#notice").textContent));
  assert.equal(await page.evaluate(() => location.hash), hash);
  await setText(page, "#prompt", "Back to [[ bot ]]");
  await page.waitForFunction(() => document.querySelector("#notice").hidden);
  await page.selectOption("#provider", "openai");
});

test("hostile fragments neither break the page nor inject markup", async () => {
  const deflate = async (text) =>
    page.evaluate(async (t) => {
      const { toBase64Url } = await import("./lib.js");
      const stream = new Blob([new TextEncoder().encode(t)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
      return toBase64Url(new Uint8Array(await new Response(stream).arrayBuffer()));
    }, text);
  const injected = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const hostile = JSON.stringify({ prompt: `Hi ${injected} [[ bot ]]`, context: '{"bot": "<i>x</i>"}', mode: "<script>", provider: "evil", extra: 1 });
  const cases = [
    ["#s1=" + (await deflate(hostile)), /fields this page does not take/],
    [`#s1=${encodeURIComponent(injected)}`, /could not be read/],
    ["#s1=" + (await deflate("{not json")), /could not be read/],
    ["#s1=" + (await deflate("\u0000".repeat(4 << 20))), /inflates past/],
  ];
  for (const [fragment, message] of cases) {
    const p = await context.newPage();
    watch(p);
    try {
      await open(p, fragment);
      assert.match(await p.textContent("#notice"), message);
      assert.equal(await p.evaluate(() => window.__pwned), undefined);
      assert.equal(await p.locator("img, script:not([src]), i, b").count(), 0);
      if (message.source.includes("fields")) {
        assert.equal(await p.inputValue("#prompt"), `Hi ${injected} [[ bot ]]`);
        assert.equal(await p.textContent("#rendered"), `Hi ${injected} <i>x</i>`);
        assert.equal(await p.inputValue("#provider"), "openai");
      }
    } finally {
      await p.close();
    }
  }
});

test("a chat template renders, messages and generation highlighted", async () => {
  // The mode switch by keyboard: its access key is Alt+T.
  await page.focus("#prompt");
  await page.keyboard.press("Alt+t");
  await page.locator("#chat-mode").waitFor();
  await page.waitForFunction(() => document.querySelector("#chat-rendered").textContent.includes("<|im_start|>"));
  const output = await page.textContent("#chat-rendered");
  assert.equal(
    output,
    "<|im_start|>system\nYou are a terse assistant.<|im_end|>\n<|im_start|>user\nName a prime.<|im_end|>\n" +
      "<|im_start|>assistant\n7<|im_end|>\n<|im_start|>user\nAnother.<|im_end|>\n<|im_start|>assistant\n",
  );
  const data = await page.$$eval("#chat-rendered mark.data", (marks) => marks.map((m) => m.textContent));
  assert.ok(data.includes("Name a prime."), JSON.stringify(data));
  const generation = await page.$$eval("#chat-rendered mark.generation", (marks) => marks.map((m) => m.textContent));
  assert.deepEqual(generation, ["7"]);
  // The generation prompt follows its checkbox.
  const n = await updates(page);
  await page.uncheck("#add-generation-prompt");
  await settled(page, n);
  assert.ok((await page.textContent("#chat-rendered")).endsWith("Another.<|im_end|>\n"));
  // An error in the template is placed under its line.
  const template = await page.inputValue("#chat-template");
  await setText(page, "#chat-template", "{{ bos_token }}\n{% if %}x{% endif %}");
  const diagnostic = page.locator("#chat-template-diagnostics .diagnostic").first();
  await diagnostic.waitFor();
  assert.equal(await diagnostic.getAttribute("data-line"), "2");
  await setText(page, "#chat-template", template);
  await page.keyboard.press("Alt+p");
  await page.locator("#prompt-mode").waitFor();
});

test("the page frees what it compiles, renders offline, and a screenshot is taken", async () => {
  // Many updates in a row leave no object holding wasm memory, and the
  // module's memory stays flat (it only ever grows; one 64 KiB page of
  // allocator slack is allowed).
  const wasmBytes = () => page.evaluate(() => Number(document.body.dataset.wasmBytes));
  for (let i = 0; i < 20; i++) await setText(page, "#prompt", `Round ${i}: [[ bot ]] [% chance 0.5 %]x[% endchance %]`);
  const warm = await wasmBytes();
  assert.ok(warm > 0);
  for (let i = 20; i < 80; i++) await setText(page, "#prompt", `Round ${i}: [[ bot ]] [% chance 0.5 %]x[% endchance %]`);
  assert.equal(await page.evaluate(() => document.body.dataset.live), "0");
  assert.match(await page.textContent("#rendered"), /^Round 79: Penny/);
  assert.ok((await wasmBytes()) - warm <= 65_536, `wasm memory grew from ${warm} to ${await wasmBytes()} bytes`);
  assert.deepEqual(offsite, []);
  assert.deepEqual(consoleErrors, []);
  mkdirSync(dirname(screenshotPath), { recursive: true });
  // The example, as a new page opens with it.
  const n = await updates(page);
  await page.click("#reset");
  await settled(page, n);
  assert.equal(await page.inputValue("#prompt"), (await import("./lib.js")).DEFAULT_STATE.prompt);
  await page.screenshot({ path: screenshotPath, fullPage: true });
  assert.ok(statSync(screenshotPath).size > 10_000, "the screenshot is not empty");
});
