import type { EmbeddingModelV4 } from "@ai-sdk/provider";
import { ArborError } from "../errors.js";

/** Turns texts into vectors; `id` names the model, since vectors of different models cannot be compared. */
export interface Embedder {
  /** `provider/model`, stored with the vectors it made. */
  readonly id: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
}

/**
 * An Embedder over an AI SDK embedding model, loaded on the first call (so a run that never searches
 * never loads the provider's package) and called in batches of the model's `maxEmbeddingsPerCall`.
 */
export function modelEmbedder(id: string, load: () => Promise<EmbeddingModelV4>): Embedder {
  let model: Promise<EmbeddingModelV4> | undefined;
  return {
    id,
    async embed(texts) {
      if (texts.length === 0) return [];
      model ??= load();
      // A failed load (a missing key) is not kept, so fixing the setting works without a restart.
      const loaded = await model.catch((err: unknown) => {
        model = undefined;
        throw err;
      });
      const max = (await loaded.maxEmbeddingsPerCall) ?? Number.POSITIVE_INFINITY;
      const size = Number.isFinite(max) && max > 0 ? max : texts.length;
      const out: number[][] = [];
      for (let start = 0; start < texts.length; start += size) {
        const batch = texts.slice(start, start + size);
        const { embeddings } = await loaded.doEmbed({ values: [...batch] });
        if (embeddings.length !== batch.length) {
          throw new ArborError(
            "io_error",
            `${id} returned ${embeddings.length} embeddings for ${batch.length} texts; check the embedding server.`,
          );
        }
        out.push(...embeddings);
      }
      return out;
    },
  };
}
