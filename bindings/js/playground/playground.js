// The playground page: reads the editors, runs the package on each change
// (debounced), and draws what came out. Everything shown is built with
// textContent and createElement, never from markup: templates, contexts,
// outputs and links are data.
//
// The package is the one `cargo xtask wasm` builds into ../pkg/; this page
// finds its browser entry in ../pkg/package.json and calls its `init`.

import * as lib from "./lib.js";

/** How long the page waits after the last keystroke before rendering. */
const DEBOUNCE_MS = 120;
/** How long it waits before writing the state into the URL fragment. */
const FRAGMENT_DEBOUNCE_MS = 400;
/** The most random paths the odds enumerate. */
const MAX_PATHS = 10_000;
/** The most odds rows drawn. */
const MAX_ODDS_ROWS = 50;

const $ = (id) => document.getElementById(id);

/** Makes an element with a class and text (never markup). */
function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The package, once loaded. */
let ps = null;

/** Objects holding wasm memory made by the current update, freed at its end. */
const live = new Set();
function own(object) {
  live.add(object);
  return object;
}
function releaseAll() {
  for (const object of live) {
    try {
      object.free();
    } catch {
      // Freed already (a FinalizationRegistry cannot double-free; free() may throw).
    }
  }
  live.clear();
  document.body.dataset.live = String(live.size);
}

// --- editors ----------------------------------------------------------------------------------

/** The editors by name: the textarea, its gutter, its diagnostics box. */
const editors = {};

function setupEditor(name) {
  const textarea = $(name);
  const root = textarea.closest(".editor");
  const editor = {
    name,
    textarea,
    gutter: root.querySelector(".gutter"),
    box: $(`${name}-diagnostics`),
    errorLines: new Set(),
  };
  textarea.addEventListener("scroll", () => {
    editor.gutter.scrollTop = textarea.scrollTop;
  });
  textarea.addEventListener("input", () => drawGutter(editor));
  editors[name] = editor;
  return editor;
}

/** Line numbers beside the textarea, the lines with a diagnostic marked. */
function drawGutter(editor) {
  const count = lib.lines(editor.textarea.value).length;
  const gutter = editor.gutter;
  gutter.replaceChildren();
  for (let line = 1; line <= count; line++) {
    const number = el("span", editor.errorLines.has(line) ? "error" : "", String(line));
    gutter.append(number, "\n");
  }
  // One more blank line, so a horizontal scrollbar in the textarea never leaves the numbers behind.
  gutter.append("\n");
  gutter.scrollTop = editor.textarea.scrollTop;
}

/**
 * Shows `diagnostics` under the editor: each with its kind and message and,
 * when it has a line in the editor's text, a frame quoting that line with a
 * caret under the column; the line's number is marked in the gutter.
 */
function showDiagnostics(editor, diagnostics) {
  editor.box.replaceChildren();
  editor.errorLines = new Set();
  const text = editor.textarea.value;
  for (const diagnostic of diagnostics) {
    const node = el("div", "diagnostic");
    node.setAttribute("role", "alert");
    if (diagnostic.kind) node.dataset.kind = diagnostic.kind;
    const where = lib.place(text, diagnostic.line, diagnostic.column);
    if (where) {
      node.dataset.line = String(where.line);
      node.dataset.column = String(where.column);
      editor.errorLines.add(where.line);
      const jump = el("button", "where", `line ${where.line}, column ${where.column}`);
      jump.type = "button";
      jump.title = "Put the cursor there";
      jump.addEventListener("click", () => {
        editor.textarea.focus();
        editor.textarea.setSelectionRange(where.offset, where.offset);
      });
      node.append(jump);
    }
    if (diagnostic.kind) node.append(el("code", "kind", diagnostic.kind));
    node.append(el("p", "message", diagnostic.message));
    if (where) {
      const width = String(where.line).length;
      const frame = el("pre", "frame");
      frame.append(
        el("span", "ln", `${String(where.line).padStart(width)} │ `),
        el("span", "src", where.lineText),
        "\n",
        el("span", "ln", `${" ".repeat(width)} │ `),
        el("span", "pad", where.pad),
        el("span", "caret", "^"),
        " ",
        el("span", "under", diagnostic.kind || "here"),
      );
      node.append(frame);
    }
    editor.box.append(node);
  }
  drawGutter(editor);
}

/**
 * The parts of an error the page shows: kind, the message alone (a
 * PromptSuiteError's `reason`: the page draws its own frame), line, column,
 * the quoted snippet and, where the package says it, the origin.
 */
