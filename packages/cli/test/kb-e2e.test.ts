import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KnowledgeBase } from "@arbor/core/tools";
import { type FakeOpenAIServer, startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";

const dirs: string[] = [];
const servers: FakeOpenAIServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** An embedding where "feline" and "cat" are one concept, so meaning can find what words cannot. */
function felineEmbed(input: string): number[] {
  const words = input.toLowerCase().match(/[a-z]+/g) ?? [];
  return [words.filter((w) => w === "cat" || w === "feline").length, 0.1 * words.length];
}

describe("arbor kb add", () => {
  it("indexes a folder into $ARBOR_HOME/knowledge, reporting what it skipped", async () => {
    const home = await mkdtemp(join(tmpdir(), "arbor-kb-home-"));
    const docs = await mkdtemp(join(tmpdir(), "arbor-kb-docs-"));
    dirs.push(home, docs);
    await writeFile(join(docs, "runbook.md"), "# Runbook\n\nRestart the queue with `svc restart queue`.\n");
    await writeFile(join(docs, "data.bin"), "x");
    const r = await arbor(["kb", "add", docs, "--json"], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      documents: 1,
      passages: 1,
      skipped: [{ path: join(docs, "data.bin"), reason: "not a Markdown, text, HTML or PDF file" }],
      embedded: 0,
    });
    const hits = await new KnowledgeBase(join(home, "knowledge")).search("restart queue", 1);
    expect(hits[0]).toMatchObject({ source: join(docs, "runbook.md") });
    const text = await arbor(["kb", "add", join(docs, "runbook.md")], { home });
    expect(text.stdout).toBe("Indexed 1 document (1 passage); the knowledge base holds 1 documents.\n");
  });

  it("with KNOWLEDGE_EMBEDDING_MODEL, kb add embeds the passages and a run's search finds one by meaning", async () => {
    const home = await mkdtemp(join(tmpdir(), "arbor-kb-home-"));
    const docs = await mkdtemp(join(tmpdir(), "arbor-kb-docs-"));
    dirs.push(home, docs);
    await writeFile(join(docs, "faq.md"), "# FAQ\n\nThe cat at the desk is called Biscuit.\n");
    await writeFile(join(docs, "runbook.md"), "# Runbook\n\nRestart the queue with `svc restart queue`.\n");
    const server = await startFakeOpenAI({
      script: [[toolCall("search_knowledge_base", { query: "feline" }, { id: "kb1" })], [text("Biscuit.")]],
      embed: felineEmbed,
    });
    servers.push(server);
    const env = { KNOWLEDGE_EMBEDDING_MODEL: "openai-compatible/feline-embed", ARBOR_BASE_URL: server.baseURL };
    const add = await arbor(["kb", "add", docs], { home, env });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("Embedded 2 passages with openai-compatible/feline-embed.");
    const run = await arbor(["run", "--model", "openai-compatible/fake", "What is the feline called?"], { home, env });
    expect(run.code, run.stderr).toBe(0);
    const chats = server.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(chats).toHaveLength(2);
    // The tool's answer, sent back to the model, holds the passage no word of the query matches.
    expect(JSON.stringify(chats[1]!.body)).toContain("The cat at the desk is called Biscuit.");
    const embeddings = server.requests.filter((r) => r.path === "/v1/embeddings");
    expect(embeddings.map((r) => (r.body as { input: unknown }).input)).toEqual([
      [expect.stringContaining("Biscuit"), expect.stringContaining("Restart")],
      ["feline"],
    ]);
  });
});
