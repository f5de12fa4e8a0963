import { afterEach, beforeEach } from "vitest";
import type { Store } from "../../src/store/store.js";

/** One isolated, empty store per test; `reopen` closes it and opens a new instance over the same data. */
export interface StoreHarness {
  store: Store;
  reopen(): Promise<Store>;
  /** Another instance over the same data at the same time, as a second process would open it; closed by cleanup. */
  another(): Promise<Store>;
  cleanup(): Promise<void>;
}

export type MakeHarness = () => Promise<StoreHarness>;

/**
 * The harness a suite's tests use: a fresh one is made before each test and cleaned up after it; read
 * its members inside a test (they are the running test's).
 */
export function harnessPerTest(makeHarness: MakeHarness): StoreHarness {
  let current: StoreHarness | undefined;
  beforeEach(async () => {
    current = await makeHarness();
  });
  afterEach(() => current?.cleanup());
  const now = (): StoreHarness => {
    if (!current) throw new Error("The store harness is made before each test: use it inside one.");
    return current;
  };
  return {
    get store() {
      return now().store;
    },
    reopen: () => now().reopen(),
    another: () => now().another(),
    cleanup: () => now().cleanup(),
  };
}
