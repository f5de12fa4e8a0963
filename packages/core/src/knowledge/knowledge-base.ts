import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import MiniSearch from "minisearch";
import lockfile from "proper-lockfile";
import { z } from "zod";
import { ArborError } from "../errors.js";
import { searchTerm } from "../search/terms.js";
import { walkFiles } from "./files.js";
import { documentPassages, KNOWLEDGE_EXTENSIONS, type Passage } from "./passages.js";

/** One ranked passage: where it is (file and lines), its text and its BM25 score. */
export interface KnowledgeHit {
  source: string;
  startLine: number;
  endLine: number;
  /** The page, for a PDF. */
  page?: number;
  text: string;
  score: number;
}

export interface AddReport {
  documents: number;
  passages: number;
  /** Files left out, with why (an unsupported format, unreadable). */
  skipped: Array<{ path: string; reason: string }>;
}

interface StoredPassage extends Passage {
  id: number;
  source: string;
}

const FileSchema = z.object({
  version: z.literal(1),
  nextId: z.number().int().nonnegative(),
  /** Passage ids by source file, so adding a file again replaces what it had. */
  sources: z.record(z.string(), z.array(z.number().int())),
  index: z.unknown(),
});

const OPTIONS = {
  fields: ["text", "source"],
  processTerm: searchTerm,
  storeFields: ["source", "startLine", "endLine", "page", "text"],
  searchOptions: { boost: { text: 2 }, prefix: true, fuzzy: 0.1, combineWith: "OR" as const },
};

/**
 * A knowledge base of documents (Markdown, text, HTML) in one file under `dir`: their passages and a
 * MiniSearch index over them (BM25 ranking, prefix and light fuzzy matching). `arbor kb add` fills it;
 * `search_knowledge_base` reads it. The index is loaded once and reloaded when the file changes, so a
 * search costs only the lookup. Writers take a lock and replace the file whole (write, then rename).
 */
export class KnowledgeBase {
  private readonly file: string;
  private loaded: { mtimeMs: number; index: MiniSearch<StoredPassage>; meta: z.infer<typeof FileSchema> } | undefined;

  constructor(dir: string) {
    this.file = join(resolve(dir), "knowledge.json");
  }

  async add(paths: readonly string[], cwd: string): Promise<AddReport> {
    await mkdir(dirname(this.file), { recursive: true });
    await writeFile(this.file, "", { flag: "a" });
    const release = await lockfile.lock(this.file, {
      retries: { retries: 100, minTimeout: 20, maxTimeout: 200 },
      realpath: false,
    });
    try {
      const { index, meta } = await this.read(true);
      const report: AddReport = { documents: 0, passages: 0, skipped: [] };
      for (const given of paths) {
        for (const path of await walkFiles(resolve(cwd, given), report.skipped)) {
          if (!KNOWLEDGE_EXTENSIONS.has(extOf(path))) {
            report.skipped.push({ path, reason: "not a Markdown, text, HTML or PDF file" });
            continue;
          }
          let found: Passage[];
          try {
            found = await documentPassages(path, await readFile(path));
          } catch (err) {
            report.skipped.push({ path, reason: `could not be read (${(err as Error).message})` });
            continue;
          }
          for (const id of meta.sources[path] ?? []) index.discard(id);
          const passages = found.map((p) => ({ id: meta.nextId++, source: path, ...p }));
          index.addAll(passages);
          meta.sources[path] = passages.map((p) => p.id);
          report.documents++;
          report.passages += passages.length;
        }
      }
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify({ ...meta, index: index.toJSON() }));
      await rename(tmp, this.file);
      this.loaded = undefined;
      return report;
    } finally {
      await release();
    }
  }

  async search(query: string, limit: number): Promise<KnowledgeHit[]> {
    const { index } = await this.read(false);
    return index
      .search(query)
      .slice(0, limit)
      .map((hit) => ({
        source: String(hit.source),
        startLine: Number(hit.startLine),
        endLine: Number(hit.endLine),
        ...(typeof hit.page === "number" ? { page: hit.page } : {}),
        text: String(hit.text),
        score: hit.score,
      }));
  }

  /** How many documents and passages the base holds. */
  async size(): Promise<{ documents: number; passages: number }> {
    const { index, meta } = await this.read(false);
    return { documents: Object.keys(meta.sources).length, passages: index.documentCount };
  }

  private async read(fresh: boolean): Promise<{ index: MiniSearch<StoredPassage>; meta: z.infer<typeof FileSchema> }> {
    const info = await stat(this.file).catch(() => undefined);
    if (!info || info.size === 0) {
      return { index: new MiniSearch<StoredPassage>(OPTIONS), meta: { version: 1, nextId: 0, sources: {}, index: undefined } };
    }
    if (!fresh && this.loaded?.mtimeMs === info.mtimeMs) return this.loaded;
    const text = await readFile(this.file, "utf8");
    const parsed = FileSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new ArborError("io_error", `The knowledge base ${this.file} is damaged; delete it and add the documents again.`);
    }
    const index = MiniSearch.loadJSON<StoredPassage>(JSON.stringify(parsed.data.index), OPTIONS);
    const loaded = { mtimeMs: info.mtimeMs, index, meta: parsed.data };
    if (!fresh) this.loaded = loaded;
    return loaded;
  }
}

function extOf(path: string): string {
  const dot = path.lastIndexOf(".");
  return dot === -1 ? "" : path.slice(dot).toLowerCase();
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
