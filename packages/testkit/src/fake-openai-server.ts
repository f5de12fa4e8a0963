import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isAbortError, waitForAbort } from "./abort.js";
import {
  chunk,
  completion,
  modelList,
  type ResponseIdentity,
  toolCallArgumentsDelta,
  toolCallStartDelta,
  usageChunk,
} from "./chat-completion.js";
import { type Clock, realClock } from "./clock.js";
import { openAIErrorBody, ScriptExhaustedError } from "./errors.js";
import { embeddingsAnswer, hashedBagOfWords } from "./fake-embeddings.js";
import { type PlannedError, planStep, type StepPlan } from "./plan.js";
import type { Script } from "./script.js";
import { SseWriter } from "./sse.js";

export interface FakeOpenAIOptions {
  script: Script;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** The model id `GET /v1/models` lists; responses echo the request's `model`. Default `fake-model`. */
  model?: string;
  /** Drives `delay` actions; default real timers. */
  clock?: Clock;
  /** Request bodies larger than this are refused with 413; default 64 MiB. */
  maxBodyBytes?: number;
  /** Answers `POST /v1/embeddings` (outside the script); default a hashed bag of words over 64 slots. */
  embed?: (text: string) => number[];
  /** Told as each text delta of a streamed answer is written, with its request's index: to time delivery. */
  onDelta?: (index: number, delta: string) => void;
}

/** One request as received, body parsed as JSON (or the raw text when it is not JSON; undefined when empty). */
export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string with its `?`, or "" (kept by the recorded-stream server). */
  search?: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

export interface FakeOpenAIServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `<url>/v1`: what OpenAI clients take as their base URL. */
  baseURL: string;
  port: number;
  /** Every request, in arrival order. */
  requests: RecordedRequest[];
  /** Chat completion requests answered from the script so far. */
  readonly callCount: number;
  /** Requests still being answered: a hanging one stays counted until its client disconnects. */
  readonly active: number;
  /** Stops listening and drops open connections, hanging ones included. */
  close(): Promise<void>;
}

interface ChatRequest {
  model?: unknown;
  stream?: unknown;
  stream_options?: { include_usage?: unknown } | null;
}

