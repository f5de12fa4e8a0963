import { APICallError, type LanguageModelV4, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { error, type FakeOpenAIServer, finish, type Script, startFakeOpenAI, text, toolCall, usage } from "@arbor/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ConfigSchema } from "../../src/config/schema.js";
import { ArborError } from "../../src/errors.js";
import type { ModelInfo } from "../../src/llm/catalog.js";
// Relative imports: this module is tested on its own, whatever the package index exports at the moment.
import { apiKeyVariable, createModelRegistry, type ModelRegistryOptions } from "../../src/llm/registry.js";

type Env = Record<string, string | undefined>;

/** A fetch that fails the test: resolving a model must never touch the network. */
const noFetch: typeof fetch = () => {
  throw new Error("resolve() made a request");
};

function registry(config: Record<string, unknown> = {}, env: Env = {}, fetchImpl: typeof fetch = noFetch) {
  return createModelRegistry({ config: ConfigSchema.parse(config), env, fetch: fetchImpl });
}

/** The ArborError a synchronous call throws: resolve() fails before any await, so callers can try/catch it. */
function thrown(fn: () => unknown, code: string): ArborError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ArborError);
    expect((err as ArborError).code).toBe(code);
    return err as ArborError;
  }
  throw new Error(`expected an ArborError with code ${code}, but the call succeeded`);
}

const servers: FakeOpenAIServer[] = [];
async function fakeServer(script: Script): Promise<FakeOpenAIServer> {
  const server = await startFakeOpenAI({ script });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  vi.unstubAllEnvs();
});

const hi = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }] };

async function streamParts(model: LanguageModelV4): Promise<LanguageModelV4StreamPart[]> {
  const { stream } = await model.doStream(hi);
  const reader = stream.getReader();
  const parts: LanguageModelV4StreamPart[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return parts;
    parts.push(value);
  }
}

async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error("expected the call to fail");
    },
    (err: unknown) => err,
  );
}

describe("model registry: resolving", () => {
  it("names the variable to set when a key is missing, before any request", () => {
    const reg = registry();
    const openai = thrown(() => reg.resolve("openai/gpt-4o"), "missing_api_key");
    expect(openai.message).toBe("No API key for openai/gpt-4o: set OPENAI_API_KEY.");
    const anthropic = thrown(() => reg.resolve("anthropic/claude-sonnet-4-5"), "missing_api_key");
    expect(anthropic.message).toBe("No API key for anthropic/claude-sonnet-4-5: set ANTHROPIC_API_KEY.");
    expect(anthropic.details).toEqual({ model: "anthropic/claude-sonnet-4-5", variable: "ANTHROPIC_API_KEY" });
  });

  it("treats a blank key as missing", () => {
    thrown(() => registry({}, { OPENAI_API_KEY: "  \n" }).resolve("openai/gpt-4o"), "missing_api_key");
  });

  it("reads keys from the injected env, not process.env, and defaults to process.env", () => {
    vi.stubEnv("OPENAI_API_KEY", "sk-from-process");
    thrown(() => registry({}, {}).resolve("openai/gpt-4o"), "missing_api_key");
    const fromProcess = createModelRegistry({ config: ConfigSchema.parse({}), fetch: noFetch });
    expect(fromProcess.resolve("openai/gpt-4o").ref).toBe("openai/gpt-4o");
  });

  it("resolves synchronously with the key present, without a request", () => {
    const reg = registry({}, { OPENAI_API_KEY: "sk-o", ANTHROPIC_API_KEY: "sk-a" });
    const openai = reg.resolve(" openai/gpt-4o ");
    expect(openai.ref).toBe("openai/gpt-4o");
    expect(openai.model.specificationVersion).toBe("v4");
    expect(openai.model.provider).toBe("openai.responses");
    expect(openai.model.modelId).toBe("gpt-4o");
    expect(openai.info.limit.context).toBe(128_000);
    expect(reg.resolve("anthropic/claude-sonnet-4-5").model.provider).toBe("anthropic.messages");
  });

  it("rejects malformed model strings and unknown providers as invalid_model", () => {
    const reg = registry({ baseURL: "http://localhost:1/v1" }, { OPENAI_API_KEY: "sk" });
    for (const bad of ["gpt-4o", "openai/", "/gpt-4o", "", "   "]) thrown(() => reg.resolve(bad), "invalid_model");
    // Mistral became a provider of its own; Cohere is not one (yet).
    expect(thrown(() => reg.resolve("cohere/command-r"), "invalid_model").message).toContain('Unknown provider "cohere"');
  });

  it("requires a base URL for openai-compatible, naming --base-url and ARBOR_BASE_URL", () => {
    const err = thrown(() => registry().resolve("openai-compatible/llama3"), "invalid_config");
    expect(err.message).toContain("--base-url");
    expect(err.message).toContain("ARBOR_BASE_URL");
  });

  it("needs no key for openai-compatible", () => {
    const model = registry({ baseURL: "http://localhost:11434/v1" }).resolve("openai-compatible/meta/llama3");
    expect(model.ref).toBe("openai-compatible/meta/llama3");
    expect(model.model.modelId).toBe("meta/llama3");
    expect(model.model.provider).toBe("openai-compatible.chat");
  });

  it("refuses an OPENAI_BASE_URL that is not an http(s) URL", () => {
    const err = thrown(
      () => registry({}, { OPENAI_API_KEY: "sk", OPENAI_BASE_URL: "localhost:8080" }).resolve("openai/gpt-4o"),
      "invalid_config",
    );
    expect(err.message).toContain("OPENAI_BASE_URL");
  });

  it("layers config.models over the catalog in info", () => {
    const custom: ModelInfo = { limit: { context: 32_000, output: 2_000 }, cost: { input: 1, output: 2 } };
    const reg = registry(
      { baseURL: "http://localhost:1/v1", models: { "openai/gpt-4o": custom, "openai-compatible/llama3": custom } },
      { OPENAI_API_KEY: "sk", ANTHROPIC_API_KEY: "sk" },
    );
    expect(reg.resolve("openai/gpt-4o").info).toEqual(custom);
    expect(reg.resolve("openai-compatible/llama3").info).toEqual(custom);
    expect(reg.resolve("anthropic/claude-sonnet-4-5").info.limit.output).toBe(64_000);
    expect(reg.resolve("openai-compatible/unknown").info).toEqual({ limit: { context: 128_000, output: 4_096 } });
  });

  it("describes the variable each provider reads its key from", () => {
    expect(apiKeyVariable("openai")).toBe("OPENAI_API_KEY");
    expect(apiKeyVariable("anthropic")).toBe("ANTHROPIC_API_KEY");
    expect(apiKeyVariable("openai-compatible")).toBe("ARBOR_API_KEY");
  });
});

