// The public API of the package `prompt-suite`: JavaScript values in, the
// WebAssembly module's calls (bindings/js/src, over the Rust crates) out.
// Nothing here decides a rule of the suite: this file checks that values
// can cross (and says where one cannot), writes them as JSON, and turns
// the module's failures into `PromptSuiteError`s.

import * as raw from "./prompt_suite_wasm.js";
import { register, retain, release, setWriter, heldCount } from "./host.js";

/** The workspace version (set when the module is initialized). */
export let version;

let maxDepth = 128;
let memory = null;

/** Called by node.js / browser.js once the module is initialized. */
export function _ready(exports) {
  version = raw.version();
  maxDepth = raw.jsonMaxDepth();
  memory = exports && exports.memory ? exports.memory : null;
}

/**
 * The bytes of WebAssembly memory the package holds now (it grows when a
 * call needs more and never shrinks; a loop that frees what it makes keeps
 * it flat).
 */
export function wasmMemoryBytes() {
  return memory ? memory.buffer.byteLength : 0;
}

/** How many host filters, tests and functions are held (not yet freed). */
export function hostCallableCount() {
  return heldCount();
}

// --- errors ------------------------------------------------------------------------------

/**
 * Every error the suite reports: `kind` (the command line's snake_case kind),
 * `message` (the diagnostic drawn for people: kind, message, where, the
 * source line underlined, help), `reason` (the message alone), `line` and
 * `column` (1-based, characters), `snippet` and `origin` (the text they are
 * in: `<input>`, `<rendered>`, `<transcript>` or a template's name); null
 * where not placed.
 */
export class PromptSuiteError extends Error {
  constructor(kind, message, { reason = message, line = null, column = null, snippet = null, origin = null } = {}) {
    super(message);
    this.name = "PromptSuiteError";
    this.kind = kind;
    this.reason = reason;
    this.line = line;
    this.column = column;
    this.snippet = snippet;
    this.origin = origin;
  }
}

function fromFailure(failure) {
  const err = new PromptSuiteError(failure.kind, failure.text, {
    reason: failure.reason,
    line: failure.line ?? null,
    column: failure.column ?? null,
    snippet: failure.snippet ?? null,
    origin: failure.origin ?? null,
  });
  failure.free();
  return err;
}

/** Runs a module call, turning its failure into a PromptSuiteError. */
function call(run) {
  try {
    return run();
  } catch (err) {
    if (err instanceof raw.Failure) throw fromFailure(err);
    throw err;
  }
}

