import { intOption } from "../args.js";
import type { Command, CommandGroup } from "./command.js";

type KbRun = keyof typeof import("./kb-run.js");

/** A kb subcommand: what the help shows, with kb-run.ts (and the knowledge base behind it) loaded only when it runs. */
function kbCommand(run: KbRun, command: Omit<Command, "run" | "options"> & Partial<Pick<Command, "options">>): Command {
  return { options: {}, ...command, run: async (ctx) => (await import("./kb-run.js"))[run](ctx) };
}

export const kbAdd = kbCommand("runKbAdd", {
  name: "add",
  operands: ["files|dir"],
  summary: "Index documents (Markdown, text, HTML, PDF) into the knowledge base search_knowledge_base searches.",
  details: [
    "Each operand is a file or a folder (searched recursively, hidden folders and node_modules left out). Adding a file again replaces its passages.",
    "With knowledge.embeddingModel set (KNOWLEDGE_EMBEDDING_MODEL), each passage is also embedded, so searches rank by meaning as well as by words; a changed model re-embeds every stored passage.",
    "The knowledge base lives in $ARBOR_HOME/knowledge/. With --json: {documents, passages, skipped: [{path, reason}], embedded}.",
  ],
});

export const kbSearch = kbCommand("runKbSearch", {
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
});

export const kbList = kbCommand("runKbList", {
  name: "list",
  operands: [],
  summary: "List the documents in the knowledge base, with their passage counts.",
  details: ["With --json: {documents: [{source, passages}]}."],
});

export const kbRm = kbCommand("runKbRm", {
  name: "rm",
  operands: ["files|dir"],
  summary: "Take documents out of the knowledge base: a file as it was added, or a folder for every document under it.",
  details: [
    "A path that names no stored document is an error (exit 2); the others are removed. With --json: {removed, notFound}.",
  ],
});

export const kbGroup: CommandGroup = {
  name: "kb",
  summary: "Knowledge base: add, search, list and remove the documents of the agent's search_knowledge_base tool.",
  commands: [kbAdd, kbSearch, kbList, kbRm],
};
