import { join } from "node:path";
import { loadConfig } from "@arbor/core";
import { createEmbedder } from "@arbor/core/llm";
import { KnowledgeBase } from "@arbor/core/tools";
import { writeJson, writeLines } from "../io.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";

export async function runKbAdd(ctx: CommandContext): Promise<void> {
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
}
