import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { KnowledgeBase } from "@arbor/core/tools";
import { text, toolCall } from "@arbor/testkit";
import { describe, expect, it } from "vitest";
import { FAKE_MODEL, setupCliE2e } from "./helpers/e2e.js";
import { runArborInProcess } from "./helpers/in-process.js";

const e2e = setupCliE2e("arbor-kb-", { workspace: false });

/** A home and a folder of documents of the test's own. */
async function homeAndDocs(): Promise<{ home: string; docs: string }> {
  const home = e2e.freshDir("home");
  const docs = e2e.freshDir("docs");
  await Promise.all([mkdir(home), mkdir(docs)]);
  return { home, docs };
}

/** An embedding where "feline" and "cat" are one concept, so meaning can find what words cannot. */
function felineEmbed(input: string): number[] {
  const words = input.toLowerCase().match(/[a-z]+/g) ?? [];
  return [words.filter((w) => w === "cat" || w === "feline").length, 0.1 * words.length];
}

describe("arbor kb add", () => {
  it("indexes a folder into $ARBOR_HOME/knowledge, reporting what it skipped", async () => {
    const { home, docs } = await homeAndDocs();
    await writeFile(join(docs, "runbook.md"), "# Runbook\n\nRestart the queue with `svc restart queue`.\n");
    await writeFile(join(docs, "data.bin"), "x");
    const r = await runArborInProcess(["kb", "add", docs, "--json"], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      documents: 1,
      passages: 1,
      skipped: [{ path: join(docs, "data.bin"), reason: "not a Markdown, text, HTML or PDF file" }],
      embedded: 0,
    });
    const hits = await new KnowledgeBase(join(home, "knowledge")).search("restart queue", 1);
    expect(hits[0]).toMatchObject({ source: join(docs, "runbook.md") });
    const text = await runArborInProcess(["kb", "add", join(docs, "runbook.md")], { home });
    expect(text.stdout).toBe("Indexed 1 document (1 passage); the knowledge base holds 1 documents.\n");
  });

  it("with KNOWLEDGE_EMBEDDING_MODEL, kb add embeds the passages and a run's search finds one by meaning", async () => {
    const { home, docs } = await homeAndDocs();
    await writeFile(join(docs, "faq.md"), "# FAQ\n\nThe cat at the desk is called Biscuit.\n");
    await writeFile(join(docs, "runbook.md"), "# Runbook\n\nRestart the queue with `svc restart queue`.\n");
    const server = await e2e.startFake({
      script: [[toolCall("search_knowledge_base", { query: "feline" }, { id: "kb1" })], [text("Biscuit.")]],
      embed: felineEmbed,
    });
    const env = { KNOWLEDGE_EMBEDDING_MODEL: "openai-compatible/feline-embed", ARBOR_BASE_URL: server.baseURL };
    const add = await runArborInProcess(["kb", "add", docs], { home, env });
    expect(add.code, add.stderr).toBe(0);
    expect(add.stdout).toContain("Embedded 2 passages with openai-compatible/feline-embed.");
    const run = await runArborInProcess(["run", "--model", FAKE_MODEL, "What is the feline called?"], { home, env });
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

describe("arbor kb search, list and rm", () => {
  it("searches, lists and removes documents; a path that names none is an error that removes nothing", async () => {
    const { home, docs } = await homeAndDocs();
    await mkdir(join(docs, "pets"));
    await writeFile(join(docs, "runbook.md"), "# Runbook\n\nRestart the queue with `svc restart queue`.\n");
    await writeFile(join(docs, "pets", "cats.md"), "# Cats\n\nThe cat at the desk is called Biscuit.\n");
    const empty = await runArborInProcess(["kb", "list"], { home });
    expect(empty.stdout).toBe("The knowledge base is empty: add documents with 'arbor kb add <files|dir>'.\n");
    expect((await runArborInProcess(["kb", "add", docs], { home })).code).toBe(0);

    const list = await runArborInProcess(["kb", "list", "--json"], { home });
    expect(JSON.parse(list.stdout)).toEqual({
      documents: [
        { source: join(docs, "pets", "cats.md"), passages: 1 },
        { source: join(docs, "runbook.md"), passages: 1 },
      ],
    });
    const search = await runArborInProcess(["kb", "search", "restart the queue"], { home });
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout.split("\n")[0]).toMatch(new RegExp(`^${join(docs, "runbook.md")}:1-3  score \\d`));
    expect(search.stdout).toContain("Restart the queue");
    const one = await runArborInProcess(["kb", "search", "Biscuit", "--limit", "1", "--json"], { home });
    expect(JSON.parse(one.stdout)).toMatchObject({ hits: [{ source: join(docs, "pets", "cats.md") }], ranking: "lexical" });

    const missing = await runArborInProcess(["kb", "rm", "nothere"], { home, cwd: docs });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/No document of the knowledge base is nothere or under it/);
    // A folder takes every document under it, named relative to the current directory.
    const rm = await runArborInProcess(["kb", "rm", "pets"], { home, cwd: docs });
    expect(rm.code, rm.stderr).toBe(0);
    expect(rm.stdout).toBe(`Removed 1 document:\n  ${join(docs, "pets", "cats.md")}\n`);
    expect((await runArborInProcess(["kb", "search", "Biscuit"], { home })).stdout).toBe("No passage matches.\n");
    expect(JSON.parse((await runArborInProcess(["kb", "list", "--json"], { home })).stdout).documents).toHaveLength(1);
  }, 60_000);
});
