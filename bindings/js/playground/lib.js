// The playground's pure parts: no DOM and no package, so node's test runner
// checks them (lib.test.mjs) and the page (playground.js) only draws.
//
// Every input here is hostile: a shared link's fragment, a range list from
// the package, a diagnostic's line and column. Nothing here throws on bad
// input except where it says so, and nothing becomes markup: the page builds
// its DOM from these values with textContent.

/** The providers `build` accepts, in the command line's order. */
export const PROVIDERS = ["openai", "openai-responses", "anthropic", "gemini"];

/** The longest fragment read (characters after `#s=`): a link of about 96 KB. */
export const MAX_FRAGMENT_CHARS = 128 * 1024;

/** The most bytes a fragment may inflate to (a deflate bomb stops here). */
export const MAX_STATE_BYTES = 1024 * 1024;

/** How the fragment starts: the version of its format. */
export const FRAGMENT_PREFIX = "#s1=";

/** Everything the page keeps in the fragment, with the defaults a new page opens with. */
export const DEFAULT_STATE = Object.freeze({
  mode: "prompt",
  prompt: [
    "/// A greeter. Lines of three slashes are for the authors; the model never sees them.",
    "/// param: model=gpt-4o-mini, temperature=0.7, max_tokens=200",
    "You are [[ bot ]], the assistant of [[ shop ]].",
    "[% chance 0.25 %]Open with a joke about the weather.[% elif 0.5 %]Open with a compliment.[% else %]Open plainly.[% endchance %]",
    "",
    "## user",
    "[[ question ]]",
    "",
  ].join("\n"),
  contextFormat: "json",
  context: '{\n  "bot": "Penny",\n  "shop": "Acme Store",\n  "question": "Where is my parcel?"\n}\n',
  conversation: "",
  speaker: "",
  provider: "openai",
  seed: "1",
  chatTemplate: [
    "{%- for message in messages %}",
    "<|im_start|>{{ message.role }}",
    "{% if message.role == 'assistant' %}{% generation %}{{ message.content }}{% endgeneration %}{% else %}{{ message.content }}{% endif %}<|im_end|>",
    "{% endfor %}",
    "{%- if add_generation_prompt %}<|im_start|>assistant",
    "{% endif %}",
  ].join("\n"),
  messages: [
    "[",
    '  {"role": "system", "content": "You are a terse assistant."},',
    '  {"role": "user", "content": "Name a prime."},',
    '  {"role": "assistant", "content": "7"},',
    '  {"role": "user", "content": "Another."}',
    "]",
    "",
  ].join("\n"),
  addGenerationPrompt: true,
});

/** The modes and context formats the page knows. */
export const MODES = ["prompt", "chat"];
export const CONTEXT_FORMATS = ["json", "toml"];

/**
 * A state read from anywhere (a fragment, a test) made safe: only the known
 * keys, each of its type (strings capped at MAX_STATE_BYTES characters), enums
 * among their values; anything else takes the default. Returns the state and
 * the names of the keys that were dropped or replaced.
 */
export function sanitizeState(value) {
  const state = { ...DEFAULT_STATE };
  const rejected = [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { state, rejected: ["(not an object)"] };
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(DEFAULT_STATE, key)) {
      rejected.push(key);
      continue;
    }
    const given = value[key];
    const wanted = typeof DEFAULT_STATE[key];
    let ok = typeof given === wanted;
    if (ok && wanted === "string" && given.length > MAX_STATE_BYTES) ok = false;
    if (ok && key === "mode") ok = MODES.includes(given);
    if (ok && key === "contextFormat") ok = CONTEXT_FORMATS.includes(given);
    if (ok && key === "provider") ok = PROVIDERS.includes(given);
    if (ok) state[key] = given;
    else rejected.push(key);
  }
  return { state, rejected };
}

// --- the URL fragment -------------------------------------------------------------------------

