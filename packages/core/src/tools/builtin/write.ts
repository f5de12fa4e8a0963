import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import { editablePath } from "../paths.js";
import { defineTool } from "../tool.js";
import { writeThrough } from "../workspace-files.js";
import { statOrUndefined } from "./fs-errors.js";

export const WriteInputSchema = z.strictObject({
  path: z.string().min(1).describe("File to write, relative to the workspace root or absolute."),
  content: z.string().describe("The complete new content of the file."),
});

/**
 * Writes a whole file, creating missing parent folders. Asks the `edit` permission (as OpenCode
 * does), so one rule governs every tool that changes files.
 */
export function writeTool() {
  return defineTool({
    name: "write",
    // The whole content is written each time: a second run leaves the file as the first did.
    effects: "idempotent-by-key",
    description:
      "Write a file with the given content, replacing it if it exists and creating missing folders. " +
      "Prefer edit for changing part of an existing file.",
    input: WriteInputSchema,
    async execute(input, ctx) {
      const { absolute, shown } = await editablePath(ctx, input.path, "write");
      const bytes = Buffer.byteLength(input.content);
      const files = ctx.workspace?.files;
      if (files !== undefined) {
        // The host (an editor) makes the change, so its buffer and undo history have it.
        await writeThrough(files, absolute, shown, input.content, ctx.abort);
        return { output: `Wrote ${shown} (${bytes} bytes).`, title: shown, metadata: { path: absolute, bytes } };
      }
      const before = await statOrUndefined(absolute);
      if (before?.isDirectory()) {
        throw new ArborError("tool_failed", `${shown} is a directory; give a file path to write.`, { path: absolute });
      }
      await mkdir(dirname(absolute), { recursive: true });
      await writeFile(absolute, input.content);
      return {
        output: `${before ? "Overwrote" : "Created"} ${shown} (${bytes} bytes).`,
        title: shown,
        metadata: { path: absolute, created: !before, bytes },
        changedFiles: [absolute],
      };
    },
  });
}
