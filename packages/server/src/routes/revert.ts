import { z } from "zod";
import type { ServerContext } from "../context.js";
import { defineRoute, type Route } from "../http/route.js";
import { EntryId } from "../id-schemas.js";
import { SessionParams } from "../schemas.js";

const RevertRequest = z
  .strictObject({
    to: EntryId.optional().describe("Go back to before this entry (default: the last user message on the active path)."),
  })
  .describe("Which entry to go back before.");

const RevertResponse = z.object({
  session_id: z.string(),
  to: z.string().describe("The entry the session went back before."),
  leaf: z.string().describe("The new leaf: the revert's own arbor.revert entry."),
  workspace: z.string().optional(),
  files: z.number().int().describe("Files the revert changed in the workspace."),
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
          "Restores every file the session's steps changed from the entry on (files they created are removed; .gitignore'd files are left alone) and records an `arbor.revert` entry before it, the new leaf. Nothing changes on an error.",
        params: SessionParams,
        body: RevertRequest,
        responses: {
          200: { description: "What was reverted.", schema: RevertResponse },
          ...errors,
          409: "The session has a run in progress.",
        },
      },
      async ({ params, body }, c) => {
        const r = await runtime.sessions.revert(params.id, body.to, now);
        return c.json({
          session_id: r.sessionId,
          to: r.to,
          leaf: r.leaf,
          ...(r.workspace ? { workspace: r.workspace } : {}),
          files: r.files,
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
        summary: "Undo the last revert: files and leaf come back",
        params: SessionParams,
        responses: {
          200: { description: "What was restored.", schema: UnrevertResponse },
          ...errors,
          409: "A run is in progress, or the leaf is not a revert.",
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
