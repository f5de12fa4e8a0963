import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/store/open.js";
import type { Store } from "../src/store/store.js";
import { storeConformance } from "./conformance/store-conformance.js";

export function fileHarness(durability: "process" | "fsync") {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbor-file-"));
    let store: Store = await openStore({ kind: "file", dir, durability });
    const others: Store[] = [];
    return {
      get store() {
        return store;
      },
      async reopen() {
        await store.close();
        store = await openStore({ kind: "file", dir, durability });
        return store;
      },
      async another() {
        const other = await openStore({ kind: "file", dir, durability });
        others.push(other);
        return other;
      },
      async cleanup() {
        for (const other of others) await other.close();
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };
}

storeConformance("file", fileHarness("process"));
storeConformance("file (fsync)", fileHarness("fsync"));