/** Bytes as base64url without padding. */
export function toBase64Url(bytes) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** base64url (padding optional) as bytes; throws FragmentError on anything else. */
export function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(text) || text.replace(/=+$/, "").length % 4 === 1) {
    throw new FragmentError("the link's state is not base64url");
  }
  const binary = atob(text.replace(/=+$/, "").replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Why a fragment could not be read (shown to the user; never thrown for a missing fragment). */
export class FragmentError extends Error {
  constructor(message) {
    super(message);
    this.name = "FragmentError";
  }
}

async function pipe(bytes, transform, limit) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  const reader = stream.getReader();
  const chunks = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel();
      throw new FragmentError(`the link's state inflates past ${limit} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The fragment for `state`: `#s1=` and the deflated JSON as base64url. */
export async function encodeFragment(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  const packed = await pipe(json, new CompressionStream("deflate-raw"), Infinity);
  return FRAGMENT_PREFIX + toBase64Url(packed);
}

/**
 * The state a fragment holds: null for an empty fragment or one that is not
 * the playground's; throws FragmentError when it is the playground's but
 * cannot be read (too long, not base64url, not deflate, too large inflated,
 * not UTF-8, not JSON). The result is sanitized (sanitizeState).
 */
export async function decodeFragment(hash) {
  if (typeof hash !== "string" || !hash.startsWith(FRAGMENT_PREFIX)) return null;
  const body = hash.slice(FRAGMENT_PREFIX.length);
  if (body.length > MAX_FRAGMENT_CHARS) {
    throw new FragmentError(`the link's state is longer than ${MAX_FRAGMENT_CHARS} characters`);
  }
  const packed = fromBase64Url(body);
  let bytes;
  try {
    bytes = await pipe(packed, new DecompressionStream("deflate-raw"), MAX_STATE_BYTES);
  } catch (err) {
    if (err instanceof FragmentError) throw err;
    throw new FragmentError("the link's state is not deflate data");
  }
  let text;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new FragmentError("the link's state is not UTF-8");
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FragmentError("the link's state is not JSON");
  }
  return sanitizeState(value);
}

// --- ranges -----------------------------------------------------------------------------------

/**
 * `text` cut into pieces at every range boundary of every layer, each piece
 * with the names of the layers whose ranges cover it. A layer is
 * `{ name, ranges }`, ranges half-open `[start, end)` in UTF-16 code units;
 * a range that is not two integers, is empty or reversed is skipped, one
 * past the text is clipped. Overlapping ranges of a layer merge.
 * The pieces cover the text exactly, in order.
 */
export function pieces(text, layers) {
  const length = text.length;
  const events = new Map(); // position -> per-layer deltas
  const add = (at, layer, delta) => {
    let deltas = events.get(at);
    if (!deltas) events.set(at, (deltas = new Array(layers.length).fill(0)));
    deltas[layer] += delta;
  };
  layers.forEach((layer, index) => {
    const ranges = Array.isArray(layer.ranges) ? layer.ranges : [];
    for (const range of ranges) {
      if (!Array.isArray(range) && !ArrayBuffer.isView(range)) continue;
      const start = Math.max(0, Number(range[0]));
      const end = Math.min(length, Number(range[1]));
      if (!Number.isInteger(start) || !Number.isInteger(end) || start >= end) continue;
      add(start, index, 1);
      add(end, index, -1);
    }
  });
  const points = [...events.keys()].sort((a, b) => a - b);
  const depth = new Array(layers.length).fill(0);
  const out = [];
  let at = 0;
  const push = (end) => {
    if (end <= at) return;
    const names = layers.filter((_, i) => depth[i] > 0).map((layer) => layer.name);
    const last = out[out.length - 1];
    if (last && last.names.join(" ") === names.join(" ")) last.text += text.slice(at, end);
    else out.push({ text: text.slice(at, end), names });
    at = end;
  };
  for (const point of points) {
    push(point);
    events.get(point).forEach((delta, i) => (depth[i] += delta));
  }
  push(length);
  return out;
}

// --- diagnostics ------------------------------------------------------------------------------

/** The lines of `text` as the suite counts them: split at LF, a CR before it dropped. */
export function lines(text) {
  return text.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
}

/**
 * Where a diagnostic at 1-based `line` and `column` (in characters, as the
 * suite counts them: code points, a byte order mark at the start not
 * counted) sits in `text`: the line's text, the whitespace that puts a caret
 * under the column (tabs kept, so it lines up), and the UTF-16 offset of
 * that place. Null when the line is not in the text. A column past the end
 * of the line points just after it.
 */
export function place(text, line, column) {
  if (!Number.isInteger(line) || line < 1) return null;
  const all = lines(text);
  if (line > all.length) return null;
  let lineText = all[line - 1];
  let offset = 0;
  for (let i = 0; i < line - 1; i++) offset += text.indexOf("\n", offset) + 1 - offset;
  if (line === 1 && lineText.startsWith("\ufeff")) {
    lineText = lineText.slice(1);
    offset += 1;
  }
  const chars = Array.from(lineText);
  const col = Number.isInteger(column) && column >= 1 ? Math.min(column, chars.length + 1) : 1;
  const before = chars.slice(0, col - 1);
  const pad = before.map((ch) => (ch === "\t" ? "\t" : " ")).join("");
  return { line, column: col, lineText, pad, offset: offset + before.join("").length };
}

/**
 * The line and column of the first syntax error of `text` as JSON (the
 * place `JSON.parse` refused: V8's message names it only sometimes), found
 * by walking the JSON grammar; nulls when the walk finds none.
 */
export function jsonErrorPosition(text) {
  const offset = jsonErrorOffset(text);
  return offset === null ? { line: null, column: null } : positionOf(text, offset);
}

/** The UTF-16 offset of the first JSON syntax error of `text`, or null when it is JSON. */
export function jsonErrorOffset(text) {
  let i = 0;
  const fail = () => {
    throw i;
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const literal = (word) => {
    for (const ch of word) if (text[i++] !== ch) (i--, fail());
  };
  const string = () => {
    i++; // the opening quote
    for (;;) {
      if (i >= text.length) fail();
      const ch = text[i];
      if (ch === '"') return void i++;
      if (ch < " ") fail();
      if (ch === "\\") {
        i++;
        if ('"\\/bfnrt'.includes(text[i]) && i < text.length) i++;
        else if (text[i] === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 1, i + 5))) i += 5;
        else fail();
      } else i++;
    }
  };
  const number = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 4096));
    if (!match || match[0] === "" || match[0] === "-") fail();
    i += match[0].length;
  };
  const key = () => {
    space();
    if (text[i] !== '"') fail();
    string();
    space();
    if (text[i] !== ":") fail();
    i++;
  };
  // A loop over an explicit stack, not recursion: deep nesting cannot overflow.
  const stack = [];
  let wantValue = true;
  try {
    for (;;) {
      space();
      if (wantValue) {
        const ch = text[i];
        wantValue = false;
        if (ch === "{" || ch === "[") {
          i++;
          space();
          const close = ch === "{" ? "}" : "]";
          if (text[i] === close) {
            i++;
            continue;
          }
          stack.push(close);
          if (ch === "{") key();
          wantValue = true;
        } else if (ch === '"') string();
        else if (ch === "t") literal("true");
        else if (ch === "f") literal("false");
        else if (ch === "n") literal("null");
        else if (ch === "-" || (ch >= "0" && ch <= "9")) number();
        else fail();
        continue;
      }
      if (stack.length === 0) break;
      const close = stack[stack.length - 1];
      if (text[i] === ",") {
        i++;
        if (close === "}") key();
        wantValue = true;
      } else if (text[i] === close) {
        i++;
        stack.pop();
      } else fail();
    }
    space();
    return i < text.length ? i : null;
  } catch (offset) {
    if (typeof offset !== "number") throw offset;
    return Math.min(offset, text.length);
  }
}

