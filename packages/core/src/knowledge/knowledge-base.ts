import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import type MiniSearch from "minisearch";
import { z } from "zod";
import { ArborError } from "../errors.js";
import { jsonOrUndefined } from "../json-text.js";
import { searchTerm } from "../search/terms.js";
import type { Embedder } from "./embedder.js";
import { walkFiles } from "./files.js";
import { binaryReason, documentPassages, KNOWLEDGE_EXTENSIONS, MAX_DOCUMENT_BYTES, type Passage } from "./passages.js";
import { decodeVector, encodeVector, fuseRanks, nearest, normalized } from "./vectors.js";

/** One ranked passage: where it is (file and lines), its text and its score (BM25, or the fused rank score when embeddings took part). */
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
  /** Passages given a vector by the embedding model (those of other files too when the model changed). */
  embedded: number;
}

/** What a search found and how it ranked: by words only, or by words and meaning. */
export interface KnowledgeSearch {
  hits: KnowledgeHit[];
  ranking: "lexical" | "hybrid";
  /** Why meaning took no part although an embedding model is set; said once per knowledge base. */
  notice?: string;
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
  /** Each passage's vector (base64 float32, length 1) and the model that made them all. */
  embeddings: z.object({ model: z.string(), vectors: z.record(z.string(), z.string()) }).optional(),
});

type Meta = z.infer<typeof FileSchema>;

interface Loaded {
  mtimeMs: number;
  index: MiniSearch<StoredPassage>;
  meta: Meta;
  vectors: Map<number, Float32Array>;
}

/**
 * Passages one knowledge base holds at most (about 120 MB of text): the whole index is read into
 * memory by each process's first search and written whole by each add.
 */
const MAX_PASSAGES = 100_000;

/** How many of each ranking the fusion looks at: enough that a passage found only by meaning still places. */
const FUSION_DEPTH = 50;

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
 *
 * With an embedder, each passage also gets a vector, and a search fuses cosine similarity with BM25
 * (reciprocal rank fusion), so a passage sharing no word with the query can still be found. Vectors
 * of one model only are kept; a search with another model ranks by words alone until a re-add.
 */
export class KnowledgeBase {
  private readonly file: string;
  private readonly embedder: Embedder | undefined;
  private loaded: Loaded | undefined;
  /** Notices already given, so a search says each only once. */
  private readonly told = new Set<string>();

  private readonly maxPassages: number;

  /** `maxPassages`: what the base may hold (default 100,000); an add past it is refused whole. */
  constructor(dir: string, options: { embedder?: Embedder | undefined; maxPassages?: number } = {}) {
    this.file = join(resolve(dir), "knowledge.json");
    this.embedder = options.embedder;
    this.maxPassages = options.maxPassages ?? MAX_PASSAGES;
  }

  /** Runs `fn` holding the base's lock (made if missing), on a fresh read of it. */
  private async locked<T>(fn: (loaded: Loaded) => Promise<T>): Promise<T> {
    await mkdir(dirname(this.file), { recursive: true });
    await writeFile(this.file, "", { flag: "a" });
    // Loaded on use: it patches node:fs as it loads, a cost every importer of core would pay.
    const { default: lockfile } = await import("proper-lockfile");
    const release = await lockfile.lock(this.file, {
      retries: { retries: 100, minTimeout: 20, maxTimeout: 200 },
      realpath: false,
    });
    try {
      return await fn(await this.read(true));
    } finally {
      await release();
    }
  }

