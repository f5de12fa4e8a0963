import { appendCustom } from "../loop/journal.js";
import type { RunContext, RunExtension } from "../loop/run-context.js";
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
}

/**
 * Records what each step changes in the workspace: a snapshot when the step starts and when it
 * finishes, and, when they differ, an `arbor.patch` entry naming the step's message with every
 * changed file and its diff. `arbor revert` reads these to put the workspace back. A failing
 * snapshot never fails the run: the step simply has no patch, and later steps are not tried.
 */
export function snapshotExtension(home: string): RunExtension {
  const runs = new WeakMap<RunContext, StepTrack>();
  const trackOf = (ctx: RunContext) => {
    let track = runs.get(ctx);
    if (!track) {
      track = {};
      runs.set(ctx, track);
    }
    return track;
  };
  return {
    name: "snapshots",
    beforeStep(ctx) {
      const track = trackOf(ctx);
      track.messageEntryId = undefined;
      if (track.off || track.before !== undefined) return;
      // Only a tool changes the workspace, and none runs before the model has answered: the first
      // snapshot (a few git processes) is taken meanwhile instead of delaying the first model request.
      track.starting = (async () => {
        try {
          track.snapshots ??= await openSnapshots({ home, workspace: ctx.cwd, sessionId: ctx.sessionId });
          track.before ??= await track.snapshots.track();
        } catch {
          track.off = true;
        }
      })();
    },
    async aroundTool(ctx, _call, invoke) {
      // The workspace as the step found it is recorded before any tool can change it.
      const track = runs.get(ctx);
      if (track?.starting) await track.starting;
      return invoke();
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
        const after = await track.snapshots.track();
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