/** The 1-based line and column (in code points) of UTF-16 `offset` of `text`. */
export function positionOf(text, offset) {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const lineStart = before.lastIndexOf("\n") + 1;
  let head = before.slice(lineStart);
  if (line === 1 && head.startsWith("\ufeff")) head = head.slice(1);
  return { line, column: Array.from(head).length + 1 };
}

// --- contexts and seeds -----------------------------------------------------------------------

const STORES = ["state", "local", "global"];

/**
 * The template stores of a context, by the suite's one rule: an object whose
 * keys are all `state`, `local` or `global` holds those stores (each
 * optional); any other object is the state store itself. A mix is an error,
 * as is a non-object. Throws a plain Error naming the problem.
 */
export function toStores(value) {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new Error("the context is not an object: write the state store, or {\"state\": {...}, \"local\": {...}, \"global\": {...}}");
  }
  const keys = Object.keys(value);
  const storeKeys = keys.filter((key) => STORES.includes(key));
  if (storeKeys.length === 0) return { state: value, local: {}, global: {} };
  const stray = keys.find((key) => !STORES.includes(key));
  if (stray !== undefined) {
    throw new Error(`the context mixes stores (${storeKeys.join(", ")}) with the variable \`${stray}\`: put it inside "state"`);
  }
  const stores = {};
  for (const key of STORES) {
    const store = value[key] ?? {};
    if (store === null || typeof store !== "object" || Array.isArray(store)) {
      throw new Error(`the context's \`${key}\` store is not an object`);
    }
    stores[key] = store;
  }
  return stores;
}

