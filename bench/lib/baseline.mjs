// Figures of an earlier run kept in bench/baseline.json, so each section prints its figure beside the
// previous one and a regression shows. `npm run bench -- --save-baseline` rewrites the file with this
// run's figures (sections not run keep their old figures).
import { readFileSync, writeFileSync } from "node:fs";
import { ratio } from "./format.mjs";

const FILE = new URL("../baseline.json", import.meta.url);

function load() {
  try {
    return JSON.parse(readFileSync(FILE, "utf8"));
  } catch {
    return { figures: {} };
  }
}

/** This run's figures, and the stored ones. One per process, created by run.mjs. */
export class Baseline {
  constructor() {
    this.stored = load();
    this.current = {};
  }

  /** The stored figure for `key`, if any. */
  previous(key) {
    return this.stored.figures?.[key]?.value;
  }

  /**
   * Records a figure and returns "now ÷ before" as text, or "–" when there is no earlier figure.
   * `better` says which direction is an improvement ("higher" for rates, "lower" for times), printed
   * as a mark so a regression is visible without reading the units.
   */
  compare(key, value, better) {
    this.current[key] = { value, better };
    const before = this.previous(key);
    if (before === undefined || !Number.isFinite(value) || !before) return "–";
    const r = value / before;
    const improved = better === "higher" ? r >= 1 : r <= 1;
    return `${ratio(r)}${Math.abs(r - 1) < 0.05 ? "" : improved ? " +" : " -"}`;
  }

  describe() {
    const s = this.stored;
    if (!s.recorded) return "none";
    return `${s.recorded}${s.commit ? ` at ${s.commit}` : ""}${s.load ? `, load ${s.load}` : ""}${s.note ? ` (${s.note})` : ""}`;
  }

  save(meta) {
    const figures = { ...(this.stored.figures ?? {}), ...this.current };
    writeFileSync(FILE, `${JSON.stringify({ ...meta, figures }, null, 2)}\n`);
  }
}
