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
