import { z } from "zod";
import type { KnowledgeBase, KnowledgeHit } from "../../knowledge/knowledge-base.js";
import { defineTool } from "../tool.js";

export const SearchKnowledgeBaseInputSchema = z.strictObject({
  query: z.string().trim().min(1).describe("What to look for, in the documents' own words where possible."),
  limit: z.number().int().min(1).max(20).default(5).describe("Most passages to return (default 5)."),
});

/** What an answer that used the knowledge base cites: kept on the result, shown as the message's `knowledge_references`. */
export interface KnowledgeReference {
  source: string;
  location: string;
  score: number;
  excerpt: string;
}

const EXCERPT_CHARS = 300;

/** Searches the documents added with `arbor kb add`, best passages first, each with its file and lines. */
/** `knowledge`: the knowledge base, or how to get it at the first search. */
export function searchKnowledgeBaseTool(options: { knowledge: KnowledgeBase | (() => Promise<KnowledgeBase>) }) {
  return defineTool<typeof SearchKnowledgeBaseInputSchema, { references: KnowledgeReference[] }>({
    name: "search_knowledge_base",
    description:
      "Search the user's knowledge base (documents added with `arbor kb add`) and return the best-matching passages, " +
      "each with its file and lines. Cite the source when you answer from a passage.",
    input: SearchKnowledgeBaseInputSchema,
    effects: "none",
    async execute(input) {
      const knowledge = typeof options.knowledge === "function" ? await options.knowledge() : options.knowledge;
      const { hits, notice } = await knowledge.query(input.query, input.limit);
      const note = notice === undefined ? "" : `\n\nNote: ${notice}`;
      if (hits.length === 0) {
        return {
          output: `No passage in the knowledge base matches "${input.query}". Documents are added with \`arbor kb add <files|dir>\`.${note}`,
          metadata: { references: [] },
        };
      }
      const references = hits.map((hit) => ({
        source: hit.source,
        location: where(hit),
        score: Number(hit.score.toFixed(3)),
        excerpt: hit.text.slice(0, EXCERPT_CHARS),
      }));
      const output = hits
        .map((hit, i) => `[${i + 1}] ${hit.source}, ${where(hit)} (score ${hit.score.toFixed(2)})\n${hit.text}`)
        .join("\n\n")
        .concat(note);
      return { output, title: input.query, metadata: { references } };
    },
  });
}

/** Where a passage is: its lines, and its page in a PDF. */
function where(hit: KnowledgeHit): string {
  const lines = `lines ${hit.startLine}-${hit.endLine}`;
  return hit.page === undefined ? lines : `page ${hit.page}, ${lines}`;
}