describe("model registry: caching", () => {
  it("returns the same instance for the same connection and a new one when key or base URL change", () => {
    const env: Env = { OPENAI_API_KEY: "sk-1" };
    const reg = registry({}, env);
    const first = reg.resolve("openai/gpt-4o").model;
    expect(reg.resolve("openai/gpt-4o").model).toBe(first);
    expect(reg.resolve("openai/gpt-4o-mini").model).not.toBe(first);

    env.OPENAI_API_KEY = "sk-2";
    const rekeyed = reg.resolve("openai/gpt-4o").model;
    expect(rekeyed).not.toBe(first);
    expect(reg.resolve("openai/gpt-4o").model).toBe(rekeyed);

    env.OPENAI_BASE_URL = "https://proxy.example/v1";
    expect(reg.resolve("openai/gpt-4o").model).not.toBe(rekeyed);
  });

  it("keys openai-compatible instances by base URL and key", () => {
    const env: Env = {};
    const a = registry({ baseURL: "http://a.test/v1" }, env);
    const keyless = a.resolve("openai-compatible/llama3").model;
    expect(a.resolve("openai-compatible/llama3").model).toBe(keyless);
    env.ARBOR_API_KEY = "sk-local";
    expect(a.resolve("openai-compatible/llama3").model).not.toBe(keyless);
    // Another base URL is another registry here (config is fixed per registry): never a shared instance.
    expect(registry({ baseURL: "http://b.test/v1" }, env).resolve("openai-compatible/llama3").model).not.toBe(keyless);
  });
});

