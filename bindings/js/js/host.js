// The host's filters, tests and functions, kept by number for the
// WebAssembly module (bindings/js/src/host.rs calls `callHost`). An entry
// lives while an environment or a template compiled from it holds it.

const callables = new Map();
let next = 1;

/** Keeps `fn` and returns its number (held once). */
export function register(fn) {
  const id = next++;
  callables.set(id, { fn, holders: 1 });
  return id;
}

/** One more holder of each of `ids`. */
export function retain(ids) {
  for (const id of ids) {
    const entry = callables.get(id);
    if (entry) entry.holders += 1;
  }
}

/** One holder fewer of each of `ids`; the last one forgets the function. */
export function release(ids) {
  for (const id of ids) {
    const entry = callables.get(id);
    if (entry && --entry.holders === 0) callables.delete(id);
  }
}

/** How many host functions are held (for tests of memory). */
export function heldCount() {
  return callables.size;
}

let toJsonText = null;

/** The value writer of api.js (set once, to share its rules). */
export function setWriter(writer) {
  toJsonText = writer;
}

/**
 * Calls host function `id` with the JSON of `{value?, args, kwargs}`:
 * `fn(value, ...args)` for a filter or test, `fn(...args)` for a function,
 * with one more argument, an object of the keyword arguments, when there
 * are any. Returns `=` and the result's JSON, or `!` and what it threw.
 */
export function callHost(id, call) {
  const entry = callables.get(id);
  if (!entry) return "!is gone (its environment and templates were freed)";
  const parsed = JSON.parse(call);
  const all = "value" in parsed ? [parsed.value, ...parsed.args] : parsed.args;
  const kwargs = parsed.kwargs;
  if (Object.keys(kwargs).length > 0) all.push(kwargs);
  let result;
  try {
    result = entry.fn(...all);
  } catch (err) {
    return "!" + (err instanceof Error ? `${err.name}: ${err.message}` : String(err));
  }
  try {
    return "=" + toJsonText(result === undefined ? null : result, "the result");
  } catch (err) {
    return "!returned " + (err instanceof Error ? err.message : String(err));
  }
}
