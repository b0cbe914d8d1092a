// The package in node: the module initializes itself from its bytes when
// imported (no `init()` needed; the default export exists for code that
// also runs in browsers and resolves at once).

import { readFileSync } from "node:fs";
import { initSync } from "./prompt_suite_wasm.js";
import { _ready } from "./api.js";

const exports = initSync({ module: readFileSync(new URL("./prompt_suite_wasm_bg.wasm", import.meta.url)) });
_ready(exports);

export * from "./api.js";

/** Already initialized in node: resolves at once. */
export default function init() {
  return Promise.resolve();
}
