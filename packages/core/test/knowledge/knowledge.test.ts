import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeOpenAI, text, toolCall } from "@arbor/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { loadScaled } from "../../../../test-setup/timing.js";
import { resolveConfig } from "../../src/config/resolve.js";
import { KnowledgeBase } from "../../src/knowledge/knowledge-base.js";
import { messageTrace } from "../../src/trace/message-trace.js";
import { collect, harness, tempDir } from "../loop/harness.js";
import { medianQuery, writeNeedleCorpus } from "./needle-corpus.js";

const servers: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function docs(): string {
  const dir = tempDir("arbor-docs-");
  mkdirSync(join(dir, "guide"));
  writeFileSync(
    join(dir, "guide", "deploy.md"),
    "# Deploying\n\nThe staging cluster is deployed with `make ship`.\n\nRollbacks use `make undo`.\n",
  );
  writeFileSync(join(dir, "faq.html"), "<html><body><h1>FAQ</h1><p>The office cat is called <b>Biscuit</b>.</p></body></html>");
  writeFileSync(join(dir, "notes.txt"), "Quarterly numbers are in the finance share.\n");
  writeFileSync(join(dir, "image.png"), "\u0089PNG");
  return dir;
}

/** A small valid PDF with one line of Helvetica text per page, its cross-reference table computed. */
function pdf(pages: readonly string[]): Buffer {
  const objects: string[] = [];
  const font = 3 + pages.length * 2;
  objects.push("<< /Type /Catalog /Pages 2 0 R >>");
  objects.push(`<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(" ")}] /Count ${pages.length} >>`);
  pages.forEach((line, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
    );
    const stream = `BT /F1 12 Tf 72 720 Td (${line}) Tj ET`;
    objects.push(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`);
  });
  objects.push("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>");
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, "0")} 00000 n \n`).join("")}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, "latin1");
}