/**
 * A fake OpenAI-compatible Chat Completions server on node:http, played by the same scripts as the in-process
 * model: each `POST /v1/chat/completions` takes the next step.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions): Promise<FakeOpenAIServer> {
  const { script } = options;
  const clock = options.clock ?? realClock;
  const modelId = options.model ?? "fake-model";
  const maxBodyBytes = options.maxBodyBytes ?? 64 * 1024 * 1024;
  const requests: RecordedRequest[] = [];
  let next = 0;
  let active = 0;

  const server = createServer((req, res) => {
    active++;
    handle(req, res)
      .catch((error: unknown) => {
        // A client that went away (or close()) ends a wait with an AbortError: nothing left to answer.
        if (isAbortError(error) || res.destroyed) return;
        sendError(res, 500, { message: `fake OpenAI server: ${String(error)}`, type: "server_error" });
      })
      .finally(() => active--);
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? "/").split("?")[0]!.replace(/\/+$/, "");
    const raw = await readBody(req, maxBodyBytes);
    if (raw === undefined) {
      sendError(res, 413, { message: `request body over ${maxBodyBytes} bytes`, type: "invalid_request_error" });
      return;
    }
    let body: unknown;
    let badJson = false;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        badJson = true;
      }
    }
    requests.push({ method: req.method ?? "GET", path, headers: req.headers, body });

    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      sendJson(res, 200, modelList([modelId], Math.floor(clock.now() / 1000)));
      return;
    }
    if (req.method === "POST" && (path === "/v1/embeddings" || path === "/embeddings")) {
      const answer = embeddingsAnswer(body, options.embed ?? hashedBagOfWords);
      if (answer.ok) sendJson(res, 200, answer.body);
      else sendError(res, 400, { message: answer.message, type: "invalid_request_error" });
      return;
    }
    if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      sendError(res, 404, {
        message: `Unknown request URL: ${req.method} ${path}`,
        type: "invalid_request_error",
        code: "unknown_url",
      });
      return;
    }
    if (badJson || typeof body !== "object" || body === null) {
      sendError(res, 400, { message: "We could not parse the JSON body of your request.", type: "invalid_request_error" });
      return;
    }

    const index = next++;
    const step = script[index];
    if (step === undefined) {
      // A test bug: answered with a non-retryable status so clients fail fast with this message.
      const exhausted = new ScriptExhaustedError("fake OpenAI server", index, script.length);
      sendError(res, 400, { message: exhausted.message, type: "script_exhausted" });
      return;
    }
    const plan = planStep(step, { source: "http", index, body });
    const request = body as ChatRequest;
    const identity: ResponseIdentity = {
      id: `chatcmpl-testkit-${index}`,
      created: Math.floor(clock.now() / 1000),
      model: typeof request.model === "string" ? request.model : modelId,
    };
    const signal = disconnectSignal(res);
    const requestId = { "x-request-id": `req_testkit_${index}` };
    if (request.stream === true) {
      await streamStep(res, plan, identity, request.stream_options?.include_usage === true, signal, requestId, index);
    } else {
      await answerStep(res, plan, identity, signal, requestId);
    }
  }

  /** Streams a step: waits and errors before the first output play before the status line is sent. */
  async function streamStep(
    res: ServerResponse,
    plan: StepPlan,
    identity: ResponseIdentity,
    includeUsage: boolean,
    signal: AbortSignal,
    headers: Record<string, string>,
    index: number,
  ): Promise<void> {
    for (let i = 0; i < plan.callPhaseEnd; i++) {
      const op = plan.ops[i]!;
      if (op.kind === "delay") await clock.sleep(op.ms, signal);
      else if (op.kind === "hang") await waitForAbort(signal);
      else if (op.kind === "error") return sendPlannedError(res, op.error, headers);
    }
    const sse = new SseWriter(res);
    sse.open(headers);
    sse.send(chunk(identity, includeUsage, { role: "assistant", content: "", refusal: null }));
    let toolIndex = 0;
    for (let i = plan.callPhaseEnd; i < plan.ops.length; i++) {
      const op = plan.ops[i]!;
      switch (op.kind) {
        case "text":
          for (const delta of op.deltas) {
            sse.send(chunk(identity, includeUsage, { content: delta }));
            options.onDelta?.(index, delta);
          }
          break;
        case "reasoning":
          // Not part of OpenAI's own API; the field DeepSeek, vLLM and others stream, which the AI SDK reads.
          for (const delta of op.deltas) sse.send(chunk(identity, includeUsage, { reasoning_content: delta }));
          break;
        case "tool-call":
          sse.send(chunk(identity, includeUsage, toolCallStartDelta(toolIndex, op.id, op.name)));
          for (const delta of op.deltas) sse.send(chunk(identity, includeUsage, toolCallArgumentsDelta(toolIndex, delta)));
          toolIndex++;
          break;
        case "delay":
          sse.flush();
          await clock.sleep(op.ms, signal);
          break;
        case "hang":
          sse.flush();
          await waitForAbort(signal);
          break;
        case "malformed":
          // Broken output ends the response: no finish chunk, no [DONE], as when a provider's stream goes bad.
          sse.raw(`data: ${op.raw}\n\n`);
          sse.end();
          return;
        case "error":
          if (op.error.at === "part") {
            // OpenAI's in-stream error event; the response ends there, without a finish chunk or [DONE].
            sse.send(openAIErrorBody(op.error));
            sse.end();
          } else {
            // A dropped connection: what was written so far goes out, then the socket is reset.
            sse.flush();
            res.destroy();
          }
          return;
      }
    }
    sse.send(chunk(identity, includeUsage, {}, plan.rawFinishReason));
    if (includeUsage) sse.send(usageChunk(identity, plan.usage));
    sse.done();
  }

  /** Answers a non-streaming request: every wait plays first, then one response. */
  async function answerStep(
    res: ServerResponse,
    plan: StepPlan,
    identity: ResponseIdentity,
    signal: AbortSignal,
    headers: Record<string, string>,
  ): Promise<void> {
    for (const op of plan.ops) {
      if (op.kind === "delay") await clock.sleep(op.ms, signal);
      else if (op.kind === "hang") await waitForAbort(signal);
      else if (op.kind === "error") {
        if (op.error.at === "stream") res.destroy();
        else sendPlannedError(res, op.error, headers);
        return;
      } else if (op.kind === "malformed") {
        res.writeHead(200, { "content-type": "application/json", ...headers });
        res.end(op.raw);
        return;
      }
    }
    sendJson(res, 200, completion(identity, plan), headers);
  }

  function sendPlannedError(res: ServerResponse, error: PlannedError, headers: Record<string, string>): void {
    sendJson(res, error.status, openAIErrorBody(error), { ...headers, ...error.headers });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  const url = `http://${formatHost(options.host ?? "127.0.0.1")}:${port}`;

  return {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    get callCount() {
      return next;
    },
    get active() {
      return active;
    },
    close() {
      // Idempotent: a test may close early and an afterEach close again.
      closing ??= new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        // Hanging responses would keep close() waiting forever: drop every connection now.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** Aborts when the client goes away before the response is complete: ends hangs and delays for that request. */
function disconnectSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/** The body as text, or undefined past the limit (the rest is drained so the 413 can still be answered). */
async function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of req as AsyncIterable<Buffer>) {
    size += part.length;
    if (size <= limit) parts.push(part);
  }
  return size > limit ? undefined : Buffer.concat(parts).toString("utf8");
}

function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(payload);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, error: { message: string; type: string; code?: string }): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, { error: { message: error.message, type: error.type, param: null, code: error.code ?? null } });
}

function formatHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}
