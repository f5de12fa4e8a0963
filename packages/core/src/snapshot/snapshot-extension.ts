import { appendCustom } from "../loop/journal.js";
import type { RunContext, RunExtension, ToolCallInfo } from "../loop/run-context.js";
import { type ToolOutcome, toolEffects } from "../tools/tool.js";
import type { GitRunner } from "./git-runner.js";
import { openSnapshots, type WorkspaceSnapshots } from "./git-snapshots.js";
import { PATCH_ENTRY_TYPE, type PatchData } from "./snapshot-entry.js";

interface StepTrack {
  snapshots?: WorkspaceSnapshots;
  /** The tree at the step's start: the last step's finish when nothing ran between them. */
  before?: string;
  /** The assistant message of the step under way. */
  messageEntryId?: string;
  /** Snapshots failed once (no git, say): the run goes on without them. */
  off?: boolean;
  /** The step's start snapshot under way: taken while the model is called, awaited before a tool runs. */
  starting?: Promise<void>;
  /**
   * What the step's tools changed: the files they name (`ToolResult.changedFiles`), or `unknown` once
   * a call may have changed anything (`bash`, a failed write, a tool that does not say).
   */
  changed: Set<string> | "unknown";
}

/** What one finished call tells about the files it changed. */
function noteCall(ctx: RunContext, track: StepTrack, call: ToolCallInfo, outcome: ToolOutcome): void {
  // A tool that changes nothing (reads, searches) says so in its definition.
  if (toolEffects(ctx.registry.get(call.tool)) === "none" || track.changed === "unknown") return;
  if (outcome.isError || outcome.changedFiles === undefined) {
    track.changed = "unknown";
    return;
  }
  for (const path of outcome.changedFiles) track.changed.add(path);
}

/**
 * Records what each step changes in the workspace: a snapshot when the step starts and when it
 * finishes, and, when they differ, an `arbor.patch` entry naming the step's message with every
 * changed file and its diff. `arbor revert` reads these to put the workspace back. A failing
 * snapshot never fails the run: the step simply has no patch, and later steps are not tried.
 * git is started through `runner`, the runtime's, when given.
 */
export function snapshotExtension(home: string, runner?: GitRunner): RunExtension {
  const runs = new WeakMap<RunContext, StepTrack>();
  const trackOf = (ctx: RunContext) => {
    let track = runs.get(ctx);
    if (!track) {
      track = { changed: new Set() };
      runs.set(ctx, track);
    }
    return track;
  };
  return {
    name: "snapshots",
    beforeStep(ctx) {
      const track = trackOf(ctx);
      track.messageEntryId = undefined;
      track.changed = new Set();
      if (track.off || track.before !== undefined) return;
      // Only a tool changes the workspace, and none runs before the model has answered: the first
      // snapshot (a few git processes) is taken meanwhile instead of delaying the first model request.
      track.starting = (async () => {
        try {
          track.snapshots ??= await openSnapshots({ home, workspace: ctx.cwd, sessionId: ctx.sessionId, runner });
          track.before ??= await track.snapshots.track();
        } catch {
          track.off = true;
        }
      })();
    },
    async aroundTool(ctx, call, invoke) {
      // The workspace as the step found it is recorded before any tool can change it.
      const track = trackOf(ctx);
      if (track.starting) await track.starting;
      try {
        const outcome = await invoke();
        noteCall(ctx, track, call, outcome);
        return outcome;
      } catch (error) {
        track.changed = "unknown";
        throw error;
      }
    },
    written(ctx, entry) {
      if (entry.message.role === "assistant") trackOf(ctx).messageEntryId = entry.id;
      return undefined;
    },
    async afterStep(ctx) {
      const track = trackOf(ctx);
      if (track.starting) await track.starting;
      if (track.off || !track.snapshots || !track.before) return;
      try {
        // Only the files the tools named are looked at when they named them all; nothing when no
        // tool could have changed a file; the whole workspace otherwise.
        const { changed } = track;
        if (changed !== "unknown" && changed.size === 0) return;
        const after = await track.snapshots.track(changed === "unknown" ? undefined : [...changed]);
        if (after !== track.before) {
          const data: PatchData = {
            workspace: track.snapshots.workspace,
            before: track.before,
            after,
            ...(track.messageEntryId ? { messageEntryId: track.messageEntryId } : {}),
            files: await track.snapshots.patch(track.before, after),
          };
          await appendCustom(ctx, PATCH_ENTRY_TYPE, data);
        }
        track.before = after;
      } catch {
        track.off = true;
      }
    },
  };
}
