// The append section's reference: pi's SessionManager.appendMessage (@mariozechner/pi-coding-agent) on a session
// of `depth` entries, in a process of its own, with the same ~300-byte messages the section appends to Arbor's
// stores. pi appends a JSON line with a synchronous append to its session file (no lock, no fsync, no lease):
// the bytes are in the OS when it returns, as with Arbor's "process" durability.
//   node bench/peers/pi-append.mjs <depth> <appends> <dir>
// Prints one JSON line: { n, p50, p99, perSec } in µs and appends a second.
import { mkdirSync } from "node:fs";
import { SessionManager } from "@mariozechner/pi-coding-agent";
import { now, summarize, us } from "../lib/stats.mjs";
import { role, textPool } from "../store/messages.mjs";

const [depth, appends] = process.argv.slice(2, 4).map(Number);
const dir = process.argv[4];
if (!(depth >= 0 && appends > 0) || !dir) throw new Error("usage: pi-append.mjs <depth> <appends> <dir>");
mkdirSync(dir, { recursive: true });

const pool = textPool(64, 300, 3);
let seq = 0;
const message = () => ({ role: role(seq), content: pool[seq++ % pool.length], timestamp: Date.now() });

const session = SessionManager.create(dir, dir);
for (let i = 0; i < depth; i++) session.appendMessage(message());
for (let i = 0; i < 500; i++) session.appendMessage(message());
const sample = [];
const start = now();
for (let i = 0; i < appends; i++) {
  const t0 = now();
  session.appendMessage(message());
  sample.push(us(t0, now()));
}
const elapsedS = us(start, now()) / 1e6;
if (session.getEntries().length !== depth + 500 + appends) throw new Error("pi's session did not keep every append");
process.stdout.write(`${JSON.stringify({ ...summarize(sample), perSec: sample.length / elapsedS })}\n`);
