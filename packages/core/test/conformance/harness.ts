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

/**
 * `harnessPerTest` with `other`: a second store instance over the same data for each test, as a
 * second process opens it, for suites about what every process sees.
 */
export function twoInstancesPerTest(makeHarness: MakeHarness): StoreHarness & { readonly other: Store } {
  const h = harnessPerTest(makeHarness);
  let other: Store | undefined;
  beforeEach(async () => {
    other = await h.another();
  });
  return {
    get store() {
      return h.store;
    },
    get other() {
      if (!other) throw new Error("The other instance is opened before each test: use it inside one.");
      return other;
    },
    reopen: h.reopen,
    another: h.another,
    cleanup: h.cleanup,
  };
}
