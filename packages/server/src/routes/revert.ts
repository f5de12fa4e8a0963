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
        method: "POST",
        path: "/api/sessions/:id/unrevert",
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
