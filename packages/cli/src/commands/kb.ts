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

export const kbGroup: CommandGroup = {
  name: "kb",
  summary: "Knowledge base: add documents for the agent's search_knowledge_base tool.",
  commands: [kbAdd],
};