function diagnosticOf(error) {
  if (error && typeof error === "object") {
    const line = Number.isInteger(error.line) ? error.line : null;
    const column = Number.isInteger(error.column) ? error.column : null;
    const kind = typeof error.kind === "string" ? error.kind : null;
    const origin = typeof error.origin === "string" ? error.origin : null;
    const snippet = typeof error.snippet === "string" ? error.snippet : null;
    const message = typeof error.reason === "string" ? error.reason : String(error.message ?? error);
    return { kind, message, line, column, snippet, origin };
  }
  return { kind: null, message: String(error), line: null, column: null, snippet: null, origin: null };
}

/**
 * Which of `texts` (name -> text, in order of preference) a placed error
 * points into: the one its origin names (`<input>`, `<transcript>`; any
 * other origin, `<rendered>` or a template's name, is none of them), else,
 * from a package that names no origin, the first whose text at the error's
 * line and column starts with the error's snippet (the suite quotes the
 * offending text from where it points). Null when none does.
 */
function whose(diagnostic, texts) {
  if (diagnostic.line === null) return null;
  const named = { input: "prompt", "<input>": "prompt", transcript: "conversation", "<transcript>": "conversation" };
  if (diagnostic.origin !== null) return named[diagnostic.origin] ?? null;
  for (const [name, text] of Object.entries(texts)) {
    const where = lib.place(text, diagnostic.line, diagnostic.column);
    if (!where) continue;
    if (diagnostic.snippet === null || text.startsWith(diagnostic.snippet, where.offset)) return name;
  }
  return null;
}

/** A JSON.parse error of `text`, placed where V8 says it is. */
function jsonDiagnostic(text, error) {
  const { line, column } = lib.jsonErrorPosition(text);
  return { kind: "invalid_json", message: String(error.message), line, column };
}

/** Problems without a place in an editor, shown at the top of a panel. */
function showProblems(box, problems) {
  box.replaceChildren();
  for (const problem of problems) {
    const node = el("div", "problem");
    node.setAttribute("role", "alert");
    if (problem.kind) node.append(el("span", "kind", problem.kind));
    node.append(problem.message);
    box.append(node);
  }
}

/** `text` into `pre`, the pieces covered by a layer's ranges in a <mark> of the layer's name. */
function drawHighlighted(pre, text, layers) {
  pre.replaceChildren();
  for (const piece of lib.pieces(text, layers)) {
    if (piece.names.length === 0) pre.append(piece.text);
    else pre.append(el("mark", piece.names.join(" "), piece.text));
  }
}

// --- state ------------------------------------------------------------------------------------

function readState() {
  return {
    mode: document.querySelector("input[name=mode]:checked")?.value ?? "prompt",
    prompt: $("prompt").value,
    contextFormat: $("context-format").value,
    context: $("context").value,
    conversation: $("conversation").value,
    speaker: $("speaker").value,
    provider: $("provider").value,
    seed: $("seed").value,
    chatTemplate: $("chat-template").value,
    messages: $("messages").value,
    addGenerationPrompt: $("add-generation-prompt").checked,
  };
}

function writeState(state) {
  for (const radio of document.querySelectorAll("input[name=mode]")) radio.checked = radio.value === state.mode;
  $("prompt").value = state.prompt;
  $("context-format").value = state.contextFormat;
  $("context").value = state.context;
  $("conversation").value = state.conversation;
  $("speaker").value = state.speaker;
  $("provider").value = state.provider;
  $("seed").value = state.seed;
  $("chat-template").value = state.chatTemplate;
  $("messages").value = state.messages;
  $("add-generation-prompt").checked = state.addGenerationPrompt;
  for (const editor of Object.values(editors)) drawGutter(editor);
}

/** The fragment this page last wrote or read, so its own writes are not read back. */
let currentFragment = "";
/** Whether the last state was too large for the link (its notice is showing). */
let linkTooLarge = false;

const saveFragment = lib.debounce(async () => {
  try {
    const fragment = await lib.encodeFragment(readState());
    if (fragment.length - lib.FRAGMENT_PREFIX.length > lib.MAX_FRAGMENT_CHARS) {
      // A link the page would refuse to read is not written.
      notice(`The page is too large to keep in its link (over ${lib.MAX_FRAGMENT_CHARS} characters compressed); the link holds an earlier state.`);
      linkTooLarge = true;
      return;
    }
    if (linkTooLarge) notice("");
    linkTooLarge = false;
    if (fragment !== currentFragment) {
      currentFragment = fragment;
      history.replaceState(null, "", fragment);
    }
  } catch (err) {
    notice(`The link could not be updated: ${err.message}`);
  }
}, FRAGMENT_DEBOUNCE_MS);

