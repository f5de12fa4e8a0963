import type { LanguageModelV4 } from "@ai-sdk/provider";

/**
 * A model whose implementation is made on its first call. `provider` and `modelId` are known up
 * front, since callers read them before calling (cache marks, telemetry, recordings); a failed load
 * is not kept, so the next call tries again.
 */
export function lazyModel(provider: string, modelId: string, load: () => Promise<LanguageModelV4>): LanguageModelV4 {
  let loading: Promise<LanguageModelV4> | undefined;
  const get = (): Promise<LanguageModelV4> => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
  return {
    specificationVersion: "v4",
    provider,
    modelId,
    get supportedUrls() {
      return get().then((model) => model.supportedUrls);
    },
    doGenerate: async (options) => (await get()).doGenerate(options),
    doStream: async (options) => (await get()).doStream(options),
  };
}
