import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach } from "vitest";
import { openStore } from "../../src/store/open.js";
import type { StoreSpec } from "../../src/store/spec.js";
import type { Store } from "../../src/store/store.js";

/** The file store a test works on, in its own folder; `reopen` closes it and opens it again over the same files. */
export interface FileStoreEach {
  readonly dir: string;
  readonly store: Store;
  reopen(): Promise<Store>;
  /** Opens the store again after the test closed it (to change its files meanwhile, as a crash or an editor would). */
  openAgain(): Promise<Store>;
}

/**
 * A fresh file store in a folder of its own (named `prefix…`) for each test of the calling file,
 * closed and removed after it: tests that damage or inspect the store's files on disk start clean.
 * `options`: the file store spec's other fields, for every open.
 */
export function fileStoreEach(
  prefix: string,
  options: Omit<Extract<StoreSpec, { kind: "file" }>, "kind" | "dir"> = {},
): FileStoreEach {
  let dir = "";
  let store: Store | undefined;
  const openStoreHere = () => (Object.keys(options).length > 0 ? openStore({ kind: "file", dir, ...options }) : openStore(dir));
  const open = (): Store => {
    if (!store) throw new Error("fileStoreEach: the store is opened by beforeEach, read it inside a test");
    return store;
  };
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    store = await openStoreHere();
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get dir() {
      return dir;
    },
    get store() {
      return open();
    },
    async reopen() {
      await open().close();
      store = await openStoreHere();
      return store;
    },
    async openAgain() {
      store = await openStoreHere();
      return store;
    },
  };
}