/** Reads the state of the URL's fragment, if it holds one; a bad one is reported, never thrown. */
async function restoreFragment() {
  const hash = location.hash;
  if (hash === currentFragment) return;
  currentFragment = hash;
  try {
    const restored = await lib.decodeFragment(hash);
    if (restored === null) return;
    writeState(restored.state);
    if (restored.rejected.length > 0) {
      notice(`The link's state had fields this page does not take (${restored.rejected.join(", ")}): defaults are used for them.`);
    }
  } catch (err) {
    notice(`This link's state could not be read (${err.message}); the page opened with the example.`);
  }
}

function notice(message) {
  const node = $("notice");
  node.textContent = message;
  node.hidden = !message;
}

// --- the package ------------------------------------------------------------------------------

async function loadPackage() {
  const base = new URL("../pkg/", import.meta.url);
  let manifest;
  try {
    const response = await fetch(new URL("package.json", base));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    manifest = await response.json();
  } catch (err) {
    throw new Error(`the package is not built (../pkg/package.json: ${err.message}): run \`cargo xtask wasm\``);
  }
  const entry = lib.packageEntry(manifest);
  if (!entry) throw new Error("../pkg/package.json names no browser entry");
  const module = await import(new URL(entry, base).href);
  if (typeof module.default === "function") await module.default();
  return module;
}

/** The context editor's value as an object, or throws a diagnostic for the context editor. */
function parseContext(text, format) {
  if (typeof ps.parseContext === "function") {
    try {
      return ps.parseContext(text, { format });
    } catch (err) {
      throw diagnosticOf(err);
    }
  }
  if (format === "toml") {
    throw { kind: "unsupported", message: "this build of the package reads no TOML (it has no parseContext): write the context as JSON", line: null, column: null };
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw jsonDiagnostic(text, err);
  }
}

// --- prompt mode ------------------------------------------------------------------------------

function updatePrompt(state) {
  const found = { prompt: [], context: [], conversation: [], seed: [] };
  const panels = { rendered: [], turns: [], body: [], odds: [] };

  let seed;
  try {
    seed = lib.parseSeed(state.seed);
  } catch (err) {
    found.seed.push({ kind: "invalid_seed", message: err.message });
  }

  let context = null;
  let stores = null;
  try {
    context = parseContext(state.context, state.contextFormat);
    stores = lib.toStores(context);
  } catch (err) {
    found.context.push(err instanceof Error ? { kind: "invalid_context", message: err.message } : err);
  }

  let transcript = null;
  if (state.conversation.trim() !== "") {
    try {
      transcript = JSON.parse(state.conversation);
    } catch (err) {
      found.conversation.push(jsonDiagnostic(state.conversation, err));
    }
  }
  const speaker = state.speaker.trim();
  if (transcript !== null && speaker === "") {
    found.conversation.push({ kind: "missing_speaker", message: "say whose view of the conversation to build: the speaker beside the title" });
  }

  const ready = seed !== undefined && stores !== null && found.conversation.length === 0;
  // What a stage gave but could not carry (a parameter the provider has no
  // field for, ...): shown under the body, never only in the console.
  const notices = [];
  const onNotice = (notice) => notices.push(notice);
  let buildError = null;
  let body = null;
  if (ready) {
    try {
      const options = { provider: state.provider, context, seed, onNotice };
      if (transcript !== null) Object.assign(options, { transcript, speaker });
      body = ps.build(state.prompt, options);
    } catch (err) {
      buildError = diagnosticOf(err);
    }
  }
  // The build's errors are placed in the file the author wrote, or in the
  // conversation; one placed in neither (in the rendered narrative, or with
  // no place) goes above the body, saying where.
  if (buildError) {
    const owner = whose(buildError, { prompt: state.prompt, conversation: state.conversation });
    if (owner) found[owner].push(buildError);
    else {
      const text = buildError.origin === null || buildError.origin === "<rendered>" ? "the rendered text" : buildError.origin;
      const where = buildError.line === null ? "" : ` (line ${buildError.line}, column ${buildError.column} of ${text})`;
      panels.body.push({ ...buildError, message: buildError.message + where });
    }
  }

  // The template stage once more, on its own, for what the body does not
  // show: the rendered text with its data ranges, and the odds.
  let outcome = null;
  let distribution = null;
  if (ready) {
    try {
      const cleaned = ps.comments(state.prompt, { onNotice: () => {} }).cleaned;
      const env = own(new ps.Environment({ syntax: "brackets" }));
      const template = own(env.compile(cleaned));
      outcome = template.renderOutcome({ ...stores, seed });
      try {
        distribution = template.exact({ ...stores, maxPaths: MAX_PATHS });
      } catch (err) {
        panels.odds.push(diagnosticOf(err));
      }
    } catch (err) {
      // The build placed this error in the file already; show it here only when it did not fail.
      const diagnostic = diagnosticOf(err);
      if (!buildError) panels.rendered.push(diagnostic);
      else panels.rendered.push({ kind: null, message: "the prompt has an error: see its diagnostic" });
    }
  } else {
    panels.rendered.push({ kind: null, message: "fix the inputs' diagnostics to render" });
  }

  // Rendered text, data highlighted.
  if (outcome) {
    drawHighlighted($("rendered"), String(outcome.output), [{ name: "data", ranges: outcome.dataRanges }]);
  } else {
    $("rendered").replaceChildren();
  }

  // Turns: the narrative's, then the conversation's as the speaker sees it.
  const turns = $("turns");
  turns.replaceChildren();
  if (outcome) {
    try {
      // The build reported these stages' notices already.
      const quiet = { onNotice: () => {} };
      for (const turn of ps.segment(String(outcome.output), quiet)) turns.append(turnItem(turn, "prompt"));
      if (transcript !== null && speaker !== "") {
        for (const message of ps.flip(transcript, speaker, quiet)) turns.append(turnItem(message, `conversation, as ${speaker}`));
      }
    } catch (err) {
      panels.turns.push(diagnosticOf(err));
    }
  }

  $("body-provider").textContent = $("provider").selectedOptions[0]?.textContent ?? state.provider;
  $("body").textContent = body === null ? "" : lib.toJson(body);
  const noticeList = $("body-notices");
  noticeList.replaceChildren();
  for (const notice of notices) {
    const item = el("li", "notice-item");
    if (notice && typeof notice.kind === "string") item.append(el("code", "kind", notice.kind), " ");
    item.append(notice && typeof notice.message === "string" ? notice.message : lib.toJson(notice));
    noticeList.append(item);
  }

  drawOdds(distribution);

  for (const [name, list] of Object.entries(found)) {
    if (name === "seed") showProblems($("seed-diagnostics"), list);
    else showDiagnostics(editors[name], list);
  }
  showProblems($("rendered-problems"), panels.rendered);
  showProblems($("turns-problems"), panels.turns);
  showProblems($("body-problems"), panels.body);
  showProblems($("odds-problems"), panels.odds);
}

