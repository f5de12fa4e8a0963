import { readFile, writeFile } from "node:fs/promises";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import { editablePath } from "../paths.js";
import { defineTool } from "../tool.js";
import { readThrough, writeThrough } from "../workspace-files.js";
import { isBinaryFile } from "./binary.js";
import { editRegions } from "./edit-regions.js";
import { notFoundError, statOrUndefined } from "./fs-errors.js";

export const EditInputSchema = z.strictObject({
  path: z.string().min(1).describe("File to edit, relative to the workspace root or absolute."),
  oldString: z.string().min(1).describe("The exact text to replace, including whitespace and indentation."),
  newString: z.string().describe("The text to put in its place."),
  replaceAll: z.boolean().optional().describe("Replace every occurrence instead of requiring exactly one."),
});

/**
 * Exact string replacement. The old text must occur exactly once (or `replaceAll`), otherwise the
 * call fails and the file is left as it was: a fuzzy match that edits the wrong place is worse than
 * an error the model can fix by quoting more context.
 */
export function editTool() {
  return defineTool({
    name: "edit",
    // A replacement applied twice can change the file twice (when the new text holds the old).
    effects: "at-most-once",
    description:
      "Replace exact text in a file. oldString must match the file exactly (whitespace included) and occur once; " +
      "include surrounding lines to make it unique, or set replaceAll to change every occurrence. Read the file first.",
    input: EditInputSchema,
    async execute(input, ctx) {
      if (input.oldString === input.newString) {
        throw new ArborError("invalid_tool_input", "oldString and newString are identical, so there is nothing to change.");
      }
      const { absolute, shown } = await editablePath(ctx, input.path, "edit");
      // The host's copy (an editor's buffer, unsaved changes included) is what is edited, through it.
      const files = ctx.workspace?.files;
      const content =
        files !== undefined ? await readThrough(files, absolute, shown, ctx.abort) : await readLocal(absolute, shown);
      let oldString = input.oldString;
      let newString = input.newString;
      let count = countOccurrences(content, oldString);
      if (count === 0 && content.includes("\r\n") && oldString.includes("\n") && !oldString.includes("\r\n")) {
        // Models write LF; a CRLF file should still match, and keep its line endings.
        oldString = oldString.replace(/\n/g, "\r\n");
        newString = newString.replace(/\r?\n/g, "\r\n");
        count = countOccurrences(content, oldString);
      }
      if (count === 0) {
        throw new ArborError(
          "tool_failed",
          `oldString was not found in ${shown}; the file is unchanged. It must match exactly, whitespace and ` +
            "indentation included: read the file again and copy the text.",
          { path: absolute },
        );
      }
      if (count > 1 && input.replaceAll !== true) {
        throw new ArborError(
          "tool_failed",
          `oldString occurs ${count} times in ${shown}; the file is unchanged. Include more surrounding lines so it ` +
            "matches exactly one place, or set replaceAll to replace all of them.",
          { path: absolute, occurrences: count },
        );
      }
      // split/join rather than String.replace, whose replacement string treats `$&` and friends specially.
      const updated = content.split(oldString).join(newString);
      if (files !== undefined) await writeThrough(files, absolute, shown, updated, ctx.abort);
      else await writeFile(absolute, updated);
      return {
        output: `Edited ${shown}: replaced ${count} occurrence${count === 1 ? "" : "s"}.`,
        title: shown,
        // Where it changed, with context, so a diff can show the file's own line numbers.
        metadata: {
          path: absolute,
          replacements: count,
          regions: editRegions(content, oldString, newString, occurrences(content, oldString)),
        },
        // Through a host the disk copy is the host's to write, whenever it does: no promise about it here.
        ...(files === undefined ? { changedFiles: [absolute] } : {}),
      };
    },
  });
}

/** A file's text from the local disk: refused when missing, a folder or binary. */
async function readLocal(absolute: string, shown: string): Promise<string> {
  const info = await statOrUndefined(absolute);
  if (!info) throw await notFoundError(absolute, shown);
  if (info.isDirectory()) throw new ArborError("tool_failed", `${shown} is a directory, not a file.`, { path: absolute });
  if (await isBinaryFile(absolute)) throw new ArborError("tool_failed", `${shown} is a binary file; edit works on text.`);
  return readFile(absolute, "utf8");
}

function occurrences(text: string, search: string): number[] {
  const out: number[] = [];
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) out.push(i);
  return out;
}

function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + search.length)) count++;
  return count;
}
