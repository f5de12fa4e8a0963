import type { PatchData } from "../../src/snapshot/snapshot-entry.js";
import type { Store } from "../../src/store/store.js";

/** The files each recorded step of a session changed, in order. */
export async function stepFiles(store: Store, sessionId: string): Promise<string[][]> {
  const path = await store.getActivePath(sessionId);
  return path.flatMap((e) =>
    e.type === "custom" && e.customType === "arbor.patch" ? [(e.data as PatchData).files.map((f) => f.path)] : [],
  );
}