// --- values ------------------------------------------------------------------------------

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function step(path, key) {
  return typeof key === "number" ? `${path}[${key}]` : IDENT.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

function isPlainObject(value) {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const U64_MAX = 2n ** 64n - 1n;

/**
 * The JSON text of `value`: plain objects, arrays, strings, finite numbers,
 * BigInts within 64-bit signed integers, booleans and null. Anything else (undefined, a
 * function, a symbol, NaN, a Date, a Map, a class instance, a value nested
 * deeper than the suite's JSON limit, which a value containing itself is)
 * is a TypeError naming where it is (`state.items[2]`).
 */
export function toJsonText(value, path) {
  return write(value, path, 0);
}

function write(value, path, depth) {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "boolean":
      return value ? "true" : "false";
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${path} is ${value}, a number JSON cannot hold`);
      return JSON.stringify(value);
    case "bigint":
      if (value < I64_MIN || value > I64_MAX) throw new TypeError(`${path} is ${value}, outside the 64-bit range of JSON integers`);
      return value.toString();
    case "object": {
      if (value === null) return "null";
      if (depth >= maxDepth) {
        throw new TypeError(`${path} is nested deeper than ${maxDepth} levels (a value that contains itself?)`);
      }
      if (Array.isArray(value)) {
        let out = "[";
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out += ",";
          if (!(i in value)) throw new TypeError(`${path}[${i}] is a hole in the array`);
          out += write(value[i], step(path, i), depth + 1);
        }
        return out + "]";
      }
      if (!isPlainObject(value)) {
        const what = value.constructor && value.constructor.name ? `a ${value.constructor.name}` : "an object with a prototype";
        throw new TypeError(`${path} is ${what}: values must be plain objects, arrays, strings, numbers, booleans or null`);
      }
      let out = "{";
      let first = true;
      for (const key of Object.keys(value)) {
        if (!first) out += ",";
        first = false;
        out += JSON.stringify(key) + ":" + write(value[key], step(path, key), depth + 1);
      }
      return out + "}";
    }
    default:
      throw new TypeError(`${path} is ${typeof value}: values must be plain objects, arrays, strings, numbers, booleans or null`);
  }
}

setWriter(toJsonText);

function objectText(value, path) {
  if (value === undefined || value === null) return "{}";
  if (typeof value !== "object" || Array.isArray(value) || !isPlainObject(value)) {
    throw new TypeError(`${path} must be a plain object`);
  }
  return toJsonText(value, path);
}

function string(value, name) {
  if (typeof value !== "string") throw new TypeError(`${name} must be a string, not ${describe(value)}`);
  return value;
}

function optionalString(value, name) {
  return value === undefined || value === null ? undefined : string(value, name);
}

function describe(value) {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

function options(given, allowed, name) {
  if (given === undefined || given === null) return {};
  if (typeof given !== "object" || Array.isArray(given)) throw new TypeError(`${name} must be an object`);
  for (const key of Object.keys(given)) {
    if (!allowed.includes(key)) {
      throw new TypeError(`${name} has no option ${JSON.stringify(key)} (expected one of: ${allowed.join(", ")})`);
    }
  }
  return given;
}

function index(value, name) {
  if (!Number.isSafeInteger(value) || value < 0 || value > 0xffffffff) {
    throw new TypeError(`${name} must be a message index (a whole number from 0), not ${String(value)}`);
  }
  return value;
}

/** A seed: a whole number from 0 below 2^53, or a BigInt below 2^64; none draws one. */
function seedOf(seed) {
  if (seed === undefined || seed === null) {
    const words = new Uint32Array(2);
    if (globalThis.crypto && globalThis.crypto.getRandomValues) globalThis.crypto.getRandomValues(words);
    else for (let i = 0; i < 2; i++) words[i] = Math.floor(Math.random() * 2 ** 32);
    const drawn = (words[0] & 0x1fffff) * 2 ** 32 + words[1];
    return { big: BigInt(drawn), given: drawn };
  }
  if (typeof seed === "bigint") {
    if (seed < 0n || seed > U64_MAX) throw new TypeError(`seed must be from 0 to 2^64 - 1, not ${seed}`);
    return { big: seed, given: seed };
  }
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new TypeError(`seed must be a whole number from 0 below 2^53 (or a BigInt), not ${String(seed)}`);
  }
  return { big: BigInt(seed), given: seed };
}

/** Named byte arrays as the module takes them: names, one buffer, lengths. */
function entries(attachments, name) {
  if (attachments === undefined || attachments === null) return ["[]", new Uint8Array(0), new Uint32Array(0)];
  if (typeof attachments !== "object" || Array.isArray(attachments)) throw new TypeError(`${name} must be an object of Uint8Arrays`);
  const names = Object.keys(attachments);
  const pieces = names.map((key) => {
    const bytes = attachments[key];
    if (typeof bytes === "string") return new TextEncoder().encode(bytes);
    if (!(bytes instanceof Uint8Array)) throw new TypeError(`${step(name, key)} must be a Uint8Array (or a string)`);
    return bytes;
  });
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
  const all = new Uint8Array(total);
  const lengths = new Uint32Array(pieces.length);
  let at = 0;
  pieces.forEach((piece, i) => {
    all.set(piece, at);
    lengths[i] = piece.length;
    at += piece.length;
  });
  return [JSON.stringify(names), all, lengths];
}

/** `{text}` for the caller's own JSON text, `{value}` for a value. */
function jsonArg(value, name) {
  return typeof value === "string" ? `{"text":${JSON.stringify(value)}}` : `{"value":${toJsonText(value, name)}}`;
}

function notify(notices, onNotice) {
  for (const notice of notices) {
    if (onNotice) onNotice(notice);
    else console.warn(`prompt-suite: ${notice.kind}: ${notice.message}`);
  }
}

function withNotices(text, onNotice) {
  const { body, notices } = JSON.parse(text);
  notify(notices, onNotice);
  return body;
}

// --- memory ------------------------------------------------------------------------------

// What a wrapper holds in the module, released when it is collected
// without `free()`.
const finalizer = new FinalizationRegistry((held) => held.release());

class Held {
  constructor(rawObject, hosts) {
    this.raw = rawObject;
    this.hosts = hosts;
  }

  release() {
    if (this.raw) {
      this.raw.free();
      this.raw = null;
      release(this.hosts);
      this.hosts = [];
    }
  }
}

function live(held, what) {
  if (!held.raw) throw new TypeError(`this ${what} was freed`);
  return held.raw;
}

// --- templates ---------------------------------------------------------------------------

const ENVIRONMENT_OPTIONS = ["syntax", "profile", "trimBlocks", "lstripBlocks", "strict", "templates"];

/**
 * A template environment: the syntax (`"brackets"` or `"jinja"`), the
 * profile (`"reference"` or `"jinja2"`), whitespace options, strict
 * undefined values, host filters, tests and functions, and the templates
 * include, import and extends find (`templates`, by name).
 */
export class Environment {
  #held;

  constructor(opts) {
    const o = options(opts, ENVIRONMENT_OPTIONS, "Environment options");
    this.syntax = optionalString(o.syntax, "syntax") ?? "brackets";
    this.profile = optionalString(o.profile, "profile") ?? "reference";
    const env = call(() => new raw.Env(this.syntax, this.profile, Boolean(o.trimBlocks), Boolean(o.lstripBlocks), Boolean(o.strict)));
    this.#held = new Held(env, []);
    finalizer.register(this, this.#held, this);
    if (o.templates !== undefined && o.templates !== null) {
      if (typeof o.templates !== "object" || Array.isArray(o.templates)) throw new TypeError("templates must be an object of strings");
      for (const [name, source] of Object.entries(o.templates)) this.addTemplate(name, source);
    }
  }

  /** Adds (or replaces) the template `name` for include, import and extends. */
  addTemplate(name, source) {
    string(name, "name");
    string(source, "source");
    const env = live(this.#held, "Environment");
    call(() => env.addTemplate(name, source));
    return this;
  }

  /**
   * Adds (or replaces) a filter, used as `value -> name(args)` (brackets) or
   * `value | name(args)` (Jinja): called as `fn(value, ...args)`, with an
   * object of the keyword arguments last when there are any. What it
   * throws fails the render (`invalid_operation`).
   */
  addFilter(name, fn) {
    return this.#addHost(0, name, fn, "addFilter");
  }

  /** Adds (or replaces) a test, used as `value is name(args)`; its result is taken as a boolean. */
  addTest(name, fn) {
    return this.#addHost(1, name, fn, "addTest");
  }

  /** Adds (or replaces) a global function, used as `name(args)`. */
  addFunction(name, fn) {
    return this.#addHost(2, name, fn, "addFunction");
  }

  #addHost(kind, name, fn, method) {
    string(name, "name");
    if (typeof fn !== "function") throw new TypeError(`${method}: the second argument must be a function`);
    const env = live(this.#held, "Environment");
    const id = register(fn);
    this.#held.hosts.push(id);
    call(() => env.addHost(kind, name, id));
    return this;
  }

  /** Compiles `source` with what the environment holds now. */
  compile(source) {
    string(source, "source");
    const env = live(this.#held, "Environment");
    const compiled = call(() => env.compile(source));
    const hosts = [...this.#held.hosts];
    retain(hosts);
    return new Template(compiled, hosts);
  }

  /** Releases the environment's memory now (templates compiled from it stay usable). */
  free() {
    finalizer.unregister(this);
    this.#held.release();
  }
}

const RENDER_OPTIONS = ["state", "local", "global", "seed"];

function contextText(o) {
  return `{"state":${objectText(o.state, "state")},"local":${objectText(o.local, "local")},"global":${objectText(o.global, "global")}}`;
}

/** A compiled template: renders any number of times. */
export class Template {
  #held;

  constructor(compiled, hosts) {
    if (!(compiled instanceof raw.Tpl)) throw new TypeError("templates are made by Environment.compile");
    this.#held = new Held(compiled, hosts);
    finalizer.register(this, this.#held, this);
  }

  /** Renders with the state, chat-local (`L.x`) and global (`G.x`) stores and a seed; the text. */
  render(opts) {
    const o = options(opts, RENDER_OPTIONS, "render options");
    const context = contextText(o);
    const seed = seedOf(o.seed);
    const tpl = live(this.#held, "Template");
    return call(() => tpl.render(context, seed.big));
  }

  /**
   * Renders as `render` does; `{output, writes, effects, dataRanges, seed}`:
   * `output.slice(start, end)` of each `[start, end]` of `dataRanges` came
   * from data (UTF-16 code units, half-open).
   */
  renderOutcome(opts) {
    const o = options(opts, RENDER_OPTIONS, "render options");
    const context = contextText(o);
    const seed = seedOf(o.seed);
    const tpl = live(this.#held, "Template");
    const outcome = JSON.parse(call(() => tpl.renderOutcome(context, seed.big)));
    outcome.seed = seed.given;
    return outcome;
  }

  /**
   * What the template does, as `prompt-suite check --json` reports it:
   * variables read and written per scope, macros, filters, tests, functions,
   * effects, random blocks with their branch probabilities, templates named.
   */
  analyze(opts) {
    const o = options(opts, ["state", "local", "global"], "analyze options");
    const context = contextText(o);
    const tpl = live(this.#held, "Template");
    return JSON.parse(call(() => tpl.analyze(context)));
  }

  /**
   * The exact odds of the output over every random choice (`chance`,
   * `weighted`): `{outputs: [{output, probability}], paths}`, most likely
   * first, rendering at most `maxPaths` paths (default 10 000; more is
   * `too_many_paths`).
   */
  exact(opts) {
    const o = options(opts, ["state", "local", "global", "maxPaths"], "exact options");
    const context = contextText(o);
    const maxPaths = o.maxPaths === undefined ? 10_000 : o.maxPaths;
    if (!Number.isSafeInteger(maxPaths) || maxPaths < 1 || maxPaths > 0xffffffff) {
      throw new TypeError(`maxPaths must be a whole number from 1, not ${String(maxPaths)}`);
    }
    const tpl = live(this.#held, "Template");
    return JSON.parse(call(() => tpl.exact(context, maxPaths)));
  }

  /** The template's source text. */
  get source() {
    return live(this.#held, "Template").source;
  }

  /** Releases the template's memory now. */
  free() {
    finalizer.unregister(this);
    this.#held.release();
  }
}

/** Renders `source` once (brackets syntax, reference profile); `state` is the state store. */
export function render(source, state, opts) {
  const o = options(opts, ["seed"], "render options");
  const env = new Environment();
  try {
    const tpl = env.compile(source);
    try {
      return tpl.render({ state, seed: o.seed });
    } finally {
      tpl.free();
    }
  } finally {
    env.free();
  }
}

/**
 * State kept in a chat's messages and swipes: deleting, rolling back or
 * swiping brings earlier values back. Render message `n` with
 * `stateAt(n)`, then `record(n, outcome)`.
 */
export class StateHistory {
  #held;

  constructor(from) {
    const history = from instanceof raw.History ? from : new raw.History();
    this.#held = new Held(history, []);
    finalizer.register(this, this.#held, this);
  }

  /** Reads the command line's history file format. */
  static fromJSON(json) {
    string(json, "json");
    return new StateHistory(call(() => raw.History.fromJson(json)));
  }

  /** The history in the command line's file format (one line of JSON). */
  toJSON() {
    return live(this.#held, "StateHistory").toJson();
  }

  /**
   * Stores the state writes of `outcome` (what `renderOutcome` returned) on
   * message `message`, on its active swipe; `message` may be the number of
   * messages (a new message).
   */
  record(message, outcome) {
    index(message, "message");
    if (typeof outcome !== "object" || outcome === null || !Array.isArray(outcome.writes)) {
      throw new TypeError("record: the outcome must be what renderOutcome returned");
    }
    const writes = toJsonText(outcome.writes, "outcome.writes");
    const history = live(this.#held, "StateHistory");
    call(() => history.record(message, writes));
  }

  /** The state store before message `message` (`stateAt(length)`: after the whole chat). */
  stateAt(message) {
    index(message, "message");
    const history = live(this.#held, "StateHistory");
    return JSON.parse(call(() => history.stateAt(message)));
  }

  /** Appends a message with one empty swipe; its index. */
  pushMessage() {
    return live(this.#held, "StateHistory").pushMessage();
  }

  /** Adds an empty swipe to message `message` and makes it active; its index. */
  swipe(message) {
    index(message, "message");
    const history = live(this.#held, "StateHistory");
    return call(() => history.swipe(message));
  }

  /** Makes swipe `swipe` of message `message` the active one. */
  select(message, swipe) {
    index(message, "message");
    index(swipe, "swipe");
    const history = live(this.#held, "StateHistory");
    call(() => history.select(message, swipe));
  }

  /** Deletes message `message`; later messages move down by one. */
  delete(message) {
    index(message, "message");
    const history = live(this.#held, "StateHistory");
    call(() => history.delete(message));
  }

  /** Keeps the first `length` messages. */
  truncate(length) {
    index(length, "length");
    live(this.#held, "StateHistory").truncate(length);
  }

  /** The number of messages. */
  get length() {
    return live(this.#held, "StateHistory").length;
  }

  /** Releases the history's memory now. */
  free() {
    finalizer.unregister(this);
    this.#held.release();
  }
}

// --- chat templates ----------------------------------------------------------------------

const LOAD_OPTIONS = ["config", "name", "specialTokens", "allowSpecialTokens", "now"];
const APPLY_OPTIONS = ["tools", "documents", "addGenerationPrompt", "variables", "bosToken", "eosToken"];

function nowOf(now) {
  const date = now === undefined || now === null ? new Date() : now;
  if (!(date instanceof Date) || Number.isNaN(date.getTime())) throw new TypeError("now must be a valid Date");
  return [date.getTime(), -date.getTimezoneOffset()];
}

function conversationText(messages, o) {
  if (!Array.isArray(messages)) throw new TypeError("messages must be an array of message objects");
  let text = `{"messages":${toJsonText(messages, "messages")}`;
  if (o.tools !== undefined && o.tools !== null) text += `,"tools":${toJsonText(o.tools, "tools")}`;
  if (o.documents !== undefined && o.documents !== null) text += `,"documents":${toJsonText(o.documents, "documents")}`;
  text += `,"add_generation_prompt":${Boolean(o.addGenerationPrompt)}`;
  if (o.bosToken !== undefined && o.bosToken !== null) text += `,"bos_token":${JSON.stringify(string(o.bosToken, "bosToken"))}`;
  if (o.eosToken !== undefined && o.eosToken !== null) text += `,"eos_token":${JSON.stringify(string(o.eosToken, "eosToken"))}`;
  const variables = objectText(o.variables, "variables");
  if (variables !== "{}") text += "," + variables.slice(1, -1);
  return text + "}";
}

/**
 * A loaded chat template (a `.jinja` text, or with `config: true` the text
 * of `tokenizer_config.json` / `chat_template.json`), rendered as
 * transformers' `apply_chat_template(tokenize=False)` renders it. `now` (a
 * Date) is the time `strftime_now` reads: the time of loading unless given.
 */
export class ChatTemplate {
  #held;

  constructor(text, opts) {
    string(text, "template");
    const o = options(opts, LOAD_OPTIONS, "chat template options");
    const [millis, offset] = nowOf(o.now);
    let load = `{"config":${Boolean(o.config)},"allowSpecialTokens":${Boolean(o.allowSpecialTokens)}`;
    if (o.name !== undefined && o.name !== null) load += `,"name":${JSON.stringify(string(o.name, "name"))}`;
    if (o.specialTokens !== undefined && o.specialTokens !== null) load += `,"specialTokens":${toJsonText(o.specialTokens, "specialTokens")}`;
    load += "}";
    this.#held = new Held(call(() => new raw.Chat(text, load, millis, offset)), []);
    finalizer.register(this, this.#held, this);
  }

  /** The conversation rendered to text. */
  apply(messages, opts) {
    const conversation = conversationText(messages, options(opts, APPLY_OPTIONS, "apply options"));
    const chat = live(this.#held, "ChatTemplate");
    return call(() => chat.apply(conversation));
  }

  /** As `apply`, with `{output, dataRanges, generationRanges}` (UTF-16 code units). */
  applyOutcome(messages, opts) {
    const conversation = conversationText(messages, options(opts, APPLY_OPTIONS, "apply options"));
    const chat = live(this.#held, "ChatTemplate");
    return JSON.parse(call(() => chat.applyOutcome(conversation)));
  }

  /** The special tokens refused in data, sorted. */
  get specialTokens() {
    return JSON.parse(live(this.#held, "ChatTemplate").specialTokens());
  }

  /** Releases the template's memory now. */
  free() {
    finalizer.unregister(this);
    this.#held.release();
  }
}

function once(templateText, messages, opts, run) {
  const o = options(opts, [...LOAD_OPTIONS, ...APPLY_OPTIONS], "chat template options");
  const load = {};
  const apply = {};
  for (const key of Object.keys(o)) (LOAD_OPTIONS.includes(key) ? load : apply)[key] = o[key];
  const template = new ChatTemplate(templateText, load);
  try {
    return run(template, apply);
  } finally {
    template.free();
  }
}

/** Renders `messages` with a chat template once; the text. */
export function applyChatTemplate(templateText, messages, opts) {
  return once(templateText, messages, opts, (t, o) => t.apply(messages, o));
}

/** As `applyChatTemplate`; `{output, dataRanges, generationRanges}`. */
export function applyChatTemplateOutcome(templateText, messages, opts) {
  return once(templateText, messages, opts, (t, o) => t.applyOutcome(messages, o));
}

// --- the pipeline ------------------------------------------------------------------------

const BUILD_OPTIONS = [
  "provider", "params", "context", "seed", "attachments", "transcript", "speaker", "chatTemplate",
  "tools", "toolChoice", "responseSchema", "roleAliases", "now", "onNotice",
];

/** `build`'s chatTemplate: a `.jinja` text, or `{template, config, name, specialTokens, allowSpecialTokens}`. */
function chatTemplateArg(chat) {
  if (typeof chat === "string") return `{"text":${JSON.stringify(chat)}}`;
  const o = options(chat, ["template", "config", "name", "specialTokens", "allowSpecialTokens"], "chatTemplate");
  let text = `{"text":${JSON.stringify(string(o.template, "chatTemplate.template"))},"config":${Boolean(o.config)},"allowSpecialTokens":${Boolean(o.allowSpecialTokens)}`;
  if (o.name !== undefined && o.name !== null) text += `,"name":${JSON.stringify(string(o.name, "chatTemplate.name"))}`;
  if (o.specialTokens !== undefined && o.specialTokens !== null) text += `,"specialTokens":${toJsonText(o.specialTokens, "chatTemplate.specialTokens")}`;
  return text + "}";
}

/**
 * Builds the request body of an authored prompt for `provider` (`"openai"`,
 * `"openai-responses"`, `"anthropic"`, `"gemini"`, or `"completions"`: one
 * prompt rendered through `chatTemplate`, `strftime_now` reading `now`). Notices (a parameter
 * the provider has no field for, ...) go to `onNotice(notice)`, or to
 * `console.warn` without it.
 */
export function build(promptText, opts) {
  string(promptText, "prompt");
  const o = options(opts, BUILD_OPTIONS, "build options");
  let text = `{"provider":${JSON.stringify(optionalString(o.provider, "provider") ?? "openai")}`;
  text += `,"params":${objectText(o.params, "params")},"context":${objectText(o.context, "context")}`;
  if (o.transcript !== undefined && o.transcript !== null) text += `,"transcript":${jsonArg(o.transcript, "transcript")}`;
  if (o.speaker !== undefined && o.speaker !== null) text += `,"speaker":${JSON.stringify(string(o.speaker, "speaker"))}`;
  if (o.chatTemplate !== undefined && o.chatTemplate !== null) {
    text += `,"chatTemplate":${chatTemplateArg(o.chatTemplate)},"now":${JSON.stringify(nowOf(o.now))}`;
  }
  if (o.tools !== undefined && o.tools !== null) text += `,"tools":${jsonArg(o.tools, "tools")}`;
  if (o.toolChoice !== undefined && o.toolChoice !== null) text += `,"toolChoice":${toJsonText(o.toolChoice, "toolChoice")}`;
  if (o.responseSchema !== undefined && o.responseSchema !== null) text += `,"responseSchema":${jsonArg(o.responseSchema, "responseSchema")}`;
  if (o.roleAliases !== undefined && o.roleAliases !== null) text += `,"roleAliases":${objectText(o.roleAliases, "roleAliases")}`;
  text += "}";
  const seed = seedOf(o.seed);
  const [names, bytes, lengths] = entries(o.attachments, "attachments");
  return withNotices(call(() => raw.build(promptText, text, seed.big, names, bytes, lengths)), o.onNotice);
}

/** Converts an OpenAI Chat Completions body (an object or its JSON text) into `provider`'s body. */
export function convert(body, opts) {
  const o = options(opts, ["provider", "params", "onNotice"], "convert options");
  const text = `{"provider":${JSON.stringify(optionalString(o.provider, "provider") ?? "anthropic")},"params":${objectText(o.params, "params")}}`;
  const arg = jsonArg(body, "body");
  return withNotices(call(() => raw.convert(arg, text)), o.onNotice);
}

/**
 * One speaker's view of a multi-speaker transcript (an array of
 * `{speaker, text}` or its JSON text): their turns as `assistant`, the
 * others' as labelled, sanitized `user` turns.
 */
export function flip(transcript, speaker, opts) {
  const o = options(opts, ["system", "instruction", "dialect", "onNotice"], "flip options");
  let text = `{"transcript":${jsonArg(transcript, "transcript")},"speaker":${toJsonText(speaker, "speaker")}`;
  if (o.system !== undefined && o.system !== null) text += `,"system":${JSON.stringify(string(o.system, "system"))}`;
  if (o.instruction !== undefined && o.instruction !== null) text += `,"instruction":${JSON.stringify(string(o.instruction, "instruction"))}`;
  if (o.dialect !== undefined && o.dialect !== null) text += `,"dialect":${JSON.stringify(string(o.dialect, "dialect"))}`;
  text += "}";
  return withNotices(call(() => raw.flip(text)), o.onNotice);
}

/** A Markdown narrative with role delimiters split into chat messages; `@@@name` embeds come from `attachments`. */
export function segment(text, opts) {
  string(text, "text");
  const o = options(opts, ["dialect", "attachments", "onNotice"], "segment options");
  const dialect = optionalString(o.dialect, "dialect");
  const [names, bytes, lengths] = entries(o.attachments, "attachments");
  return withNotices(call(() => raw.segment(text, dialect, names, bytes, lengths)), o.onNotice);
}

/** Removes `///` authoring comments; `{cleaned, params, metadata, flow, node, tags}`. */
export function comments(text, opts) {
  string(text, "text");
  const o = options(opts, ["dialect", "onNotice"], "comments options");
  const dialect = optionalString(o.dialect, "dialect");
  return withNotices(call(() => raw.comments(text, dialect)), o.onNotice);
}
