import type MiniSearch from "minisearch";
import { searchTerm } from "../search/terms.js";
import type { MemoryDocument, MemoryScope } from "./memory-files.js";

/** One ranked passage: the paragraph that matched, where it is, and its score. */
export interface MemoryHit {
  scope: MemoryScope;
  path: string;
  /** 1-based line where the passage starts. */
  line: number;
  text: string;
  score: number;
}

interface Passage {
  id: number;
  scope: MemoryScope;
  path: string;
  line: number;
  text: string;
}

/**
 * Ranks the memory files' passages (paragraphs, or the entries of a list) against a query with
 * MiniSearch's BM25 scoring over stemmed words, with prefix and fuzzy matching. The index is
 * built per search: memory files are small, and a fresh index always sees the latest writes.
 * MiniSearch is loaded on the first search, not with the runtime: most runs never search memory.
 */
export async function searchMemory(docs: readonly MemoryDocument[], query: string, limit: number): Promise<MemoryHit[]> {
  const { default: Index } = await import("minisearch");
  const passages: Passage[] = [];
  for (const doc of docs) {
    for (const chunk of passagesOf(doc.text)) passages.push({ id: passages.length, scope: doc.scope, path: doc.path, ...chunk });
  }
  const index: MiniSearch<Passage> = new Index<Passage>({
    fields: ["text", "path"],
    storeFields: ["scope", "path", "line", "text"],
    processTerm: searchTerm,
  });
  index.addAll(passages);
  return index
    .search(query, { prefix: true, fuzzy: 0.2, boost: { text: 2 }, combineWith: "OR" })
    .slice(0, limit)
    .map((hit) => {
      const passage = passages[hit.id as number]!;
      return { scope: passage.scope, path: passage.path, line: passage.line, text: passage.text, score: hit.score };
    });
}

/** Splits on blank lines and list items, keeping each piece's first line number. */
function passagesOf(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let current: string[] = [];
  let start = 1;
  const flush = () => {
    const joined = current.join("\n").trim();
    if (joined !== "") out.push({ line: start, text: joined });
    current = [];
  };
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "" || /^\s*[-*]\s/.test(line) || /^#{1,6}\s/.test(line)) {
      flush();
      start = i + 1;
    }
    if (line.trim() !== "") current.push(line);
  });
  flush();
  return out;
}
