// Sessions of N entries built once per run and shared by the open/snapshot and disk figures.
import { join } from "node:path";
import { sizeOf } from "../lib/env.mjs";
import { prepareBackend } from "./backends.mjs";
import { messageEntry, textPool } from "./messages.mjs";

export const BIG_MESSAGE_BYTES = 1500;
const BATCH = 1000;

export class Fixtures {
  constructor(core, tmp) {
    this.core = core;
    this.tmp = tmp;
    this.cache = new Map();
    this.pool = textPool(256, BIG_MESSAGE_BYTES, 7);
  }

  /** A closed store holding one session of `n` message entries of ~1.5 KB (built on first use). */
  get(kind, n) {
    const key = `${kind}:${n}`;
    if (!this.cache.has(key)) this.cache.set(key, this.build(kind, n));
    return this.cache.get(key);
  }

  async build(kind, n) {
    const backend = await prepareBackend(kind, this.tmp);
    const spec = backend.spec("process", `fixture-${n}`);
    const t0 = performance.now();
    const store = await this.core.openStore(spec);
    let sessionId;
    let jsonBytes = 0;
    try {
      sessionId = (await store.createSession({ title: `bench ${n}` })).id;
      for (let i = 0; i < n; i += BATCH) {
        const batch = [];
        for (let j = i; j < Math.min(n, i + BATCH); j++) batch.push(messageEntry(j, this.pool[j % this.pool.length]));
        for (const e of await store.appendEntries(sessionId, batch)) jsonBytes += Buffer.byteLength(JSON.stringify(e)) + 1;
      }
    } finally {
      await store.close();
    }
    const buildMs = performance.now() - t0;
    const files =
      kind === "file"
        ? { data: join(spec.dir, "sessions", sessionId, "entries.jsonl"), all: [join(spec.dir, "sessions", sessionId)] }
        : { data: spec.file, all: [spec.file, `${spec.file}-wal`, `${spec.file}-shm`] };
    return {
      kind,
      n,
      spec,
      sessionId,
      jsonBytes,
      buildMs,
      /** entries.jsonl (file) or the database file (sqlite): what a load has to read. */
      dataBytes: kind === "file" ? sizeOf(files.data) : sizeOf(spec.file) + sizeOf(`${spec.file}-wal`),
      /** Everything the session occupies on disk. */
      diskBytes: files.all.reduce((t, p) => t + sizeOf(p), 0),
    };
  }
}
