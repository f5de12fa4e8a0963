import { join } from "node:path";
import { loadConfig } from "@arbor/core";
import { createEmbedder } from "@arbor/core/llm";
import { KnowledgeBase } from "@arbor/core/tools";
import { writeJson, writeLines } from "../io.js";
import { arborHomeOf } from "../store.js";
import type { Command, CommandGroup } from "./command.js";

export const kbAdd: Command = {
  name: "add",
  operands: ["files|dir"],
  summary: "Index documents (Markdown, text, HTML, PDF) into the knowledge base search_knowledge_base searches.",
  details: [
    "Each operand is a file or a folder (searched recursively, hidden folders and node_modules left out). Adding a file again replaces its passages.",
    "With knowledge.embeddingModel set (KNOWLEDGE_EMBEDDING_MODEL), each passage is also embedded, so searches rank by meaning as well as by words; a changed model re-embeds every stored passage.",
    "The knowledge base lives in $ARBOR_HOME/knowledge/. With --json: {documents, passages, skipped: [{path, reason}], embedded}.",
  ],
  options: {},
  async run(ctx) {
    const cwd = ctx.io.cwd ?? process.cwd();
    const config = loadConfig({ cwd, env: ctx.io.env });
    const embedder = createEmbedder({ config, env: ctx.io.env });
    const knowledge = new KnowledgeBase(join(arborHomeOf(ctx.io), "knowledge"), { embedder });
    const report = await knowledge.add(ctx.operands, cwd);
    if (ctx.json) {
      writeJson(ctx.io.stdout, report);
      return;
    }
    const size = await knowledge.size();
    writeLines(ctx.io.stdout, [
      `Indexed ${report.documents} document${report.documents === 1 ? "" : "s"} (${report.passages} passage${report.passages === 1 ? "" : "s"}); the knowledge base holds ${size.documents} documents.`,
      ...(embedder ? [`Embedded ${report.embedded} passage${report.embedded === 1 ? "" : "s"} with ${embedder.id}.`] : []),
      ...report.skipped.map((s) => `skipped ${s.path}: ${s.reason}`),
    ]);
  },
};

export const kbGroup: CommandGroup = {
  name: "kb",
  summary: "Knowledge base: add documents for the agent's search_knowledge_base tool.",
  commands: [kbAdd],
};
