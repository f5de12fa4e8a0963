/** The wire formats the recorded-stream server speaks, each as the real API frames its stream. */
export type ProviderWire = "anthropic-messages" | "openai-responses" | "azure-responses" | "openai-chat" | "gemini";

export interface WireShape {
  /** The path prefix a client takes as its base URL, e.g. `/v1`. */
  basePath: string;
  /** Whether a POST to this path, with this query string, is a streaming model call. */
  isModelCall(path: string, query: URLSearchParams): boolean;
  /** One recorded event as the API writes it on the stream. */
  frame(line: string): string;
  /** What the API writes after the last event, if anything. */
  trailer: string;
  /** The event type that opens a new response, to split a file recorded as several responses. */
  opensResponse(event: Record<string, unknown>): boolean;
}

function eventType(line: string): string {
  const parsed = JSON.parse(line) as { type?: unknown };
  return typeof parsed.type === "string" ? parsed.type : "message";
}

const SHAPES: Readonly<Record<ProviderWire, WireShape>> = {
  // Anthropic names each event twice: in the `event:` field and in the payload's `type`.
  "anthropic-messages": {
    basePath: "/v1",
    isModelCall: (path) => path === "/v1/messages",
    frame: (line) => `event: ${eventType(line)}\ndata: ${line}\n\n`,
    trailer: "",
    opensResponse: (event) => event.type === "message_start",
  },
  "openai-responses": {
    basePath: "/v1",
    isModelCall: (path) => path === "/v1/responses",
    frame: (line) => `event: ${eventType(line)}\ndata: ${line}\n\n`,
    trailer: "",
    opensResponse: (event) => event.type === "response.created",
  },
  // Azure OpenAI's v1 API: the Responses wire under `/openai/v1`, every call naming its `api-version`.
  "azure-responses": {
    basePath: "/openai",
    isModelCall: (path, query) => path === "/openai/v1/responses" && (query.get("api-version") ?? "") !== "",
    frame: (line) => `event: ${eventType(line)}\ndata: ${line}\n\n`,
    trailer: "",
    opensResponse: (event) => event.type === "response.created",
  },
  "openai-chat": {
    basePath: "/v1",
    isModelCall: (path) => path === "/v1/chat/completions",
    frame: (line) => `data: ${line}\n\n`,
    trailer: "data: [DONE]\n\n",
    opensResponse: () => false,
  },
  // Gemini streams with `alt=sse`: data-only events separated by CRLF pairs.
  gemini: {
    basePath: "/v1beta",
    isModelCall: (path) => /^\/v1beta\/models\/[^/]+:streamGenerateContent$/.test(path),
    frame: (line) => `data: ${line}\r\n\r\n`,
    trailer: "",
    opensResponse: () => false,
  },
};

export function wireShape(wire: ProviderWire): WireShape {
  return SHAPES[wire];
}
