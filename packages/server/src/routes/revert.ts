import { z } from "zod";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";
import { EntryId } from "../id-schemas.js";
import { SessionParams } from "../schemas.js";

const RevertRequest = z
  .strictObject({
    to: EntryId.optional().describe("Go back to before this entry (default: the last user message on the active path)."),
    file: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe("Only this file (relative to the session's workspace): as it was before `to`, or before `step`. The leaf stays."),
    step: EntryId.optional().describe(
      "Only what this step changed (its arbor.patch entry, or the assistant message it names), hunk by hunk; later changes stay. The leaf stays.",
    ),
  })
  .refine((b) => !(b.step !== undefined && b.to !== undefined), { message: "give `to` or `step`, not both" })
  .describe("What to take back: the session from an entry on, or one file and/or one step.");

const RevertResponse = z.object({
  session_id: z.string(),
  to: z.string().describe("The entry the session went back before."),
  leaf: z.string().describe("The new leaf: the revert's own arbor.revert entry."),
  workspace: z.string().optional(),
  files: z.number().int().describe("Files the revert changed in the workspace."),
  scope: z.enum(["session", "file", "step"]).describe("What was taken back; file and step reverts leave the leaf."),
});

const UnrevertResponse = z.object({
  session_id: z.string(),
  leaf: z.string().nullable(),
  workspace: z.string().optional(),
  files: z.number().int(),
});

const DiffResponse = z.object({
  session_id: z.string(),
  workspace: z.string().optional().describe("The session's workspace; absent when its path changed no file."),
  from: z.string().optional().describe("Snapshot tree before the path's first change."),
  to: z.string().optional().describe("Snapshot tree after the path's last change."),
  steps: z.number().int().describe("Steps on the active path that changed files."),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(["added", "modified", "deleted"]),
      diff: z.string().describe("Unified diff, cut when long."),
    }),
  ),
});

/** HTTP answers at once: a session with a driver is 409 session_busy, never left waiting. */
const now = { busy: "reject" } as const;

const errors = {
  400: "An id or the body is not valid.",
  404: "No such session, or the entry is not on its active path.",
};

/** Undo and redo of what a session's runs did to the workspace, from the snapshots its steps recorded. */
export function revertRoutes({ runtime }: ServerContext): Route[] {
  return [
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/revert",
        scope: "admin",
        tag: "sessions",
        summary: "Put the workspace back as it was before an entry and move the leaf there",
        description:
          "Restores every file the session's steps changed from the entry on (files they created are removed; .gitignore'd files are left alone) and records an `arbor.revert` entry before it, the new leaf. With `file` and/or `step`, only that file or that step's change is taken back and the revert is recorded at the leaf. Only the session's own workspace is touched. Nothing changes on an error.",
        params: SessionParams,
        body: RevertRequest,
        responses: {
          200: { description: "What was reverted.", schema: RevertResponse },
          ...errors,
          409: "The session has a run in progress, the change no longer fits the files (revert_conflict), or a path outside the workspace (revert_refused).",
        },
      },
      async ({ params, body }, c) => {
        const target = {
          ...(body.to === undefined ? {} : { to: body.to }),
          ...(body.file === undefined ? {} : { file: body.file }),
          ...(body.step === undefined ? {} : { step: body.step }),
        };
        const r = await runtime.sessions.revert(params.id, target, now);
        return c.json({
          session_id: r.sessionId,
          to: r.to,
          leaf: r.leaf,
          ...(r.workspace ? { workspace: r.workspace } : {}),
          files: r.files,
          scope: r.scope,
        });
      },
    ),
    defineRoute(
      {
        method: "GET",
        path: "/api/sessions/:id/diff",
        tag: "sessions",
        scope: "read",
        summary: "Every file the session changed, as one diff",
        description:
          "From the workspace before the active path's first step that changed files to after its last, from the steps' recorded snapshots. A file changed and changed back is not listed.",
        params: SessionParams,
        responses: { 200: { description: "The session's changes.", schema: DiffResponse }, ...errors },
      },
      async ({ params }, c) => {
        const d = await runtime.sessions.diff(params.id);
        return c.json({
          session_id: d.sessionId,
          ...(d.workspace ? { workspace: d.workspace } : {}),
          ...(d.from ? { from: d.from } : {}),
          ...(d.to ? { to: d.to } : {}),
          steps: d.steps,
          files: d.files,
        });
      },
    ),
    defineRoute(
      {
        method: "POST",
        path: "/api/sessions/:id/unrevert",
        scope: "admin",
        tag: "sessions",
        summary: "Undo the latest revert not undone yet: files (and, while it is the leaf, the leaf) come back",
        description:
          "Also after later entries: then only the revert's own change is taken back, hunk by hunk, and an `arbor.unrevert` entry records it; a hunk that no longer fits is 409 revert_conflict and nothing changes.",
        params: SessionParams,
        responses: {
          200: { description: "What was restored.", schema: UnrevertResponse },
          ...errors,
          409: "A run is in progress, no revert is left to undo, or files changed since in the same places.",
        },
      },
      async ({ params }, c) => {
        const r = await runtime.sessions.unrevert(params.id, now);
        return c.json({
          session_id: r.sessionId,
          leaf: r.leaf,
          ...(r.workspace ? { workspace: r.workspace } : {}),
          files: r.files,
        });
      },
    ),
  ];
}
