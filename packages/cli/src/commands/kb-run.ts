import { join } from "node:path";
import { ArborError, loadConfig } from "@arbor/core";
import { createEmbedder } from "@arbor/core/llm";
import { KnowledgeBase } from "@arbor/core/tools";
import { intOption } from "../args.js";
import { writeJson, writeLines } from "../io.js";
import { oneLine, plural, truncate } from "../render/text.js";
import { arborHomeOf } from "../store.js";
import type { CommandContext } from "./command.js";

/** The knowledge base of `$ARBOR_HOME`, with the configured embedding model (if any). */
function openKnowledge(ctx: CommandContext): { knowledge: KnowledgeBase; embedderId: string | undefined; cwd: string } {
  const cwd = ctx.io.cwd ?? process.cwd();
  const config = loadConfig({ cwd, env: ctx.io.env });
  const embedder = createEmbedder({ config, env: ctx.io.env });
  const knowledge = new KnowledgeBase(join(arborHomeOf(ctx.io), "knowledge"), { embedder });
  return { knowledge, embedderId: embedder?.id, cwd };
}

export async function runKbAdd(ctx: CommandContext): Promise<void> {
  const { knowledge, embedderId, cwd } = openKnowledge(ctx);
  const report = await knowledge.add(ctx.operands, cwd);
  if (ctx.json) {
    writeJson(ctx.io.stdout, report);
    return;
  }
  const size = await knowledge.size();
  writeLines(ctx.io.stdout, [
    `Indexed ${report.documents} document${report.documents === 1 ? "" : "s"} (${report.passages} passage${report.passages === 1 ? "" : "s"}); the knowledge base holds ${size.documents} documents.`,
    ...(embedderId ? [`Embedded ${report.embedded} passage${report.embedded === 1 ? "" : "s"} with ${embedderId}.`] : []),
    ...report.skipped.map((s) => `skipped ${s.path}: ${s.reason}`),
  ]);
}

export async function runKbSearch(ctx: CommandContext): Promise<void> {
  const { knowledge } = openKnowledge(ctx);
  const result = await knowledge.query(ctx.operands.join(" "), intOption(ctx.values, "limit", 1, 100) ?? 5);
  if (result.notice) ctx.io.stderr.write(`${result.notice}\n`);
  if (ctx.json) {
    writeJson(ctx.io.stdout, { hits: result.hits, ranking: result.ranking });
    return;
  }
  if (result.hits.length === 0) {
    const { documents } = await knowledge.size();
    writeLines(ctx.io.stdout, [
      documents === 0 ? "The knowledge base is empty: add documents with 'arbor kb add <files|dir>'." : "No passage matches.",
    ]);
    return;
  }
  writeLines(
    ctx.io.stdout,
    result.hits.flatMap((h) => [
      `${h.source}:${h.startLine}-${h.endLine}${h.page !== undefined ? ` (page ${h.page})` : ""}  score ${h.score.toFixed(3)}`,
      `  ${truncate(oneLine(h.text), 160)}`,
    ]),
  );
}

export async function runKbList(ctx: CommandContext): Promise<void> {
  const { knowledge } = openKnowledge(ctx);
  const documents = await knowledge.documents();
  if (ctx.json) {
    writeJson(ctx.io.stdout, { documents });
    return;
  }
  writeLines(
    ctx.io.stdout,
    documents.length === 0
      ? ["The knowledge base is empty: add documents with 'arbor kb add <files|dir>'."]
      : documents.map((d) => `${d.source}  ${plural(d.passages, "passage", "passages")}`),
  );
}

export async function runKbRm(ctx: CommandContext): Promise<void> {
  const { knowledge, cwd } = openKnowledge(ctx);
  const result = await knowledge.remove(ctx.operands, cwd);
  if (ctx.json) writeJson(ctx.io.stdout, result);
  else if (result.removed.length > 0)
    writeLines(ctx.io.stdout, [
      `Removed ${plural(result.removed.length, "document", "documents")}:`,
      ...result.removed.map((s) => `  ${s}`),
    ]);
  if (result.notFound.length > 0) {
    throw new ArborError(
      "invalid_input",
      `No document of the knowledge base is ${result.notFound.join(", ")} or under it; 'arbor kb list' shows what it holds.`,
    );
  }
}