/** A turn or message: its role, where it came from, and its content (text parts as text, others as JSON). */
function turnItem(turn, origin) {
  const item = el("li", "turn");
  const role = turn && typeof turn.role === "string" ? turn.role : "?";
  item.dataset.role = role;
  item.append(el("span", "role", role), el("span", "origin", origin));
  const content = turn && typeof turn === "object" && "content" in turn ? turn.content : turn;
  const parts = Array.isArray(content) ? content : [content];
  for (const part of parts) {
    if (typeof part === "string") item.append(el("pre", "", part));
    else if (part && part.type === "text" && typeof part.text === "string") item.append(el("pre", "", part.text));
    else item.append(el("pre", "part", lib.toJson(part)));
  }
  return item;
}

function drawOdds(distribution) {
  const box = $("odds");
  box.replaceChildren();
  if (!distribution) return;
  const rows = lib.oddsRows(distribution);
  const paths = Number(distribution.paths);
  if (rows.length <= 1) {
    box.append(el("p", "info", "The template has no random choice that changes its output."));
  }
  if (rows.length === 0) return;
  if (Number.isFinite(paths)) {
    box.append(el("p", "info", `${rows.length} distinct output${rows.length === 1 ? "" : "s"} from ${paths} random path${paths === 1 ? "" : "s"}.`));
  }
  const table = el("table", "odds");
  const head = el("tr");
  head.append(el("th", "", "probability"), el("th", "", "output"));
  table.append(head);
  for (const row of rows.slice(0, MAX_ODDS_ROWS)) {
    const tr = el("tr");
    const p = el("td", "p", lib.percent(row.probability));
    const meter = el("div", "meter");
    const bar = el("div", "meter-fill");
    bar.style.width = `${Math.max(0, Math.min(1, row.probability)) * 100}%`;
    meter.append(bar);
    p.append(meter);
    const output = el("td");
    output.append(el("pre", "", row.output));
    tr.append(p, output);
    table.append(tr);
  }
  box.append(table);
  if (rows.length > MAX_ODDS_ROWS) box.append(el("p", "info", `and ${rows.length - MAX_ODDS_ROWS} less likely outputs`));
}

// --- chat template mode -----------------------------------------------------------------------

