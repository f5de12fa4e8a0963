import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EmbeddingModelV4 } from "@ai-sdk/provider";
import { type FakeOpenAIServer, hashedBagOfWords, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { loadScaled } from "../../../../test-setup/timing.js";
import { resolveConfig } from "../../src/config/resolve.js";
import { ArborError } from "../../src/errors.js";
import { type Embedder, modelEmbedder } from "../../src/knowledge/embedder.js";
import { KnowledgeBase } from "../../src/knowledge/knowledge-base.js";
import { EMBEDDING_PROVIDERS, embeddingLoader } from "../../src/llm/embedding-providers.js";
import { createEmbedder } from "../../src/llm/registry.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { medianQuery, writeNeedleCorpus } from "./needle-corpus.js";

const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

/**
 * A fake embedding that knows synonyms: words of one concept land in the same slot, so "feline"
 * is near "cat" although the two share no letters a lexical index would match.
 */
const CONCEPTS = [
  ["cat", "cats", "feline", "kitten"],
  ["deploy", "deployed", "ship", "release", "rollout"],
  ["money", "numbers", "finance", "revenue", "earnings"],
  ["companion", "pet", "office"],
];
function conceptEmbed(input: string): number[] {
  const vector = new Array<number>(CONCEPTS.length + 1).fill(0);
  for (const word of input.toLowerCase().match(/[a-z]+/g) ?? []) {
    const slot = CONCEPTS.findIndex((words) => words.includes(word));
    vector[slot === -1 ? CONCEPTS.length : slot]! += slot === -1 ? 0.1 : 1;
  }
  return vector;
}

async function server(): Promise<FakeOpenAIServer> {
  const s = await startFakeOpenAI({ script: [], embed: conceptEmbed });
  servers.push(s);
  return s;
}

function embedderFor(s: FakeOpenAIServer, model: string): Embedder {
  const config = resolveConfig([{ source: "test", value: { baseURL: s.baseURL, knowledge: { embeddingModel: model } } }]);
  const embedder = createEmbedder({ config, env: {} });
  if (!embedder) throw new Error("no embedder");
  return embedder;
}

function docs(): string {
  const dir = tempDir("arbor-docs-");
  writeFileSync(join(dir, "deploy.md"), "# Deploying\n\nThe staging cluster is deployed with `make ship`.\n");
  writeFileSync(join(dir, "faq.md"), "# FAQ\n\nThe cat at the desk is called Biscuit.\n");
  writeFileSync(join(dir, "notes.txt"), "Quarterly numbers are in the finance share.\n");
  return dir;
}

const QUERY = "feline companion";

describe("knowledge-base embeddings", () => {
  it("finds a passage sharing no word with the query through an embedding model over HTTP; without one, words only", async () => {
    const s = await server();
    const home = tempDir("arbor-home-");
    const dir = docs();
    const embedder = embedderFor(s, "openai-compatible/concepts");
    const kb = new KnowledgeBase(join(home, "knowledge"), { embedder });
    expect(await kb.add([dir], "/")).toMatchObject({ documents: 3, passages: 3, embedded: 3 });
    // One batch for the three passages, through the provider's real embeddings request.
    const calls = s.requests.filter((r) => r.path === "/v1/embeddings");
    expect(calls).toHaveLength(1);
    expect(calls[0]!.body).toMatchObject({ model: "concepts", input: expect.arrayContaining([expect.any(String)]) });

    const found = await kb.query(QUERY, 2);
    expect(found.ranking).toBe("hybrid");
    expect(found.notice).toBeUndefined();
    expect(found.hits[0]).toMatchObject({ source: join(dir, "faq.md"), text: expect.stringContaining("Biscuit") });
    // Words still count: a lexical match comes first when meaning agrees.
    expect((await kb.search("staging cluster", 1))[0]).toMatchObject({ source: join(dir, "deploy.md") });

    // The same base without an embedding model: lexical only, and the query finds nothing.
    const lexical = new KnowledgeBase(join(home, "knowledge"));
    expect(await lexical.query(QUERY, 2)).toEqual({ hits: [], ranking: "lexical" });
  });

  it("does not mix vectors of another model: it ranks by words and says so once, and a re-add re-embeds", async () => {
    const s = await server();
    const home = tempDir("arbor-home-");
    const dir = docs();
    await new KnowledgeBase(join(home, "knowledge"), { embedder: embedderFor(s, "openai-compatible/concepts") }).add([dir], "/");
    const other = new KnowledgeBase(join(home, "knowledge"), { embedder: embedderFor(s, "openai-compatible/other") });
    const first = await other.query(QUERY, 2);
    expect(first).toMatchObject({ hits: [], ranking: "lexical" });
    expect(first.notice).toMatch(/made by openai-compatible\/concepts, not openai-compatible\/other/);
    expect((await other.query(QUERY, 2)).notice).toBeUndefined();
    const before = s.requests.length;
    // Adding one file with the new model re-embeds every stored passage, so none is left with the old one's vector.
    expect(await other.add([join(dir, "notes.txt")], "/")).toMatchObject({ documents: 1, embedded: 3 });
    expect(s.requests.length).toBe(before + 1);
    const after = await other.query(QUERY, 2);
    expect(after.ranking).toBe("hybrid");
    expect(after.hits[0]).toMatchObject({ source: join(dir, "faq.md") });
  });

  it("a base indexed without embeddings is searched by words, saying how to add meaning", async () => {
    const s = await server();
    const home = tempDir("arbor-home-");
    await new KnowledgeBase(join(home, "knowledge")).add([docs()], "/");
    const kb = new KnowledgeBase(join(home, "knowledge"), { embedder: embedderFor(s, "openai-compatible/concepts") });
    const result = await kb.query("staging", 1);
    expect(result.ranking).toBe("lexical");
    expect(result.hits).toHaveLength(1);
    expect(result.notice).toMatch(/indexed without an embedding model.*arbor kb add/);
  });

  it("a failing embedding model leaves the base as it was", async () => {
    const home = tempDir("arbor-home-");
    const dir = docs();
    const failing: Embedder = {
      id: "test/failing",
      embed: () => Promise.reject(new ArborError("io_error", "embedding server down")),
    };
    await expect(new KnowledgeBase(join(home, "knowledge"), { embedder: failing }).add([dir], "/")).rejects.toThrow(
      "embedding server down",
    );
    expect(await new KnowledgeBase(join(home, "knowledge")).size()).toEqual({ documents: 0, passages: 0 });
  });

  it("embeds in batches of the model's maxEmbeddingsPerCall", async () => {
    const batches: string[][] = [];
    const model: EmbeddingModelV4 = {
      specificationVersion: "v4",
      provider: "test",
      modelId: "small-batches",
      maxEmbeddingsPerCall: 2,
      supportsParallelCalls: false,
      doEmbed: async ({ values }) => {
        batches.push(values);
        return { embeddings: values.map((v) => hashedBagOfWords(v)), warnings: [] };
      },
    };
    const vectors = await modelEmbedder("test/small-batches", async () => model).embed(["a", "b", "c", "d", "e"]);
    expect(vectors).toHaveLength(5);
    expect(batches).toEqual([["a", "b"], ["c", "d"], ["e"]]);
  });

  it("each provider with embedding models loads its SDK's model; openai's goes over HTTP with the key from the env", async () => {
    for (const provider of EMBEDDING_PROVIDERS) {
      const model = await embeddingLoader(provider)!({
        provider,
        model: "m",
        baseURL: "http://127.0.0.1:9/v1",
        apiKey: "k",
        env: { AWS_REGION: "us-east-1" },
      });
      expect(model.specificationVersion, provider).toBe("v4");
      expect(model.modelId, provider).toBe("m");
    }
    const s = await server();
    const config = resolveConfig([{ source: "test", value: { knowledge: { embeddingModel: "openai/text-embedding-3-small" } } }]);
    const keyless = createEmbedder({ config, env: { OPENAI_BASE_URL: s.baseURL } })!;
    await expect(keyless.embed(["cat"])).rejects.toMatchObject({ code: "missing_api_key" });
    const embedder = createEmbedder({ config, env: { OPENAI_BASE_URL: s.baseURL, OPENAI_API_KEY: "sk-test" } })!;
    expect(await embedder.embed(["cat", "money"])).toEqual([conceptEmbed("cat"), conceptEmbed("money")]);
    const call = s.requests.at(-1)!;
    expect(call).toMatchObject({ path: "/v1/embeddings", body: { model: "text-embedding-3-small" } });
    expect(call.headers.authorization).toBe("Bearer sk-test");
  });

  it("refuses a provider without embedding models, naming those with one", () => {
    const config = resolveConfig([{ source: "test", value: { knowledge: { embeddingModel: "anthropic/claude" } } }]);
    expect(() => createEmbedder({ config, env: {} })).toThrow(/anthropic has no embedding models.*openai/);
    expect(createEmbedder({ config: resolveConfig([]), env: {} })).toBeUndefined();
    expect(() => resolveConfig([{ source: "test", value: { knowledge: { embeddingModel: "nomodel" } } }])).toThrow(
      /provider\/model/,
    );
  });

  it("a run's search_knowledge_base ranks by meaning when knowledge.embeddingModel is set", async () => {
    const s = await startFakeOpenAI({
      script: [[toolCall("search_knowledge_base", { query: QUERY }, { id: "kb1" })], [text("It is Biscuit.")]],
      embed: conceptEmbed,
    });
    servers.push(s);
    const config = resolveConfig([
      { source: "test", value: { baseURL: s.baseURL, knowledge: { embeddingModel: "openai-compatible/concepts" } } },
    ]);
    const { runtime, home } = await harness({ config, model: "openai-compatible/fake", env: {} });
    const dir = docs();
    await new KnowledgeBase(join(home, "knowledge"), { embedder: embedderFor(s, "openai-compatible/concepts") }).add([dir], "/");
    const { result } = await collect(runtime.runs.run({ prompt: "Who is the feline companion?" }));
    expect(result).toMatchObject({ status: "done", text: "It is Biscuit." });
    const chats = s.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(JSON.stringify(chats[1]!.body)).toContain("The cat at the desk is called Biscuit.");
  });

  it("the tool tells the model, once, when the base's vectors cannot be used", async () => {
    const s = await startFakeOpenAI({
      script: [
        [toolCall("search_knowledge_base", { query: "staging" }, { id: "kb1" })],
        [toolCall("search_knowledge_base", { query: "staging" }, { id: "kb2" })],
        [text("Deployed with make ship.")],
      ],
      embed: conceptEmbed,
    });
    servers.push(s);
    const config = resolveConfig([
      { source: "test", value: { baseURL: s.baseURL, knowledge: { embeddingModel: "openai-compatible/concepts" } } },
    ]);
    const { runtime, home } = await harness({ config, model: "openai-compatible/fake", env: {} });
    await new KnowledgeBase(join(home, "knowledge")).add([docs()], "/");
    const { result } = await collect(runtime.runs.run({ prompt: "How is staging deployed?" }));
    expect(result).toMatchObject({ status: "done" });
    const chats = s.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => JSON.stringify(r.body));
    const note = "Note: The knowledge base was indexed without an embedding model";
    expect(chats[1]).toContain(note);
    expect(chats[2]!.split(note)).toHaveLength(2);
    expect(chats[2]).toContain("make ship");
  });

  it("answers a hybrid query over 1,000 documents (10 MB) quickly", async () => {
    const s = await startFakeOpenAI({ script: [] });
    servers.push(s);
    const home = tempDir("arbor-home-");
    const dir = tempDir("arbor-bench-");
    writeNeedleCorpus(dir);
    const kb = new KnowledgeBase(join(home, "knowledge"), { embedder: embedderFor(s, "openai-compatible/hashed") });
    const started = performance.now();
    const report = await kb.add([dir], "/");
    const indexMs = performance.now() - started;
    const { median, top } = await medianQuery(
      () => kb.query("warm up", 1),
      async () => {
        const found = await kb.query("zircon harbour", 3);
        expect(found.ranking).toBe("hybrid");
        return found.hits[0]?.source ?? "";
      },
    );
    console.info(
      `knowledge base with embeddings: 1,000 documents (${report.embedded} passages) indexed and embedded in ${Math.round(indexMs)} ms; hybrid query median ${median.toFixed(1)} ms (query embedding over HTTP included)`,
    );
    expect(top).toBe(join(dir, "doc-500.md"));
    expect(median).toBeLessThan(loadScaled(100));
  }, 180_000);
});
