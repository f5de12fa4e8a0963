import { type Config, modelInfo, type RuntimeOptions } from "@arbor/core";
import { CassetteRecorder, cassettePlayer, cassetteResolver, loadCassette } from "@arbor/core/llm";
import type { Io } from "../io.js";
import type { RunFlags } from "./flags.js";

/** What `--record` and `--replay` change about a run. */
export interface CassetteSetup {
  /** Spread into createRuntime's options after `config` (a replay prices its model as recorded). */
  runtime: Pick<RuntimeOptions, "config" | "model" | "models" | "wrapModel">;
  /** After the run: waits for the recording to be on disk and says where it is (stderr). */
  finish(): Promise<void>;
}

const NOTHING: CassetteSetup = { runtime: {}, finish: async () => {} };

/**
 * A replay answers every model the run resolves from the cassette (a bad file is an input error, found
 * before any store is opened); a recording wraps them. The title model is left out of both: it runs
 * beside the first step, so its place in the call order is not fixed.
 */
export async function cassetteSetup(
  io: Io,
  flags: Pick<RunFlags, "prompt" | "record" | "replay">,
  config: Config,
): Promise<CassetteSetup> {
  if (flags.replay !== undefined) {
    const cassette = await loadCassette(flags.replay);
    const player = cassettePlayer(cassette, { source: flags.replay });
    const ref = `${player.provider}/${player.modelId}`;
    const info = cassette.run?.info;
    const models = info ? { ...config.models, [ref]: info } : config.models;
    return {
      runtime: { config: { ...config, models }, model: player, models: cassetteResolver(player, models) },
      finish: NOTHING.finish,
    };
  }
  const file = flags.record;
  if (file === undefined) return NOTHING;
  const ref = config.model;
  const recorder = new CassetteRecorder({
    path: file,
    run: { prompt: flags.prompt, ...(ref === undefined ? {} : { model: ref, info: modelInfo(ref, config.models) }) },
  });
  return {
    runtime: { wrapModel: (model, use) => (use.scenario === "title" ? model : recorder.wrap(model, use.ref)) },
    async finish() {
      await recorder.flush();
      const calls = recorder.cassette.interactions.length;
      io.stderr.write(
        calls === 0
          ? `arbor: the run made no model call to record; ${file} was not written\n`
          : `arbor: recorded ${calls} model call${calls === 1 ? "" : "s"} to ${file} (replay with --replay ${file})\n`,
      );
    },
  };
}
