// Types of the npm package `prompt-suite` (written by hand beside api.js).

/** A value that crosses into the suite: JSON's values (BigInts within 64 bits count as numbers). */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue };
/** A plain object of values. */
export type JsonObject = { [key: string]: JsonValue };
/** A seed: a whole number from 0 below 2^53, or a BigInt below 2^64. */
export type Seed = number | bigint;
/** A half-open `[start, end)` range of string indices (UTF-16 code units): `text.slice(start, end)`. */
export type Range = [number, number];
/** Something a stage accepted but deserves a look (a parameter the provider has no field for, ...). */
export interface Notice {
  kind: string;
  message: string;
}

/**
 * In node the module is ready when imported, and this resolves at once. In
 * a browser, call it once before anything else: it fetches the `.wasm`
 * beside the module, or `input` (a URL, a Response, bytes or a Module).
 */
export default function init(input?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<void>;

/** The workspace version (set once the module is initialized). */
export const version: string;

/** The bytes of WebAssembly memory the package holds now (grows, never shrinks). */
export function wasmMemoryBytes(): number;
/** How many host filters, tests and functions are held (released by `free()` or collection). */
export function hostCallableCount(): number;

/**
 * Every error the suite reports. `message` is the diagnostic drawn for
 * people (`error[kind]: ...`, where, the source line underlined, help).
 */
export class PromptSuiteError extends Error {
  /** The command line's snake_case kind (`syntax_error`, `invalid_json`, `special_token_in_data`, ...). */
  kind: string;
  /** The message alone, without position. */
  reason: string;
  /** 1-based line, or null where not placed. */
  line: number | null;
  /** 1-based column in characters, or null where not placed. */
  column: number | null;
  /** The offending text, or null where not placed. */
  snippet: string | null;
  /** The text the position is in (`<input>`, `<rendered>`, `<transcript>`, a template's name), or null. */
  origin: string | null;
}

/** The JSON text of a value, as the package writes values (TypeError naming the path otherwise). */
export function toJsonText(value: unknown, path: string): string;

// --- templates -----------------------------------------------------------------------------

export interface EnvironmentOptions {
  /** `"brackets"` (`[[ ]]`, `[% %]`, `->`; the default) or `"jinja"` (`{{ }}`, `{% %}`, `|`). */
  syntax?: "brackets" | "jinja";
  /** `"reference"` (the default) or `"jinja2"` (Jinja2's semantics, as transformers renders chat templates). */
  profile?: "reference" | "jinja2";
  trimBlocks?: boolean;
  lstripBlocks?: boolean;
  /** An undefined name is an error instead of empty. */
  strict?: boolean;
  /** Templates include, import and extends find, by name. */
  templates?: { [name: string]: string };
}

/** A host filter, test or function: positional arguments, then an object of keyword arguments when there are any. */
export type HostCallable = (...args: any[]) => JsonValue | undefined;

export class Environment {
  constructor(options?: EnvironmentOptions);
  readonly syntax: string;
  readonly profile: string;
  addTemplate(name: string, source: string): this;
  addFilter(name: string, filter: HostCallable): this;
  addTest(name: string, test: HostCallable): this;
  addFunction(name: string, fn: HostCallable): this;
  /** Throws PromptSuiteError (`syntax_error`, `unknown_filter`, ...). */
  compile(source: string): Template;
  /** Releases the memory now (also released when collected). */
  free(): void;
}

export interface RenderOptions {
  state?: JsonObject;
  /** Chat-local variables (`L.x`). */
  local?: JsonObject;
  /** Global variables (`G.x`). */
  global?: JsonObject;
  /** None draws one. */
  seed?: Seed;
}

export interface StoreWrite {
  scope: "state" | "local" | "global";
  name: string;
  value: JsonValue;
}

export type Effect = { kind: "qr"; name: string } | { kind: "st"; command: string };

export interface Outcome {
  output: string;
  writes: StoreWrite[];
  effects: Effect[];
  /** The ranges of `output` that came from data (values), never structure. */
  dataRanges: Range[];
  /** The seed used (as given, or drawn). */
  seed: Seed;
}

export interface Exact {
  /** Each distinct output with its probability, most likely first. */
  outputs: { output: string; probability: number }[];
  /** How many random paths were rendered. */
  paths: number;
}

export class Template {
  private constructor();
  render(options?: RenderOptions): string;
  renderOutcome(options?: RenderOptions): Outcome;
  /** What the template does (`prompt-suite check --json`'s shape). */
  analyze(options?: Omit<RenderOptions, "seed">): JsonObject;
  /** The exact odds of the output over every random choice. */
  exact(options?: Omit<RenderOptions, "seed"> & { maxPaths?: number }): Exact;
  readonly source: string;
  free(): void;
}

/** Renders `source` once (brackets syntax, reference profile); `state` is the state store. */
export function render(source: string, state?: JsonObject, options?: { seed?: Seed }): string;

/** State kept in a chat's messages and swipes: render message `n` with `stateAt(n)`, then `record(n, outcome)`. */
export class StateHistory {
  constructor();
  static fromJSON(json: string): StateHistory;
  /** The command line's history file format (one line of JSON). */
  toJSON(): string;
  record(message: number, outcome: Pick<Outcome, "writes">): void;
  stateAt(message: number): JsonObject;
  pushMessage(): number;
  swipe(message: number): number;
  select(message: number, swipe: number): void;
  delete(message: number): void;
  truncate(length: number): void;
  readonly length: number;
  free(): void;
}

// --- chat templates ------------------------------------------------------------------------

export interface ChatTemplateLoadOptions {
  /** The text is `tokenizer_config.json` / `chat_template.json` (special tokens taken from it). */
  config?: boolean;
  /** Which named template of a config (`default`, `tool_use`, ...). */
  name?: string;
  /** More special tokens to refuse in data. */
  specialTokens?: string[];
  /** Let special tokens come out of data (trusted input). */
  allowSpecialTokens?: boolean;
  /** The time `strftime_now` reads (default: the time of loading). */
  now?: Date;
}

export interface ChatTemplateApplyOptions {
  tools?: JsonValue[];
  documents?: JsonValue;
  addGenerationPrompt?: boolean;
  /** Every other variable the template reads. */
  variables?: JsonObject;
  bosToken?: string;
  eosToken?: string;
}

export interface AppliedOutcome {
  output: string;
  dataRanges: Range[];
  /** What `{% generation %}` blocks wrote (the assistant mask). */
  generationRanges: Range[];
}

export class ChatTemplate {
  constructor(text: string, options?: ChatTemplateLoadOptions);
  apply(messages: JsonObject[], options?: ChatTemplateApplyOptions): string;
  applyOutcome(messages: JsonObject[], options?: ChatTemplateApplyOptions): AppliedOutcome;
  readonly specialTokens: string[];
  free(): void;
}

export function applyChatTemplate(
  templateText: string,
  messages: JsonObject[],
  options?: ChatTemplateLoadOptions & ChatTemplateApplyOptions,
): string;
export function applyChatTemplateOutcome(
  templateText: string,
  messages: JsonObject[],
  options?: ChatTemplateLoadOptions & ChatTemplateApplyOptions,
): AppliedOutcome;

// --- the pipeline --------------------------------------------------------------------------

export type Provider = "openai" | "openai-responses" | "anthropic" | "gemini" | "completions";

export interface BuildOptions {
  provider?: Provider;
  params?: JsonObject;
  /** The state store, or `{state, local, global}`. */
  context?: JsonObject;
  seed?: Seed;
  /** Files `@@@name` embeds and `/// tools:` paths name. */
  attachments?: { [name: string]: Uint8Array | string };
  /** A multi-speaker transcript (`[{speaker, text}]` or its JSON text), flipped for `speaker`. */
  transcript?: JsonValue[] | string | null;
  speaker?: string | null;
  /** The chat template `completions` renders through: its `.jinja` text, or a config's text with how to load it. */
  chatTemplate?:
    | string
    | { template: string; config?: boolean; name?: string; specialTokens?: string[]; allowSpecialTokens?: boolean }
    | null;
  /** The time the chat template's `strftime_now` reads (default: now). */
  now?: Date;
  tools?: JsonValue[] | string;
  toolChoice?: JsonValue;
  responseSchema?: JsonObject | string;
  /** Role aliases for the narrative (`{ "Narrator": "system" }`). */
  roleAliases?: { [name: string]: string };
  /** Where notices go (default: console.warn). */
  onNotice?: (notice: Notice) => void;
}

export function build(promptText: string, options?: BuildOptions): JsonObject;

export function flip(
  transcript: JsonValue[] | string,
  speaker: string,
  options?: { system?: string; instruction?: string; dialect?: "standard" | "llmr"; onNotice?: (notice: Notice) => void },
): JsonObject[];

export function segment(
  text: string,
  options?: { dialect?: "standard" | "lmml"; attachments?: { [name: string]: Uint8Array | string }; onNotice?: (notice: Notice) => void },
): JsonObject[];

export interface Processed {
  cleaned: string;
  params: { [name: string]: string };
  metadata: { [name: string]: string };
  flow: string;
  node: string;
  tags: string[];
}

export function comments(text: string, options?: { dialect?: "standard" | "llmutils"; onNotice?: (notice: Notice) => void }): Processed;

export function convert(
  body: JsonObject | string,
  options?: { provider?: Provider; params?: JsonObject; onNotice?: (notice: Notice) => void },
): JsonObject;
