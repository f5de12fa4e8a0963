import { createReadStream } from "node:fs";
import { z } from "zod";
import { ArborError } from "../../errors.js";
import type { BlobStore } from "../blob-store.js";
import { DEFAULT_OUTPUT_LIMITS } from "../output-cap.js";
import { toolPath } from "../paths.js";
import { throttleProgress } from "../progress-throttle.js";
import { defineTool, type ToolResult } from "../tool.js";
import { readThrough } from "../workspace-files.js";
import { isBinaryFile, readSmallFile } from "./binary.js";
import { notFoundError, statOrUndefined } from "./fs-errors.js";
import { type Page, pageLines, single } from "./line-pager.js";

export const DEFAULT_READ_LIMIT = 2000;
const MAX_LINE_CHARS = 2000;
/** Files smaller than this report no progress: they are read before anyone could see it. */
const PROGRESS_FROM_BYTES = 1024 * 1024;
/** A file up to this size is read whole in one go (readSmallFile) rather than streamed. */
const SMALL_FILE_BYTES = 64 * 1024;

export const ReadInputSchema = z.strictObject({
  path: z
    .string()
    .min(1)
    .describe('File to read, relative to the workspace root or absolute; or "blob:<ref>" for a saved full tool output.'),
  offset: z.number().int().min(1).optional().describe("1-based line number to start at (default 1)."),
  limit: z.number().int().min(1).optional().describe(`Most lines to return (default ${DEFAULT_READ_LIMIT}).`),
});

export interface ReadToolOptions {
  /** Where truncated tool outputs were saved; without it `blob:` paths are refused. */
  blobs?: BlobStore;
}

/**
 * Reads a text file (or a saved tool output) as numbered lines. Pages stay under the output cap by
 * construction, so a read is never itself cut: it ends with the offset to continue from instead.
 */
export function readTool(options: ReadToolOptions = {}) {
  return defineTool({
    name: "read",
    effects: "none",
    description:
      "Read a text file as numbered lines. Use offset and limit to read part of a long file; the output says " +
      'where to continue. Paths are relative to the workspace root. A path "blob:<ref>" reads a tool output that ' +
      "was truncated. Directories and binary files are refused: use list for folders.",
    input: ReadInputSchema,
    async execute(input, ctx) {
      const offset = input.offset ?? 1;
      const limit = input.limit ?? DEFAULT_READ_LIMIT;
      const pageOptions = { offset, limit, maxBytes: DEFAULT_OUTPUT_LIMITS.maxBytes, maxLineChars: MAX_LINE_CHARS };

      if (input.path.startsWith("blob:")) {
        const ref = input.path.slice("blob:".length);
        if (!options.blobs) {
          throw new ArborError("tool_failed", "This runtime keeps no saved outputs, so blob: paths cannot be read.");
        }
        const bytes = await options.blobs.get(ref);
        if (!bytes) {
          throw new ArborError(
            "blob_not_found",
            `No saved output ${input.path}. Use the exact blob path given in a truncated tool output.`,
            { ref },
          );
        }
        const page = await pageLines(single(bytes), pageOptions);
        return finish(page, input.path, offset);
      }

      const { absolute, shown } = await toolPath(ctx, input.path, "file");
      await ctx.ask({ permission: "read", patterns: [shown], metadata: { path: absolute } });
      const files = ctx.workspace?.files;
      if (files !== undefined) {
        // The host's copy (an editor's unsaved buffer) is the file as the user sees it.
        const text = await readThrough(files, absolute, shown, ctx.abort);
        return finish(await pageLines(single(text), pageOptions), shown, offset);
      }
      const info = await statOrUndefined(absolute);
      if (!info) throw await notFoundError(absolute, shown);
      if (info.isDirectory()) {
        throw new ArborError("tool_failed", `${shown} is a directory, not a file. Use the list tool to see what it holds.`, {
          path: absolute,
        });
      }
      const small = info.size <= SMALL_FILE_BYTES ? await readSmallFile(absolute, Number(info.size)) : undefined;
      if (small ? small.binary : await isBinaryFile(absolute)) {
        throw new ArborError(
          "tool_failed",
          `${shown} is a binary file (${info.size} bytes) and cannot be shown as text. Use bash (e.g. file, xxd | head) to inspect it.`,
          { path: absolute },
        );
      }
      if (small) return finish(await pageLines(single(small.bytes), pageOptions), shown, offset);
      const stream = createReadStream(absolute, { highWaterMark: 64 * 1024 });
      const progress = throttleProgress((update) => ctx.metadata(update));
      // A large file can take a while to page through: say how far the read has got.
      const chunks =
        info.size >= PROGRESS_FROM_BYTES
          ? counted(stream, (read) => progress.report({ title: shown, metadata: { readBytes: read, totalBytes: info.size } }))
          : stream;
      try {
        const page = await pageLines(chunks, pageOptions);
        return finish(page, shown, offset);
      } finally {
        progress.flush();
        stream.destroy();
      }
    },
  });
}

function finish(page: Page, shown: string, offset: number): ToolResult {
  if (page.lastLine < page.firstLine) {
    if (page.totalLines === 0) return { output: "(empty file)", title: shown, metadata: { lines: 0 } };
    throw new ArborError(
      "tool_failed",
      `offset ${offset} is past the end of ${shown}, which has ${page.totalLines} lines. Use a smaller offset.`,
    );
  }
  const footer = page.more
    ? `(More lines follow. Call read with offset ${page.lastLine + 1} to continue.)`
    : `(End of file: ${page.totalLines} lines.)`;
  return {
    output: `${page.text}\n\n${footer}`,
    title: shown,
    metadata: { firstLine: page.firstLine, lastLine: page.lastLine, more: page.more },
  };
}

/** The chunks as they come, telling `onRead` how many bytes have passed so far. */
async function* counted(chunks: AsyncIterable<Uint8Array>, onRead: (bytes: number) => void): AsyncIterable<Uint8Array> {
  let read = 0;
  for await (const chunk of chunks) {
    read += chunk.byteLength;
    onRead(read);
    yield chunk;
  }
}
