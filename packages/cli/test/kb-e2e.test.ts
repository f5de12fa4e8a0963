import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { KnowledgeBase } from "@arbor/core/internal";
import { afterEach, describe, expect, it } from "vitest";
import { arbor } from "./helpers/cli.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

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
    });
    const hits = await new KnowledgeBase(join(home, "knowledge")).search("restart queue", 1);
    expect(hits[0]).toMatchObject({ source: join(docs, "runbook.md") });
    const text = await arbor(["kb", "add", join(docs, "runbook.md")], { home });
    expect(text.stdout).toBe("Indexed 1 document (1 passage); the knowledge base holds 1 documents.\n");
  });
});
