// Figure 4: bytes on disk per entry at 1k, 10k, 100k entries (file and sqlite).
import { count, mb, note, num, ratio, reason, section, table } from "../lib/format.mjs";
import { BIG_MESSAGE_BYTES } from "./fixtures.mjs";

export async function run({ fixtures, quick }) {
  section(`4. Bytes on disk per entry (~${(BIG_MESSAGE_BYTES / 1000).toFixed(1)} KB messages)`);
  const sizes = quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const rows = [];
  const notes = [];
  for (const kind of ["file", "sqlite"]) {
    let prev = null;
    for (const n of sizes) {
      let fx;
      try {
        fx = await fixtures.get(kind, n);
      } catch (err) {
        notes.push(`${kind} ${count(n)}: skipped — ${reason(err)}`);
        continue;
      }
      const perEntry = fx.diskBytes / n;
      const marginal = prev ? (fx.diskBytes - prev.diskBytes) / (n - prev.n) : undefined;
      rows.push([
        kind,
        count(n),
        mb(fx.diskBytes),
        num(perEntry),
        num(marginal),
        num(fx.jsonBytes / n),
        ratio(fx.diskBytes / fx.jsonBytes),
      ]);
      prev = fx;
    }
  }
  table(["<backend", "entries", "on disk", "bytes/entry", "marginal bytes/entry", "JSON bytes/entry", "disk/JSON"], rows);
  note("on disk: apparent size of the session directory (file) or the database with its -wal/-shm files (sqlite), store closed.");
  note("marginal: growth since the previous row per added entry; equal rows mean storage is linear in entries.");
  note("JSON bytes/entry: one entry as JSON plus newline, the payload both stores hold.");
  for (const n of notes) note(n);
}
