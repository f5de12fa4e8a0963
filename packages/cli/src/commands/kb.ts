import { intOption } from "../args.js";
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
  run: async (ctx) => (await import("./kb-run.js")).runKbAdd(ctx),
};

export const kbSearch: Command = {
  name: "search",
  operands: ["query"],
  summary: "Search the knowledge base as search_knowledge_base does: the best passages with file and lines.",
  details: [
    "Ranked by words (BM25), fused with meaning when knowledge.embeddingModel is set. With --json: {hits: [{source, startLine, endLine, page?, text, score}], ranking}.",
  ],
  options: {
    limit: { type: "string", valueName: "n", description: "Passages to show, 1-100 (default 5)." },
  },
  validate(values) {
    intOption(values, "limit", 1, 100);
  },
  run: async (ctx) => (await import("./kb-run.js")).runKbSearch(ctx),
};

export const kbList: Command = {
  name: "list",
  operands: [],
  summary: "List the documents in the knowledge base, with their passage counts.",
  details: ["With --json: {documents: [{source, passages}]}."],
  options: {},
  run: async (ctx) => (await import("./kb-run.js")).runKbList(ctx),
};

export const kbRm: Command = {
  name: "rm",
  operands: ["files|dir"],
  summary: "Take documents out of the knowledge base: a file as it was added, or a folder for every document under it.",
  details: [
    "A path that names no stored document is an error (exit 2); the others are removed. With --json: {removed, notFound}.",
  ],
  options: {},
  run: async (ctx) => (await import("./kb-run.js")).runKbRm(ctx),
};

export const kbGroup: CommandGroup = {
  name: "kb",
  summary: "Knowledge base: add, search, list and remove the documents of the agent's search_knowledge_base tool.",
  commands: [kbAdd, kbSearch, kbList, kbRm],
};
