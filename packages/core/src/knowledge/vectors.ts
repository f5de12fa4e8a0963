/** Vector helpers for the knowledge base: pure functions over numbers, no I/O. */

/** The vector scaled to length 1, so cosine similarity is a dot product; a zero vector stays zero. */
export function normalized(vector: readonly number[]): Float32Array {
  let sum = 0;
  for (const x of vector) sum += x * x;
  const norm = Math.sqrt(sum);
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** Float32 bytes in base64: a quarter of the size of the numbers written out in JSON. */
export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString("base64");
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, "base64");
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return new Float32Array(copy.buffer, 0, Math.floor(copy.byteLength / 4));
}

/** Ids by cosine similarity to the query, best first (vectors of another length are left out). */
export function nearest(query: Float32Array, vectors: ReadonlyMap<number, Float32Array>, count: number): number[] {
  const scored: Array<[number, number]> = [];
  for (const [id, vector] of vectors) {
    if (vector.length === query.length) scored.push([id, dot(query, vector)]);
  }
  return scored
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([id]) => id);
}

/** The usual constant of reciprocal rank fusion: it damps the weight of the very first ranks. */
const RRF_K = 60;

/**
 * Reciprocal rank fusion: each list adds 1 / (k + rank) to the ids it ranks, so an id high in either
 * list comes first without comparing BM25 scores with cosine similarities. Best first.
 */
export function fuseRanks(lists: ReadonlyArray<readonly number[]>): Array<{ id: number; score: number }> {
  const scores = new Map<number, number>();
  for (const list of lists) {
    list.forEach((id, rank) => {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (RRF_K + rank + 1));
    });
  }
  return [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}