/** A seed as the package takes it (a number, or a BigInt past 2^53), or throws a plain Error. */
export function parseSeed(text) {
  const trimmed = String(text).trim();
  if (!/^\d{1,20}$/.test(trimmed)) throw new Error("the seed is a whole number from 0 to 18446744073709551615");
  const big = BigInt(trimmed);
  if (big > 0xffffffffffffffffn) throw new Error("the seed is a whole number from 0 to 18446744073709551615");
  return big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
}

/**
 * A value the package returned, as indented JSON: Maps as objects, BigInts
 * as the exact integer, typed arrays as arrays, `undefined` as null. Written
 * here rather than with JSON.stringify, which refuses BigInts.
 */
export function toJson(value, indent = "") {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "bigint":
      return value.toString();
    case "number":
      return Number.isFinite(value) ? String(value) : "null";
    case "boolean":
      return String(value);
    case "string":
      return JSON.stringify(value);
    case "object":
      break;
    default:
      return "null";
  }
  const inner = indent + "  ";
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const items = Array.from(value, (item) => inner + toJson(item, inner));
    return items.length === 0 ? "[]" : `[\n${items.join(",\n")}\n${indent}]`;
  }
  const entries = value instanceof Map ? [...value.entries()] : Object.entries(value);
  const items = entries.map(([key, item]) => `${inner}${JSON.stringify(String(key))}: ${toJson(item, inner)}`);
  return items.length === 0 ? "{}" : `{\n${items.join(",\n")}\n${indent}}`;
}

/**
 * The odds the package reported, as `[{ output, probability }]`, most likely
 * first, whatever shape they came in: `{ outputs: {text: p} }` (the command
 * line's), `{ outputs: [[text, p], ...] }`, or `outputs` as a Map.
 */
export function oddsRows(distribution) {
  const outputs = distribution && distribution.outputs;
  let entries = [];
  if (outputs instanceof Map) entries = [...outputs.entries()];
  else if (Array.isArray(outputs)) {
    entries = outputs.map((row) => (Array.isArray(row) ? row : [row && row.output, row && row.probability]));
  } else if (outputs && typeof outputs === "object") entries = Object.entries(outputs);
  return entries
    .filter(([output, p]) => typeof output === "string" && typeof p === "number" && Number.isFinite(p))
    .map(([output, probability]) => ({ output, probability }))
    .sort((a, b) => b.probability - a.probability);
}

/** A probability as a percentage for people: up to 4 significant digits, exact 0 and 100 kept. */
export function percent(p) {
  if (p === 1) return "100 %";
  if (p === 0) return "0 %";
  return `${Number((p * 100).toPrecision(4))} %`;
}

/** A function that calls `fn` once `ms` after the last of a burst of calls. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/**
 * The file a browser imports from the package's `package.json`: the
 * `browser`, then `import`, then `default` condition of `exports["."]`
 * (nested conditions followed), else `browser`, `module` or `main`. Null
 * when the manifest names none. Only a relative path inside the package is
 * taken (`./x.js`), never a URL or a path out of it.
 */
export function packageEntry(manifest) {
  const inside = (path) =>
    typeof path === "string" && path.startsWith("./") && !path.split("/").includes("..") && !path.includes("\\")
      ? path
      : null;
  const pick = (target, depth) => {
    if (depth > 8) return null;
    if (typeof target === "string") return inside(target);
    if (Array.isArray(target)) {
      for (const item of target) {
        const found = pick(item, depth + 1);
        if (found) return found;
      }
      return null;
    }
    if (target && typeof target === "object") {
      for (const condition of ["browser", "import", "default"]) {
        if (Object.hasOwn(target, condition)) {
          const found = pick(target[condition], depth + 1);
          if (found) return found;
        }
      }
    }
    return null;
  };
  if (!manifest || typeof manifest !== "object") return null;
  const exports = manifest.exports;
  if (exports !== undefined) {
    const root =
      exports && typeof exports === "object" && !Array.isArray(exports) && Object.hasOwn(exports, ".")
        ? exports["."]
        : exports;
    const found = pick(root, 0);
    if (found) return found;
  }
  for (const field of ["browser", "module", "main"]) {
    const value = manifest[field];
    const found = typeof value === "string" ? inside(value.startsWith("./") ? value : `./${value}`) : null;
    if (found) return found;
  }
  return null;
}
