// A WebSocket watcher in a process of its own, so the server's event loop is measured without the client's work:
// `node watch-client.mjs <ws url> <events>` connects, checks every event arrives once and in order, and prints
// {"events": n, "inOrder": bool} when it has them all.
import WebSocket from "ws";

const [url, expected] = [process.argv[2], Number(process.argv[3])];
const ws = new WebSocket(url);
let count = 0;
let inOrder = true;
ws.on("message", (data) => {
  const m = JSON.parse(String(data));
  if (m.event === "connected") return;
  count++;
  if (m.event_id !== count) inOrder = false;
  if (count === expected) {
    process.stdout.write(`${JSON.stringify({ events: count, inOrder })}\n`);
    ws.close();
  }
});
ws.on("close", () => process.exit(count === expected ? 0 : 1));
ws.on("error", (err) => {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
});
