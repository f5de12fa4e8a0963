import { readdirSync } from "node:fs";
import type { SharedV4ProviderOptions } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { ConfigSchema } from "../../src/config/schema.js";
import { ArborError } from "../../src/errors.js";
// Relative imports: the provider list and the generic code reading it are tested as they are, whatever the entry points export.
import { cacheMarkFor } from "../../src/llm/cache-breakpoints.js";
import { BUILTIN_MODELS, modelInfo } from "../../src/llm/catalog.js";
import { EMBEDDING_PROVIDERS, embeddingLoader } from "../../src/llm/embedding-providers.js";
import { formatModelRef, PROVIDERS, parseModelRef } from "../../src/llm/model-ref.js";
import { explainProviderError } from "../../src/llm/provider-errors.js";
import type { ThinkingRequest } from "../../src/llm/providers/definition.js";
import { PROVIDER_DEFINITIONS } from "../../src/llm/providers/index.js";
import { apiKeyVariable, loadProviderModel, providerEnv } from "../../src/llm/providers.js";
import { createModelRegistry } from "../../src/llm/registry.js";
import { thinkingCallOptions } from "../../src/llm/thinking.js";
import { ThinkingLevelNameSchema } from "../../src/model/entry.js";
import { ModelInfoSchema } from "../../src/model/model-info.js";
import { noFetch, OFFLINE_BASE_URL, offlineSettings } from "./offline-provider.js";

/**
 * Every registered provider, checked for being complete and consistent with the generic code that reads
 * it. A new provider file passes this before any of its own tests exist; nothing here touches the network.
 */

const ENV_VARIABLE = /^[A-Z][A-Z0-9_]*$/;
const THINKING_REQUESTS: ThinkingRequest[] = [
  ...ThinkingLevelNameSchema.options.filter((level) => level !== "off"),
  500,
  10_000,
  60_000,
];

/** Provider options as the AI SDK takes them: JSON objects under each provider's key. */
function expectOptionsShape(options: SharedV4ProviderOptions | undefined, optionsKey: string): void {
  if (options === undefined) return;
  expect(Object.keys(options)).toEqual([optionsKey]);
  const own = options[optionsKey];
  expect(own).toBeTypeOf("object");
  expect(JSON.parse(JSON.stringify(own))).toEqual(own);
}

/** The environment a provider needs to resolve a model: its key, and an address when it has no default. */
function workingEnv(definition: (typeof PROVIDER_DEFINITIONS)[number]): Record<string, string> {
  const env: Record<string, string> = { [definition.env.apiKey]: "key" };
  if (definition.env.baseURL !== undefined) env[definition.env.baseURL] = OFFLINE_BASE_URL;
  return env;
}

describe("the provider list", () => {
  it("names each provider once, in the order PROVIDERS gives", () => {
    expect(PROVIDER_DEFINITIONS.map((p) => p.name)).toEqual(PROVIDERS);
    expect(new Set(PROVIDERS).size).toBe(PROVIDERS.length);
    expect(new Set(PROVIDER_DEFINITIONS.map((p) => p.sdkProvider)).size).toBe(PROVIDERS.length);
  });

  it("registers every provider file of src/llm/providers, each named for its provider", async () => {
    const folder = new URL("../../src/llm/providers/", import.meta.url);
    const files = readdirSync(folder).filter((file) => file.endsWith(".ts") && !["definition.ts", "index.ts"].includes(file));
    const registered: unknown[] = [...PROVIDER_DEFINITIONS];
    for (const file of files) {
      const exported = Object.values((await import(new URL(file, folder).href)) as Record<string, unknown>);
      expect(
        exported.filter((value) => registered.includes(value)).map((d) => (d as { name: string }).name),
        file,
      ).toEqual([file.slice(0, -".ts".length)]);
    }
    expect(files).toHaveLength(PROVIDER_DEFINITIONS.length);
  });

  it("offers embeddings exactly for the providers that define an embedding loader", () => {
    expect(EMBEDDING_PROVIDERS).toEqual(PROVIDER_DEFINITIONS.filter((p) => p.loadEmbedding).map((p) => p.name));
  });

  it("gathers the built-in catalog from the providers' models, and nothing else", () => {
    const fromProviders = PROVIDER_DEFINITIONS.flatMap((p) => Object.keys(p.models ?? {}).map((m) => `${p.name}/${m}`));
    expect(Object.keys(BUILTIN_MODELS)).toEqual(fromProviders);
  });
});