describe("the knowledge base", () => {
  it("reads a PDF page by page and cites the page", async () => {
    const home = tempDir("arbor-home-");
    const dir = tempDir("arbor-docs-");
    writeFileSync(join(dir, "manual.pdf"), pdf(["Welcome to the pump manual.", "Bleed the valve before servicing the pump."]));
    const kb = new KnowledgeBase(join(home, "knowledge"));
    expect(await kb.add([dir], "/")).toMatchObject({ documents: 1, passages: 2, skipped: [] });
    const hits = await kb.search("bleed valve", 1);
    expect(hits[0]).toMatchObject({
      source: join(dir, "manual.pdf"),
      page: 2,
      text: "Bleed the valve before servicing the pump.",
    });
    writeFileSync(join(dir, "broken.pdf"), "%PDF-1.4 not really");
    const report = await kb.add([join(dir, "broken.pdf")], "/");
    expect(report).toMatchObject({
      documents: 0,
      skipped: [{ path: join(dir, "broken.pdf"), reason: expect.stringMatching(/^could not be read/) }],
    });
  });

  it("indexes Markdown, HTML and text, skips other formats, and ranks passages with their source and lines", async () => {
    const home = tempDir("arbor-home-");
    const dir = docs();
    const kb = new KnowledgeBase(join(home, "knowledge"));
    const report = await kb.add([dir], "/");
    expect(report).toMatchObject({
      documents: 3,
      skipped: [{ path: join(dir, "image.png"), reason: "not a Markdown, text, HTML or PDF file" }],
    });
    const hits = await kb.search("how is staging deployed", 3);
    expect(hits[0]).toMatchObject({
      source: join(dir, "guide", "deploy.md"),
      startLine: 1,
      text: expect.stringContaining("make ship"),
    });
    // Words meet through their stems: "deploying" finds "deployed".
    expect((await kb.search("deploying", 1))[0]).toMatchObject({ source: join(dir, "guide", "deploy.md") });
    expect((await kb.search("cat name", 1))[0]).toMatchObject({
      source: join(dir, "faq.html"),
      text: expect.stringContaining("Biscuit"),
    });
    // Another instance (another process) reads what was written; adding a file again replaces its passages.
    writeFileSync(join(dir, "notes.txt"), "Quarterly numbers moved to the reports portal.\n");
    await new KnowledgeBase(join(home, "knowledge")).add([join(dir, "notes.txt")], "/");
    expect((await kb.size()).documents).toBe(3);
    const numbers = await kb.search("quarterly numbers", 5);
    expect(numbers.map((h) => h.text)).toEqual(["Quarterly numbers moved to the reports portal."]);
  });

  it("skips random bytes named .md and documents over 10 MB, saying why, and indexes the rest", async () => {
    const dir = tempDir("arbor-docs-");
    const random = Buffer.alloc(5 * 1024 * 1024);
    for (let i = 0; i < random.length; i++) random[i] = (i * 2654435761) >>> 24;
    writeFileSync(join(dir, "random.md"), random);
    writeFileSync(join(dir, "latin1.txt"), Buffer.from(Array.from({ length: 4000 }, (_, i) => 0x80 + (i % 100))));
    writeFileSync(join(dir, "huge.txt"), "word ".repeat(2_200_000));
    writeFileSync(join(dir, "ok.md"), "# Fine\n\nThe kettle is in the kitchen.\n");
    const kb = new KnowledgeBase(join(tempDir(), "kb"));
    const report = await kb.add(["."], dir);
    expect(report.documents).toBe(1);
    expect(report.skipped).toEqual(
      expect.arrayContaining([
        { path: join(dir, "random.md"), reason: expect.stringMatching(/^binary content/) },
        { path: join(dir, "latin1.txt"), reason: "binary content (not UTF-8 text)" },
        { path: join(dir, "huge.txt"), reason: expect.stringMatching(/^larger than 10 MB \(10\.5 MB\)/) },
      ]),
    );
    expect((await kb.search("kettle", 3))[0]?.source).toBe(join(dir, "ok.md"));
  });

  it("refuses an add that would pass the passage limit, keeping the base as it was", async () => {
    const dir = tempDir("arbor-docs-");
    writeFileSync(join(dir, "one.md"), "The kettle is in the kitchen.\n");
    writeFileSync(join(dir, "many.md"), Array.from({ length: 5 }, (_, i) => `${"x".repeat(1300)} paragraph ${i}`).join("\n\n"));
    const kb = new KnowledgeBase(join(tempDir(), "kb"), { maxPassages: 3 });
    await kb.add(["one.md"], dir);
    await expect(kb.add(["many.md"], dir)).rejects.toThrow(
      /would make the knowledge base hold 6 passages, over its limit of 3; nothing was added/,
    );
    expect(await kb.size()).toEqual({ documents: 1, passages: 1 });
  });

  it("leaves common words out, so a question matches passages by its content words alone", async () => {
    const home = tempDir("arbor-home-");
    const dir = docs();
    const kb = new KnowledgeBase(join(home, "knowledge"));
    await kb.add([dir], "/");
    // Every document has "the"; only one has the question's other words.
    expect((await kb.search("where are the quarterly numbers", 5)).map((h) => h.source)).toEqual([join(dir, "notes.txt")]);
    expect(await kb.search("what is the", 5)).toEqual([]);
  });

  it("answers over the fake OpenAI server from an indexed document, with the reference in the message trace", async () => {
    const server = await startFakeOpenAI({
      script: [
        [toolCall("search_knowledge_base", { query: "office cat" }, { id: "kb1" })],
        [text("The office cat is Biscuit (faq.html).")],
      ],
    });
    servers.push(server);
    const config = resolveConfig([{ source: "test", value: { baseURL: server.url } }]);
    const { runtime, store, home } = await harness({ config, model: "openai-compatible/fake" });
    const dir = docs();
    await new KnowledgeBase(join(home, "knowledge")).add([dir], "/");
    const { result } = await collect(runtime.runs.run({ prompt: "What is the office cat called?" }));
    expect(result).toMatchObject({ status: "done", text: "The office cat is Biscuit (faq.html)." });
    const trace = messageTrace(result.sessionId, await store.getActivePath(result.sessionId));
    const answer = trace.find((m) => m.role === "assistant")!;
    expect(answer.knowledgeReferences[0]).toMatchObject({
      source: join(dir, "faq.html"),
      location: expect.stringMatching(/^lines \d+-\d+$/),
      excerpt: expect.stringContaining("Biscuit"),
    });
    expect(trace.find((m) => m.role === "user")!.knowledgeReferences).toEqual([]);
  });

  it("answers a query over 1,000 documents (10 MB) in a few milliseconds", async () => {
    const home = tempDir("arbor-home-");
    const dir = tempDir("arbor-bench-");
    // Prose has a function word about every other word, and such words are in every passage.
    writeNeedleCorpus(dir, "the of and to in is it that for on how do i where what".split(" "));
    const kb = new KnowledgeBase(join(home, "knowledge"));
    const started = performance.now();
    await kb.add([dir], "/");
    const indexMs = performance.now() - started;
    const { median, top } = await medianQuery(
      () => kb.search("warm up", 1),
      async () => (await kb.search("how do I get to the zircon harbour?", 3))[0]?.source ?? "",
    );
    console.info(
      `knowledge base: 1,000 documents (10 MB) indexed in ${Math.round(indexMs)} ms; query median ${median.toFixed(1)} ms`,
    );
    expect(top).toBe(join(dir, "doc-500.md"));
    expect(median).toBeLessThan(loadScaled(50));
  }, 120_000);
});
