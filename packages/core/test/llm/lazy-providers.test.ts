import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { lazyModel } from "../../src/llm/lazy-model.js";
import { PROVIDERS } from "../../src/llm/model-ref.js";
import { createProviderModel, loadProviderModel } from "../../src/llm/providers.js";
import { offlineSettings as settings } from "./offline-provider.js";

describe("providers load their SDK package on the first call", () => {
  it.each(PROVIDERS)("%s: the lazy model reports the SDK model's provider and id before loading it", async (provider) => {
    const lazy = createProviderModel(settings(provider));
    const real = await loadProviderModel(settings(provider));
    expect(lazy.provider).toBe(real.provider);
    expect(lazy.modelId).toBe(real.modelId);
    expect(lazy.specificationVersion).toBe("v4");
    expect(await lazy.supportedUrls).toEqual(await real.supportedUrls);
  });

  it("loads once, passes calls through, and tries again after a failed load", async () => {
    let loads = 0;
    const inner = {
      specificationVersion: "v4",
      provider: "p.chat",
      modelId: "m",
      supportedUrls: {},
      doGenerate: async () => ({ marker: "generated" }),
      doStream: async () => ({ marker: "streamed" }),
    } as unknown as LanguageModelV4;
    const model = lazyModel("p.chat", "m", async () => {
      loads++;
      if (loads === 1) throw new Error("not installed");
      return inner;
    });
    expect(loads).toBe(0);
    await expect(model.doStream({ prompt: [] } as never)).rejects.toThrow("not installed");
    expect(await model.doStream({ prompt: [] } as never)).toEqual({ marker: "streamed" });
    expect(await model.doGenerate({ prompt: [] } as never)).toEqual({ marker: "generated" });
    expect(loads).toBe(2);
  });

  it("importing the core package loads no provider SDK", () => {
    const entry = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
    const script = `await import(${JSON.stringify(entry)});`;
    // A resolve hook sees every import the package makes, static or not.
    const hook = `import { registerHooks } from "node:module";
registerHooks({ resolve(specifier, context, next) { if (/^@ai-sdk\\/(?!provider)/.test(specifier)) process.stderr.write("LOADED " + specifier + "\\n"); return next(specifier, context); } });`;
    const out = spawnSync(
      process.execPath,
      ["--import", `data:text/javascript,${encodeURIComponent(hook)}`, "--input-type=module", "-e", script],
      {
        encoding: "utf8",
      },
    );
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr.match(/LOADED .*/g) ?? []).toEqual([]);
  });
});
