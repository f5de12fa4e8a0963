// Counts fsync calls made through node:fs (the file store's group commit uses fs.fsync), so the
// group-commit figure can show fsyncs per append. SQLite and the servers sync outside Node: not counted.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";

const NAMES = ["fsync", "fsyncSync", "fdatasync", "fdatasyncSync"];

export function countFsyncs() {
  const original = Object.fromEntries(NAMES.map((n) => [n, fs[n]]));
  const counter = { calls: 0 };
  for (const n of NAMES) {
    fs[n] = (...args) => {
      counter.calls++;
      return original[n](...args);
    };
  }
  syncBuiltinESMExports();
  counter.stop = () => {
    for (const n of NAMES) fs[n] = original[n];
    syncBuiltinESMExports();
  };
  return counter;
}
