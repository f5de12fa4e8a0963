import { DEBUG_LEVELS, type DebugLevelChoice, debugLevel, useDebugLevel } from "../../lib/debug-level.js";

const HINTS: Record<DebugLevelChoice, string> = {
  off: "No debug records",
  basic: "Tool calls and their timing",
  standard: "Also model calls, inputs and outputs cut short",
  full: "Whole inputs and outputs of every call",
};

/** Picks what the next runs record for the Debug tab; the choice is kept across reloads. */
export function DebugLevelPicker() {
  const level = useDebugLevel();
  return (
    <label className="field" title={HINTS[level]}>
      <span>Debug</span>
      <select value={level} onChange={(e) => debugLevel.set(e.target.value as DebugLevelChoice)}>
        {DEBUG_LEVELS.map((l) => (
          <option key={l} value={l}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
}
