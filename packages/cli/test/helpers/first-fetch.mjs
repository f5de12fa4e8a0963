// For hooks loaded with `node --import` into a measured process: runs `take` once, at the process's
// first outgoing fetch (the first model request of `arbor run`) when `at` is "fetch", else at exit.
export function atFirstFetchOrExit(at, take) {
  if (at !== "fetch") {
    process.on("exit", take);
    return;
  }
  const original = globalThis.fetch;
  let first = true;
  globalThis.fetch = (...args) => {
    if (first) {
      first = false;
      take();
    }
    return original(...args);
  };
}
