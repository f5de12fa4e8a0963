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
  /**
   * The run's first snapshot under way: started once a step's calls name a tool that may change
   * files (its message written, before any of its tools runs), awaited by every tool of that step.
   */
  starting?: Promise<void>;
  /**
   * What the step's tools changed: the files they name (`ToolResult.changedFiles`), or `unknown` once
   * a call may have changed anything (`bash`, a failed write, a tool that does not say).
   */
  changed: Set<string> | "unknown";
}

/** Whether a call of `tool` may change files: a tool that changes nothing (reads, searches) says so in its definition. */
function mayChange(ctx: RunContext, tool: string): boolean {
  return toolEffects(ctx.registry.get(tool)) !== "none";
}

/** What one finished call tells about the files it changed. */
function noteCall(ctx: RunContext, track: StepTrack, call: ToolCallInfo, outcome: ToolOutcome): void {
  if (!mayChange(ctx, call.tool) || track.changed === "unknown") return;
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
 *
 * A run takes its first snapshot only when a step calls a tool that may change files, before any
 * of that step's tools runs: a step of reads changes nothing to record, and a run of them (most
 * chats) starts no git at all. For a new session that first snapshot is a `git add` of the whole
 * workspace into an empty index plus a `write-tree`, two processes that cost the machine more CPU
 * than the server spends on the whole run.
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
  /** Starts the run's first snapshot unless it is taken, under way, or given up. */
  const start = (ctx: RunContext, track: StepTrack) => {
    if (track.off || track.before !== undefined || track.starting) return;
    track.starting = (async () => {
      try {
        track.snapshots ??= await openSnapshots({ home, workspace: ctx.cwd, sessionId: ctx.sessionId, runner });
        track.before ??= await track.snapshots.track();
      } catch {
        track.off = true;
      }
    })();
  };
  return {
    name: "snapshots",
    beforeStep(ctx) {
      const track = trackOf(ctx);
      track.messageEntryId = undefined;
      track.changed = new Set();
    },
    async aroundTool(ctx, call, invoke) {
      // The workspace as the step found it is recorded before any tool can change it. A call not
      // announced by a message of this run (one resumed after an approval) starts it here.
      const track = trackOf(ctx);
      if (mayChange(ctx, call.tool)) start(ctx, track);
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
      const { message } = entry;
      if (message.role !== "assistant") return undefined;
      const track = trackOf(ctx);
      track.messageEntryId = entry.id;
      // Written before its calls run: a call that may change files needs the workspace as it is now.
      for (const part of message.content) {
        if (part.type === "tool-call" && mayChange(ctx, part.toolName)) {
          start(ctx, track);
          break;
        }
      }
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
