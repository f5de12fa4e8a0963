import { type Recording, RecordingSchema } from "./recording.js";

/** Where the LLM response cache keeps its recordings. Stores know nothing of TTLs: the cache passes cut-offs in. */
export interface LlmCacheStore {
  readonly kind: "memory" | "file";
  /** The newest recording for `key`, or undefined. A record that cannot be read counts as absent. */
  get(key: string): Promise<Recording | undefined>;
  /** Adds or replaces the recording for its key. */
  set(recording: Recording): Promise<void>;
  /** Drops every recording created before `cutoff` (ms since the epoch); returns how many went. */
  prune(cutoff: number): Promise<number>;
  /** Drops everything; returns how many recordings went. */
  clear(): Promise<number>;
  /** Recordings kept and their size as stored (bytes of JSON). */
  size(): Promise<{ entries: number; bytes: number }>;
  close(): Promise<void>;
}

/** A recording as one line of JSON, as both stores keep it. */
export function recordingLine(recording: Recording): string {
  return JSON.stringify(recording);
}

/** A stored line back as a recording; undefined when it is not one (corrupt, or written by a newer format). */
export function parseRecordingLine(line: string): Recording | undefined {
  let data: unknown;
  try {
    data = JSON.parse(line);
  } catch {
    return undefined;
  }
  const parsed = RecordingSchema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Recordings in this process only. Each is kept as its JSON line, not as the object, so a caller
 * holding a returned recording can never change what the next hit replays.
 */
export class MemoryCacheStore implements LlmCacheStore {
  readonly kind = "memory" as const;
  private readonly lines = new Map<string, { line: string; created: number; bytes: number }>();
  private bytes = 0;

  async get(key: string): Promise<Recording | undefined> {
    const item = this.lines.get(key);
    // Only this process wrote the line: parsing is enough, unlike a file another version may have written.
    return item ? (JSON.parse(item.line) as Recording) : undefined;
  }

  async set(recording: Recording): Promise<void> {
    const line = recordingLine(recording);
    this.remove(recording.key);
    const bytes = Buffer.byteLength(line);
    this.lines.set(recording.key, { line, created: Date.parse(recording.createdAt), bytes });
    this.bytes += bytes;
  }

  async prune(cutoff: number): Promise<number> {
    let dropped = 0;
    for (const [key, item] of this.lines) {
      if (item.created < cutoff) {
        this.remove(key);
        dropped++;
      }
    }
    return dropped;
  }

  async clear(): Promise<number> {
    const entries = this.lines.size;
    this.lines.clear();
    this.bytes = 0;
    return entries;
  }

  async size(): Promise<{ entries: number; bytes: number }> {
    return { entries: this.lines.size, bytes: this.bytes };
  }

  async close(): Promise<void> {}

  private remove(key: string): void {
    const item = this.lines.get(key);
    if (!item) return;
    this.bytes -= item.bytes;
    this.lines.delete(key);
  }
}
