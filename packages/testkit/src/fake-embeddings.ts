import { createHash } from "node:crypto";

/** Dimensions of the default fake embedding. */
const DIMENSIONS = 64;

/**
 * The default embedding of the fake server: a hashed bag of words (each lower-cased word adds 1 to one
 * of 64 slots). Deterministic, so tests can reason about it: texts sharing words are close, others not.
 */
export function hashedBagOfWords(text: string): number[] {
  const vector = new Array<number>(DIMENSIONS).fill(0);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const slot = createHash("sha256").update(word).digest().readUInt32BE(0) % DIMENSIONS;
    vector[slot]! += 1;
  }
  return vector;
}

/** The body of an OpenAI `POST /v1/embeddings` answer, or why the request is not one. */
export function embeddingsAnswer(
  body: unknown,
  embed: (text: string) => number[],
): { ok: true; body: unknown } | { ok: false; message: string } {
  const request = (typeof body === "object" && body !== null ? body : {}) as {
    input?: unknown;
    model?: unknown;
    encoding_format?: unknown;
  };
  const input = typeof request.input === "string" ? [request.input] : request.input;
  if (!Array.isArray(input) || input.length === 0 || !input.every((x) => typeof x === "string")) {
    return { ok: false, message: "'input' must be a string or a non-empty array of strings" };
  }
  const tokens = input.reduce((n, text) => n + (text.match(/\S+/g)?.length ?? 0), 0);
  return {
    ok: true,
    body: {
      object: "list",
      // base64 is what the official client asks for by default: little-endian float32 bytes, as OpenAI sends them.
      data: input.map((text, index) => {
        const vector = embed(text);
        const embedding =
          request.encoding_format === "base64" ? Buffer.from(new Float32Array(vector).buffer).toString("base64") : vector;
        return { object: "embedding", index, embedding };
      }),
      model: typeof request.model === "string" ? request.model : "fake-embedding",
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    },
  };
}