describe.each(PROVIDER_DEFINITIONS.map((definition) => [definition.name, definition] as const))(
  "provider %s",
  (name, definition) => {
    const example = `${name}/${definition.help.exampleModel}`;

    it("has a lower-case name usable as the provider part of a model ref, and help text", () => {
      expect(name).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(definition.help.label.trim()).not.toBe("");
      expect(definition.help.exampleModel.trim()).not.toBe("");
      expect(definition.help.exampleModel.startsWith(`${name}/`)).toBe(false);
      expect(definition.sdkProvider.trim()).not.toBe("");
      expect(definition.optionsKey).toMatch(/^[a-z][a-z0-9-]*$/);
    });

    it("round-trips its model refs, including model ids with slashes", () => {
      for (const model of [definition.help.exampleModel, "vendor/some-model:1"]) {
        const ref = parseModelRef(` ${name}/${model} `);
        expect(ref).toEqual({ provider: name, model });
        expect(formatModelRef(ref)).toBe(`${name}/${model}`);
      }
    });

    it("names its environment variables, and says where requests go or how to say it", () => {
      const env = definition.env;
      expect(env.apiKey).toMatch(ENV_VARIABLE);
      expect(providerEnv(name)).toBe(env);
      expect(apiKeyVariable(name)).toBe(env.apiKey);
      if (env.baseURL !== undefined) expect(env.baseURL).toMatch(ENV_VARIABLE);
      if (env.defaultBaseURL !== undefined) expect(new URL(env.defaultBaseURL).protocol).toMatch(/^https?:$/);
      else expect(env.baseURLHint?.trim() ?? "").not.toBe("");
      if (definition.otherCredentials !== undefined) {
        expect(definition.otherCredentials.instead).toMatch(/[A-Z][A-Z0-9_]+/);
        expect(definition.otherCredentials.present({})).toBe(false);
      }
    });

    it("resolves through the registry with its key and address, and refuses without them, naming the variable", () => {
      const config = ConfigSchema.parse(definition.env.baseURL === undefined ? { baseURL: OFFLINE_BASE_URL } : {});
      const resolved = createModelRegistry({ config, env: workingEnv(definition), fetch: noFetch }).resolve(example);
      expect(resolved.ref).toBe(example);
      expect(resolved.model.provider).toBe(definition.sdkProvider);
      expect(resolved.model.modelId).toBe(definition.help.exampleModel);
      expect(resolved.info).toEqual(modelInfo(example));

      const addressOnly = definition.env.baseURL === undefined ? {} : { [definition.env.baseURL]: OFFLINE_BASE_URL };
      const keyless = createModelRegistry({ config, env: addressOnly, fetch: noFetch });
      const needsKey = definition.env.apiKeyRequired || definition.otherCredentials !== undefined;
      if (!needsKey) expect(keyless.resolve(example).ref).toBe(example);
      else {
        let error: unknown;
        try {
          keyless.resolve(example);
        } catch (err) {
          error = err;
        }
        expect(error).toBeInstanceOf(ArborError);
        expect(error).toMatchObject({ code: "missing_api_key", details: { variable: definition.env.apiKey } });
        expect((error as ArborError).message).toContain(definition.env.apiKey);
      }
    });

    it("names its key variable when the provider refuses the key", () => {
      const said = explainProviderError({ status: 401, type: undefined, detail: "invalid key" }, example);
      expect(said).toContain(definition.env.apiKey);
    });

    it("builds its AI SDK model from a key and a base URL, with no request", async () => {
      const model = await definition.load(offlineSettings(name, definition.help.exampleModel));
      expect(model.specificationVersion).toBe("v4");
      expect(model.provider).toBe(definition.sdkProvider);
      expect(model.modelId).toBe(definition.help.exampleModel);
      expect(await loadProviderModel(offlineSettings(name))).toMatchObject({ provider: definition.sdkProvider });
    });

    it("builds its embedding model the same way, when it has one", async () => {
      const load = embeddingLoader(name);
      expect(load).toBe(definition.loadEmbedding);
      if (load === undefined) return;
      const model = await load(offlineSettings(name, "embed-model"));
      expect(model.specificationVersion).toBe("v4");
      expect(model.modelId).toBe("embed-model");
    });

    it("gives thinking options of a valid shape for every level and budget, under its own key, in the call options", () => {
      for (const level of THINKING_REQUESTS) {
        const own = definition.thinking?.(level);
        expectOptionsShape(own, definition.optionsKey);
        const call = thinkingCallOptions(level);
        expect(call.reasoning).toEqual(typeof level === "number" ? expect.any(String) : level);
        if (own !== undefined) expect(call.providerOptions).toMatchObject(own);
      }
      expect(thinkingCallOptions("off")).toEqual({ reasoning: "none" });
    });

    it("marks cache breakpoints, if it needs them, under its own key, and the generic lookup finds them", () => {
      for (const model of [definition.help.exampleModel, "anthropic.some-model", "other-model"]) {
        const mark = definition.cacheMark?.(model);
        expectOptionsShape(mark, definition.optionsKey);
        expect(cacheMarkFor(`${name}/${model}`, definition.sdkProvider)).toEqual(mark);
      }
    });

    it("lists catalog models that parse as ModelInfo and are found under provider/model", () => {
      for (const [model, info] of Object.entries(definition.models ?? {})) {
        expect(ModelInfoSchema.parse(info)).toEqual(info);
        expect(modelInfo(`${name}/${model}`)).toBe(info);
      }
    });
  },
);
