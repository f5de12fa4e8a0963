// Reading a server-sent event stream as the benchmarks' clients do. On node:http rather than fetch: a fetch body
// goes through web streams and a TextDecoderStream, several times the CPU per chunk, and a section that holds
// hundreds of streams in one process would otherwise time its own clients as much as the server.
import { request } from "node:http";

/** Milliseconds on the machine's monotonic clock: comparable between processes, unlike performance.now(). */
export const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

/**
 * POSTs `body` as JSON to `url` and reads the answer as SSE, calling `onEvent(event, receivedAt)` for each
 * message's `data` (parsed); `receivedAt` is `clock()` when its chunk arrived. Resolves with the status code
 * once the stream ends.
 */
export function postSse(url, body, onEvent, clock = () => performance.now()) {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers: { "content-type": "application/json" }, agent: false }, (res) => {
      res.setEncoding("utf8");
      let buffer = "";
      res.on("data", (chunk) => {
        const at = clock();
        buffer += chunk;
        for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.indexOf("data: ");
          if (data >= 0) onEvent(JSON.parse(block.slice(data + 6)), at);
        }
      });
      res.on("end", () => resolve(res.statusCode));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
