import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { type FakeOpenAIOptions, type FakeOpenAIServer, startFakeOpenAI } from "@arbor/testkit";
import { afterEach } from "vitest";

export async function collect<T>(stream: ReadableStream<T>): Promise<T[]> {
  const parts: T[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

/** Reads parts until `stop` matches one (inclusive), leaving the stream open. */
export async function readUntil(
  reader: ReadableStreamDefaultReader<LanguageModelV4StreamPart>,
  stop: (part: LanguageModelV4StreamPart) => boolean,
): Promise<LanguageModelV4StreamPart[]> {
  const parts: LanguageModelV4StreamPart[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended before the awaited part; got ${JSON.stringify(parts)}`);
    parts.push(value);
    if (stop(value)) return parts;
  }
}

export function callOptions(userText = "hi", extra: Partial<LanguageModelV4CallOptions> = {}): LanguageModelV4CallOptions {
  return { prompt: [{ role: "user", content: [{ type: "text", text: userText }] }], ...extra };
}

/** Parts without the per-call metadata, for comparing sequences. */
export function withoutMetadata(parts: LanguageModelV4StreamPart[]): LanguageModelV4StreamPart[] {
  return parts.filter((p) => p.type !== "stream-start" && p.type !== "response-metadata");
}

/** The error a call fails with; fails the test if the call succeeds. */
export async function failureOf(work: PromiseLike<unknown> | (() => PromiseLike<unknown>)): Promise<unknown> {
  try {
    await (typeof work === "function" ? work() : work);
  } catch (error) {
    return error;
  }
  throw new Error("expected a failure, but the call succeeded");
}

const fakeServers: FakeOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(fakeServers.splice(0).map((s) => s.close()));
});

/** A fake OpenAI server closed after the current test. */
export async function fakeOpenAIForTest(options: FakeOpenAIOptions): Promise<FakeOpenAIServer> {
  const server = await startFakeOpenAI(options);
  fakeServers.push(server);
  return server;
}
