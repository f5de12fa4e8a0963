import { useSyncExternalStore } from "react";

/**
 * The debug level new runs are started with (the composer's picker), kept in localStorage so it
 * survives a reload. `off` sends nothing, leaving the server's default.
 */
export const DEBUG_LEVELS = ["off", "basic", "standard", "full"] as const;
export type DebugLevelChoice = (typeof DEBUG_LEVELS)[number];

const KEY = "arbor.debug";

function isLevel(value: string | null): value is DebugLevelChoice {
  return value !== null && (DEBUG_LEVELS as readonly string[]).includes(value);
}

function readStored(): DebugLevelChoice {
  try {
    const value = localStorage.getItem(KEY);
    return isLevel(value) ? value : "off";
  } catch {
    return "off";
  }
}

type Listener = () => void;
const listeners = new Set<Listener>();
let level: DebugLevelChoice = readStored();

export const debugLevel = {
  get value(): DebugLevelChoice {
    return level;
  },
  set(value: DebugLevelChoice): void {
    level = value;
    try {
      if (value === "off") localStorage.removeItem(KEY);
      else localStorage.setItem(KEY, value);
    } catch {
      // Storage may be disabled; the choice then lasts for this page only.
    }
    for (const l of listeners) l();
  },
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
};

export function useDebugLevel(): DebugLevelChoice {
  return useSyncExternalStore(debugLevel.subscribe, () => level);
}