describe("model registry: pool scenarios", () => {
  const pool = {
    compaction: { model: "openai-compatible/small", baseURL: "http://pool.test/v1", apiKeyEnv: "POOL_KEY" },
    title: { model: "openai/gpt-4o-mini" },
  };

  it("resolves a scenario with its own model, base URL and key variable", () => {
    const env: Env = { POOL_KEY: "sk-pool", OPENAI_API_KEY: "sk-o" };
    const reg = registry({ model: "openai/gpt-4o", baseURL: "http://main.test/v1", pool }, env);
    const compaction = reg.forScenario("compaction");
    expect(compaction?.ref).toBe("openai-compatible/small");
    expect(compaction?.model.modelId).toBe("small");
    // The same model string through the main base URL is a different connection.
    expect(reg.resolve("openai-compatible/small").model).not.toBe(compaction?.model);
    expect(reg.forScenario("compaction")?.model).toBe(compaction?.model);
    expect(reg.forScenario("title")?.model).toBe(reg.resolve("openai/gpt-4o-mini").model);
  });

  it("requires the key a pool entry names, and says which scenario wants it", () => {
    const err = thrown(() => registry({ pool }, {}).forScenario("compaction"), "missing_api_key");
    expect(err.message).toBe("No API key for openai-compatible/small (pool.compaction): set POOL_KEY.");
  });

  it("falls back to config.model for llm only; other scenarios without an entry are undefined", () => {
    const env: Env = { OPENAI_API_KEY: "sk" };
    const reg = registry({ model: "openai/gpt-4o", pool }, env);
    expect(reg.forScenario("llm")?.model).toBe(reg.resolve("openai/gpt-4o").model);
    expect(reg.forScenario("replanner")).toBeUndefined();
    expect(reg.forScenario("constructor")).toBeUndefined();
    expect(registry({}, env).forScenario("llm")).toBeUndefined();
    const pooled = registry({ model: "openai/gpt-4o", pool: { llm: { model: "openai/o3" } } }, env);
    expect(pooled.forScenario("llm")?.ref).toBe("openai/o3");
  });
});

describe("model registry: on the wire (fake OpenAI-compatible server)", () => {
  const resolveAt = (server: FakeOpenAIServer, env: Env = {}, options: Partial<ModelRegistryOptions> = {}) =>
    createModelRegistry({ config: ConfigSchema.parse({ baseURL: server.baseURL }), env, ...options }).resolve(
      "openai-compatible/fake",
    ).model;

  it("streams text and reports usage in the finish part (include_usage is sent)", async () => {
    const server = await fakeServer([[text("hello", { chunks: 3 }), usage({ inputTokens: 5, outputTokens: 2 }), finish("stop")]]);
    const parts = await streamParts(resolveAt(server));

    const deltas = parts.flatMap((part) => (part.type === "text-delta" ? [part.delta] : []));
    expect(deltas.length).toBe(3);
    expect(deltas.join("")).toBe("hello");
    const end = parts.find((part) => part.type === "finish");
    expect(end?.finishReason.unified).toBe("stop");
    expect(end?.usage.inputTokens.total).toBe(5);
    expect(end?.usage.outputTokens.total).toBe(2);

    const [request] = server.requests;
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.body).toMatchObject({ model: "fake", stream: true, stream_options: { include_usage: true } });
    expect(request?.headers.authorization).toBeUndefined();
  });

  it("sends ARBOR_API_KEY as a bearer token when set", async () => {
    const server = await fakeServer([[text("ok")]]);
    await streamParts(resolveAt(server, { ARBOR_API_KEY: "sk-local" }));
    expect(server.requests[0]?.headers.authorization).toBe("Bearer sk-local");
  });

  it("streams a tool call with its name and JSON input", async () => {
    const server = await fakeServer([[toolCall("read", { path: "a.txt" }, { id: "call_1", chunks: 2 }), finish("tool-calls")]]);
    const parts = await streamParts(resolveAt(server));
    const call = parts.find((part) => part.type === "tool-call");
    expect(call).toMatchObject({ toolCallId: "call_1", toolName: "read" });
    expect(JSON.parse(call?.type === "tool-call" ? call.input : "null")).toEqual({ path: "a.txt" });
    expect(parts.find((part) => part.type === "finish")?.finishReason.unified).toBe("tool-calls");
  });

  it("surfaces a 429 as a retryable APICallError carrying retry-after, without retrying itself", async () => {
    const server = await fakeServer([[error(429, { retryAfter: 7 })], [text("unused")]]);
    const err = await rejection(resolveAt(server).doStream(hi));
    expect(APICallError.isInstance(err)).toBe(true);
    const apiError = err as APICallError;
    expect(apiError.statusCode).toBe(429);
    expect(apiError.isRetryable).toBe(true);
    expect(apiError.responseHeaders?.["retry-after"]).toBe("7");
    // Retries are the runtime's job: the provider model made exactly one request.
    expect(server.callCount).toBe(1);
  });

  it("sends openai and anthropic requests to the env's base URL with the env's key", async () => {
    // The fake server speaks only Chat Completions, so these 404: what matters is where they went and with what key.
    const server = await fakeServer([]);
    const env: Env = {
      OPENAI_API_KEY: "sk-o",
      OPENAI_BASE_URL: server.baseURL,
      ANTHROPIC_API_KEY: "sk-a",
      ANTHROPIC_BASE_URL: server.baseURL,
    };
    const reg = createModelRegistry({ config: ConfigSchema.parse({}), env });
    expect(APICallError.isInstance(await rejection(reg.resolve("openai/gpt-4o").model.doStream(hi)))).toBe(true);
    expect(APICallError.isInstance(await rejection(reg.resolve("anthropic/claude-sonnet-4-5").model.doStream(hi)))).toBe(true);
    const [openai, anthropic] = server.requests;
    expect(openai).toMatchObject({ path: "/v1/responses", headers: { authorization: "Bearer sk-o" } });
    expect(anthropic).toMatchObject({ path: "/v1/messages", headers: { "x-api-key": "sk-a" } });
  });
});

