import { createRuntime, resolveConfig } from "@arbor/core";
import { cassettePlayer, cassetteResolver } from "@arbor/core/llm";
import type { OptionValues } from "../args.js";
import { flag, stringOption } from "../args.js";
import { loadRecording } from "../demo/recording.js";
import { makeDemoWorkspace } from "../demo/workspace.js";
import { UsageError } from "../errors.js";
import type { Io } from "../io.js";
import { writeLines } from "../io.js";
import { playable, playRun } from "../run/play.js";
import { shellWord } from "../run/shell.js";
import { arborHomeOf, withStore } from "../store.js";

export async function runDemoCommand(io: Io, values: OptionValues, operands: readonly string[]): Promise<number> {
  if (operands.length > 0)
    throw new UsageError(`'arbor demo' takes no arguments, got '${operands[0]}'. Run 'arbor demo --help'.`);
  const json = flag(values, "json");
  const recording = await loadRecording();
  // Only the recording's price list: the user's arbor.json must not change a replay.
  const config = resolveConfig([{ source: "the demo recording", value: { models: { [recording.model]: recording.info } } }]);
  // At the recorded pace, so the demo reads like the run it was.
  const player = cassettePlayer(recording.cassette, { source: "the demo cassette", pace: "recorded" });
  const storeFlag = stringOption(values, "store");
  const store = storeFlag === undefined ? "" : ` --store ${shellWord(storeFlag)}`;
  const workspace = await makeDemoWorkspace();
  if (json) io.stderr.write(`arbor demo: workspace ${workspace}\n`);
  else {
    writeLines(io.stdout, [
      "Arbor demo: a recorded coding run, replayed through the real runtime, tools and store (no API key, no network).",
      `workspace  ${workspace}  (a copy of a tiny project whose tests fail)`,
      `task       ${recording.prompt}`,
      "",
    ]);
  }
  return withStore(io, values, async (opened, resolved) => {
    const { code } = await playRun({
      io,
      json,
      // The recording asks nothing; should a rule make a tool ask, the replay must not stall.
      yes: true,
      store: opened,
      storeLabel: resolved.label,
      createRuntime: (onPermission) =>
        playable(
          createRuntime({
            store: opened,
            config,
            model: player,
            models: cassetteResolver(player, config.models),
            env: io.env,
            cwd: workspace,
            arborHome: arborHomeOf(io),
            // As `arbor run` does: the demo's fix can be looked at with `sessions diff` and taken back with `arbor revert`.
            snapshots: true,
            onPermission,
          }),
        ),
      input: { prompt: recording.prompt },
      next: (id) => [
        ["show", `arbor sessions show ${id}${store}`],
        ["tree", `arbor sessions tree ${id}${store}`],
      ],
    });
    if (!json) writeLines(io.stdout, [`workspace ${workspace}  (run 'node math.test.js' there to see the tests pass)`]);
    return code;
  });
}