function updateChat(state) {
  const found = { "chat-template": [], messages: [] };
  const problems = [];
  let messages = null;
  try {
    messages = JSON.parse(state.messages);
  } catch (err) {
    found.messages.push(jsonDiagnostic(state.messages, err));
  }
  let outcome = null;
  if (messages !== null) {
    try {
      outcome = ps.applyChatTemplateOutcome(state.chatTemplate, messages, { addGenerationPrompt: state.addGenerationPrompt });
    } catch (err) {
      const diagnostic = diagnosticOf(err);
      if (diagnostic.line !== null) found["chat-template"].push(diagnostic);
      else problems.push(diagnostic);
    }
  }
  if (outcome) {
    drawHighlighted($("chat-rendered"), String(outcome.output), [
      { name: "data", ranges: outcome.dataRanges },
      { name: "generation", ranges: outcome.generationRanges },
    ]);
  } else {
    $("chat-rendered").replaceChildren();
  }
  showDiagnostics(editors["chat-template"], found["chat-template"]);
  showDiagnostics(editors.messages, found.messages);
  showProblems($("chat-problems"), problems);
}

// --- wiring -----------------------------------------------------------------------------------

let updates = 0;

function update() {
  if (!ps) return;
  document.body.dataset.pending = "0";
  const state = readState();
  $("prompt-mode").hidden = state.mode !== "prompt";
  $("chat-mode").hidden = state.mode !== "chat";
  const started = performance.now();
  try {
    if (state.mode === "prompt") updatePrompt(state);
    else updateChat(state);
  } catch (err) {
    notice(`The page failed: ${err && err.message}`);
  } finally {
    releaseAll();
  }
  updates += 1;
  document.body.dataset.updates = String(updates);
  if (typeof ps.wasmMemoryBytes === "function") document.body.dataset.wasmBytes = String(ps.wasmMemoryBytes());
  $("timing").textContent = `updated in ${(performance.now() - started).toFixed(1)} ms`;
}

const scheduleUpdate = lib.debounce(update, DEBOUNCE_MS);

function changed() {
  // Until the debounced update runs, what is drawn is behind the editors.
  document.body.dataset.pending = "1";
  scheduleUpdate();
  saveFragment();
}

async function main() {
  for (const name of ["prompt", "context", "conversation", "chat-template", "messages"]) setupEditor(name);
  writeState(lib.DEFAULT_STATE);
  await restoreFragment();

  document.body.addEventListener("input", changed);
  document.body.addEventListener("change", changed);
  window.addEventListener("hashchange", async () => {
    await restoreFragment();
    update();
  });
  // Alt+P and Alt+T switch modes, Alt+L copies the link, wherever the focus is.
  document.addEventListener("keydown", (event) => {
    if (!event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const mode = { KeyP: "prompt", KeyT: "chat" }[event.code];
    if (mode) {
      const radio = document.querySelector(`input[name=mode][value=${mode}]`);
      radio.checked = true;
      radio.focus();
      changed();
      update();
    } else if (event.code === "KeyL") {
      $("copy-link").click();
    } else return;
    event.preventDefault();
  });
  $("reroll").addEventListener("click", () => {
    const seed = crypto.getRandomValues(new Uint32Array(1))[0];
    $("seed").value = String(seed);
    changed();
  });
  $("reset").addEventListener("click", () => {
    writeState(lib.DEFAULT_STATE);
    notice("");
    changed();
  });
  $("copy-link").addEventListener("click", async () => {
    const fragment = await lib.encodeFragment(readState());
    if (fragment.length - lib.FRAGMENT_PREFIX.length > lib.MAX_FRAGMENT_CHARS) {
      notice(`The page is too large to keep in its link (over ${lib.MAX_FRAGMENT_CHARS} characters compressed).`);
      return;
    }
    currentFragment = fragment;
    history.replaceState(null, "", fragment);
    try {
      await navigator.clipboard.writeText(location.href);
      $("copy-link").textContent = "Link copied";
    } catch {
      $("copy-link").textContent = "Link in the address bar";
    }
    setTimeout(() => ($("copy-link").textContent = "Copy link"), 2000);
  });

  try {
    ps = await loadPackage();
  } catch (err) {
    notice(`The package could not be loaded: ${err.message}`);
    document.body.dataset.ready = "failed";
    return;
  }
  $("version").textContent = typeof ps.version === "string" ? `v${ps.version}` : "";
  const toml = document.querySelector("#context-format option[value=toml]");
  // Without a TOML reader in the package the choice is not offered (a link
  // that asks for it gets a diagnostic under the context instead).
  if (typeof ps.parseContext !== "function") toml.hidden = toml.disabled = true;
  update();
  document.body.dataset.ready = "ready";
}

main();
