import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";

/** The wire formats the recorded-stream server speaks, each as the real API frames its stream. */
export type ProviderWire =
  | "anthropic-messages"
  | "openai-responses"
  | "azure-responses"
  | "openai-chat"
  | "gemini"
  | "bedrock-converse";

export interface WireShape {
  /** The path prefix a client takes as its base URL, e.g. `/v1`. */
  basePath: string;
  /** Whether a POST to this path, with this query string, is a streaming model call. */
  isModelCall(path: string, query: URLSearchParams): boolean;
  /** The `content-type` of a streamed answer. */
  contentType: string;
  /** A recorded response (its events in order) as the bytes the API streams. */
  encode(events: readonly string[]): string | Uint8Array;
  /** The event type that opens a new response, to split a file recorded as several responses. */
  opensResponse(event: Record<string, unknown>): boolean;
}

function eventType(line: string): string {
  const parsed = JSON.parse(line) as { type?: unknown };
  return typeof parsed.type === "string" ? parsed.type : "message";
}

const SSE = "text/event-stream; charset=utf-8";

/** Server-sent events: each event framed alone, then what the API writes after the last one. */
function sse(frame: (line: string) => string, trailer = ""): Pick<WireShape, "contentType" | "encode"> {
  return { contentType: SSE, encode: (events) => events.map(frame).join("") + trailer };
}

/**
 * Bedrock's ConverseStream answers in AWS event-stream binary framing: each event a message whose
 * `:event-type` header names it (`messageStart`, `contentBlockDelta`, …) and whose body is the JSON
 * under that name. A recorded line holds one event as `{ "<type>": <body> }`.
 */
function awsEventStream(): Pick<WireShape, "contentType" | "encode"> {
  const header = (value: string) => ({ type: "string" as const, value });
  return {
    contentType: "application/vnd.amazon.eventstream",
    encode(events) {
      const codec = new EventStreamCodec(toUtf8, fromUtf8);
      const messages = events.map((line) => {
        const [type, body] = Object.entries(JSON.parse(line) as Record<string, unknown>)[0] ?? [];
        if (type === undefined) throw new Error(`a Bedrock stream event names no type: ${line}`);
        return codec.encode({
          headers: {
            ":event-type": header(type),
            ":content-type": header("application/json"),
            ":message-type": header("event"),
          },
          body: fromUtf8(JSON.stringify(body)),
        });
      });
      return Buffer.concat(messages);
    },
  };
}

const SHAPES: Readonly<Record<ProviderWire, WireShape>> = {
  // Anthropic names each event twice: in the `event:` field and in the payload's `type`.
  "anthropic-messages": {
    basePath: "/v1",
    isModelCall: (path) => path === "/v1/messages",
    ...sse((line) => `event: ${eventType(line)}\ndata: ${line}\n\n`),
    opensResponse: (event) => event.type === "message_start",
  },
  "openai-responses": {
    basePath: "/v1",
    isModelCall: (path) => path === "/v1/responses",
    ...sse((line) => `event: ${eventType(line)}\ndata: ${line}\n\n`),
    opensResponse: (event) => event.type === "response.created",
  },
  // Azure OpenAI's v1 API: the Responses wire under `/openai/v1`, every call naming its `api-version`.
  "azure-responses": {
    basePath: "/openai",
    isModelCall: (path, query) => path === "/openai/v1/responses" && (query.get("api-version") ?? "") !== "",
    ...sse((line) => `event: ${eventType(line)}\ndata: ${line}\n\n`),
    opensResponse: (event) => event.type === "response.created",
  },
  "openai-chat": {
    basePath: "/v1",
    isModelCall: (path) => path === "/v1/chat/completions",
    ...sse((line) => `data: ${line}\n\n`, "data: [DONE]\n\n"),
    opensResponse: () => false,
  },
  // Gemini streams with `alt=sse`: data-only events separated by CRLF pairs.
  gemini: {
    basePath: "/v1beta",
    isModelCall: (path) => /^\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(path),
    ...sse((line) => `data: ${line}\r\n\r\n`),
    opensResponse: () => false,
  },
  // Bedrock's runtime endpoint: `POST /model/<model id>/converse-stream`, the id URL-encoded.
  "bedrock-converse": {
    basePath: "",
    isModelCall: (path) => /^\/model\/[^/]+\/converse-stream$/.test(path),
    ...awsEventStream(),
    opensResponse: (event) => "messageStart" in event,
  },
};

export function wireShape(wire: ProviderWire): WireShape {
  return SHAPES[wire];
}