describe("every provider through its own AI SDK package", () => {
  const KEYED: Array<[string, string, string]> = [
    ["google/gemini-2.5-pro", "GOOGLE_GENERATIVE_AI_API_KEY", "google"],
    ["mistral/mistral-large-latest", "MISTRAL_API_KEY", "mistral"],
    ["xai/grok-4", "XAI_API_KEY", "xai"],
    ["groq/llama-3.3-70b-versatile", "GROQ_API_KEY", "groq"],
    ["deepseek/deepseek-chat", "DEEPSEEK_API_KEY", "deepseek"],
    ["openrouter/anthropic/claude-sonnet-4.5", "OPENROUTER_API_KEY", "openrouter"],
  ];

  it.each(KEYED)("%s needs %s and resolves to that provider's model", (ref, variable, provider) => {
    const err = thrown(() => registry().resolve(ref), "missing_api_key");
    expect(err.message).toContain(variable);
    const resolved = registry({}, { [variable]: "key" }).resolve(ref);
    expect(resolved.ref).toBe(ref);
    expect(resolved.model.modelId).toBe(ref.slice(ref.indexOf("/") + 1));
    expect(resolved.model.provider.startsWith(provider)).toBe(true);
  });

  it("azure needs AZURE_BASE_URL as well as its key, and addresses the deployment", () => {
    const err = thrown(() => registry({}, { AZURE_API_KEY: "key" }).resolve("azure/my-gpt"), "invalid_config");
    expect(err.message).toContain("AZURE_BASE_URL");
    const env = { AZURE_API_KEY: "key", AZURE_BASE_URL: "https://r.openai.azure.com/openai" };
    expect(registry({}, env).resolve("azure/my-gpt").model.modelId).toBe("my-gpt");
  });

  it("bedrock takes a Bedrock API key or AWS access keys, and its endpoint from AWS_REGION", () => {
    const none = thrown(
      () => registry({}, { AWS_REGION: "us-east-1" }).resolve("bedrock/amazon.nova-pro-v1:0"),
      "missing_api_key",
    );
    expect(none.message).toContain("AWS_BEARER_TOKEN_BEDROCK");
    expect(none.message).toContain("AWS_ACCESS_KEY_ID");
    const noRegion = thrown(() => registry({}, { AWS_BEARER_TOKEN_BEDROCK: "k" }).resolve("bedrock/x"), "invalid_config");
    expect(noRegion.message).toContain("AWS_REGION");
    const keys = { AWS_REGION: "eu-west-1", AWS_ACCESS_KEY_ID: "id", AWS_SECRET_ACCESS_KEY: "secret" };
    expect(registry({}, keys).resolve("bedrock/amazon.nova-pro-v1:0").model.modelId).toBe("amazon.nova-pro-v1:0");
  });

  it("names every provider there is when refusing an unknown one", () => {
    const err = thrown(() => registry().resolve("cohere/command-r"), "invalid_model");
    for (const provider of ["google", "azure", "bedrock", "mistral", "xai", "groq", "deepseek", "openrouter"]) {
      expect(err.message).toContain(provider);
    }
  });
});