  /** Replaces the file whole (write, then rename), so a reader never sees half of it. */
  private async save(meta: Meta, index: MiniSearch<StoredPassage>): Promise<void> {
    const tmp = `${this.file}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify({ ...meta, index: index.toJSON() }));
    await rename(tmp, this.file);
    this.loaded = undefined;
  }

  async add(paths: readonly string[], cwd: string): Promise<AddReport> {
    return this.locked(async ({ index, meta }) => {
      const report: AddReport = { documents: 0, passages: 0, skipped: [], embedded: 0 };
      const added: StoredPassage[] = [];
      for (const given of paths) {
        for (const path of await walkFiles(resolve(cwd, given), report.skipped)) {
          if (!KNOWLEDGE_EXTENSIONS.has(extOf(path))) {
            report.skipped.push({ path, reason: "not a Markdown, text, HTML or PDF file" });
            continue;
          }
          const size = (await stat(path).catch(() => undefined))?.size ?? 0;
          if (size > MAX_DOCUMENT_BYTES) {
            report.skipped.push({
              path,
              reason: `larger than ${MAX_DOCUMENT_BYTES / 1024 / 1024} MB (${(size / 1024 / 1024).toFixed(1)} MB); split it first`,
            });
            continue;
          }
          let found: Passage[];
          try {
            const content = await readFile(path);
            const binary = binaryReason(path, content);
            if (binary) {
              report.skipped.push({ path, reason: binary });
              continue;
            }
            found = await documentPassages(path, content);
          } catch (err) {
            report.skipped.push({ path, reason: `could not be read (${(err as Error).message})` });
            continue;
          }
          const kept = index.documentCount - (meta.sources[path]?.length ?? 0) + found.length;
          if (kept > this.maxPassages) {
            throw new ArborError(
              "invalid_input",
              `Adding ${path} would make the knowledge base hold ${kept} passages, over its limit of ${this.maxPassages}; nothing was added. Remove documents or start another base (ARBOR_HOME).`,
            );
          }
          for (const id of meta.sources[path] ?? []) {
            index.discard(id);
            if (meta.embeddings) delete meta.embeddings.vectors[id];
          }
          const passages = found.map((p) => ({ id: meta.nextId++, source: path, ...p }));
          index.addAll(passages);
          added.push(...passages);
          meta.sources[path] = passages.map((p) => p.id);
          report.documents++;
          report.passages += passages.length;
        }
      }
      // Embedded before anything is written, so a failing model leaves the base as it was.
      if (this.embedder) report.embedded = await this.embedPassages(this.embedder, index, meta, added);
      await this.save(meta, index);
      return report;
    });
  }

  /** The documents the base holds, by path, with their passage counts. */
  async documents(): Promise<Array<{ source: string; passages: number }>> {
    const { meta } = await this.read(false);
    return Object.entries(meta.sources)
      .map(([source, ids]) => ({ source, passages: ids.length }))
      .sort((a, b) => a.source.localeCompare(b.source));
  }

  /**
   * Takes documents out: each path (relative to `cwd`) names a document, or a folder whose
   * documents all go. Paths that name none are reported, and nothing is written when none matched.
   */
  async remove(paths: readonly string[], cwd: string): Promise<{ removed: string[]; notFound: string[] }> {
    return this.locked(async ({ index, meta }) => {
      const removed = new Set<string>();
      const notFound: string[] = [];
      for (const given of paths) {
        const path = resolve(cwd, given);
        const matched = Object.keys(meta.sources).filter((s) => s === path || s.startsWith(`${path}${sep}`));
        if (matched.length === 0) notFound.push(given);
        for (const source of matched) {
          for (const id of meta.sources[source] ?? []) {
            index.discard(id);
            if (meta.embeddings) delete meta.embeddings.vectors[id];
          }
          delete meta.sources[source];
          removed.add(source);
        }
      }
      if (removed.size > 0) await this.save(meta, index);
      return { removed: [...removed].sort(), notFound };
    });
  }

  /** Vectors for the added passages; every stored passage's when the base's vectors came from another model. */
  private async embedPassages(embedder: Embedder, index: MiniSearch<StoredPassage>, meta: Meta, added: StoredPassage[]) {
    let todo: Array<{ id: number; text: string }> = added;
    if (meta.embeddings?.model !== embedder.id) {
      meta.embeddings = { model: embedder.id, vectors: {} };
      const fresh = new Set(added.map((p) => p.id));
      const others = Object.values(meta.sources)
        .flat()
        .filter((id) => !fresh.has(id))
        .map((id) => ({ id, text: String(index.getStoredFields(id)?.text ?? "") }));
      todo = [...others, ...added];
    }
    const vectors = await embedder.embed(todo.map((p) => p.text));
    todo.forEach((p, i) => {
      meta.embeddings!.vectors[p.id] = encodeVector(normalized(vectors[i]!));
    });
    return todo.length;
  }

  /** The best passages for a query, best first. */
  async search(query: string, limit: number): Promise<KnowledgeHit[]> {
    return (await this.query(query, limit)).hits;
  }

  /** The best passages for a query and how they were ranked. */
  async query(query: string, limit: number): Promise<KnowledgeSearch> {
    const loaded = await this.read(false);
    const lexical = loaded.index.search(query);
    const meaning = await this.meaning(query, loaded);
    if (meaning.vector === undefined) {
      const hits = lexical.slice(0, limit).map((hit) => toHit(hit, hit.score));
      return { hits, ranking: "lexical", ...(meaning.notice ? { notice: meaning.notice } : {}) };
    }
    const fused = fuseRanks([
      lexical.slice(0, Math.max(FUSION_DEPTH, limit)).map((hit) => Number(hit.id)),
      nearest(meaning.vector, loaded.vectors, Math.max(FUSION_DEPTH, limit)),
    ]);
    const hits = fused.slice(0, limit).flatMap(({ id, score }) => {
      const fields = loaded.index.getStoredFields(id);
      return fields ? [toHit(fields, score)] : [];
    });
    return { hits, ranking: "hybrid" };
  }

  /** The query's vector, or why there is none (said once). */
  private async meaning(query: string, loaded: Loaded): Promise<{ vector?: Float32Array; notice?: string }> {
    const embedder = this.embedder;
    if (embedder === undefined) return {};
    const stored = loaded.meta.embeddings?.model;
    if (stored !== embedder.id || loaded.vectors.size === 0) {
      const notice =
        stored === undefined || loaded.vectors.size === 0
          ? `The knowledge base was indexed without an embedding model: ranked by words only. Add the documents again (arbor kb add) to rank by meaning with ${embedder.id}.`
          : `The knowledge base's vectors were made by ${stored}, not ${embedder.id}: ranked by words only. Add the documents again (arbor kb add) to embed them with ${embedder.id}.`;
      return this.once(notice);
    }
    try {
      const [vector] = await embedder.embed([query]);
      return { vector: normalized(vector ?? []) };
    } catch (err) {
      return this.once(`${embedder.id} could not embed the query (${(err as Error).message}): ranked by words only.`);
    }
  }

  private once(notice: string): { notice?: string } {
    if (this.told.has(notice)) return {};
    this.told.add(notice);
    return { notice };
  }

  /** How many documents and passages the base holds. */
  async size(): Promise<{ documents: number; passages: number }> {
    const { index, meta } = await this.read(false);
    return { documents: Object.keys(meta.sources).length, passages: index.documentCount };
  }

  private async read(fresh: boolean): Promise<Loaded> {
    // Loaded here, not with the runtime: only a run that searches or fills the base needs it.
    const { default: Index } = await import("minisearch");
    const info = await stat(this.file).catch(() => undefined);
    if (!info || info.size === 0) {
      return {
        mtimeMs: 0,
        index: new Index<StoredPassage>(OPTIONS),
        meta: { version: 1, nextId: 0, sources: {}, index: undefined },
        vectors: new Map(),
      };
    }
    if (!fresh && this.loaded?.mtimeMs === info.mtimeMs) return this.loaded;
    const text = await readFile(this.file, "utf8");
    const parsed = FileSchema.safeParse(jsonOrUndefined(text));
    if (!parsed.success) {
      throw new ArborError("io_error", `The knowledge base ${this.file} is damaged; delete it and add the documents again.`);
    }
    const index = Index.loadJSON<StoredPassage>(JSON.stringify(parsed.data.index), OPTIONS);
    const vectors = new Map<number, Float32Array>();
    for (const [id, text] of Object.entries(parsed.data.embeddings?.vectors ?? {})) vectors.set(Number(id), decodeVector(text));
    const loaded = { mtimeMs: info.mtimeMs, index, meta: parsed.data, vectors };
    if (!fresh) this.loaded = loaded;
    return loaded;
  }
}

function toHit(fields: Record<string, unknown>, score: number): KnowledgeHit {
  return {
    source: String(fields.source),
    startLine: Number(fields.startLine),
    endLine: Number(fields.endLine),
    ...(typeof fields.page === "number" ? { page: fields.page } : {}),
    text: String(fields.text),
    score,
  };
}

function extOf(path: string): string {
  const dot = path.lastIndexOf(".");
  return dot === -1 ? "" : path.slice(dot).toLowerCase();
}
