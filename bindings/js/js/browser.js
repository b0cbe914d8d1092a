// The package in a browser (or any host without node's `fs`): call
// `await init()` once before anything else; `init(url)` fetches the .wasm
// from `url` (a URL, a Response, bytes or a WebAssembly.Module) instead of
// the file beside this one.

import initWasm from "./prompt_suite_wasm.js";
import { _ready } from "./api.js";

export * from "./api.js";

let started = null;

/** Loads and initializes the module (once; later calls return the same promise). */
export default function init(input) {
  if (started === null) {
    const arg = input === undefined ? undefined : { module_or_path: input };
    started = initWasm(arg).then((exports) => {
      _ready(exports);
    });
  }
  return started;
}
