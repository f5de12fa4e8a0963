import { ArborError, isArborError } from "../errors.js";
import type { WorkspaceFiles } from "./workspace.js";

/** A host's failure as the tool's: an abort stays an abort, anything else names the file and the host's words. */
function failure(err: unknown, doing: string, shown: string, absolute: string, signal: AbortSignal): ArborError {
  if (signal.aborted) return new ArborError("aborted", `The run was aborted before the editor answered for ${shown}.`);
  if (isArborError(err)) return err;
  const said = err instanceof Error ? err.message : String(err);
  return new ArborError("tool_failed", `The editor could not ${doing} ${shown}: ${said}`, { path: absolute });
}

/** `files.readText`, its failure told as the tool's own. */
export async function readThrough(files: WorkspaceFiles, absolute: string, shown: string, signal: AbortSignal): Promise<string> {
  try {
    return await files.readText(absolute, signal);
  } catch (err) {
    throw failure(err, "read", shown, absolute, signal);
  }
}

/** `files.writeText`, its failure told as the tool's own. */
export async function writeThrough(
  files: WorkspaceFiles,
  absolute: string,
  shown: string,
  content: string,
  signal: AbortSignal,
): Promise<void> {
  try {
    await files.writeText(absolute, content, signal);
  } catch (err) {
    throw failure(err, "write", shown, absolute, signal);
  }
}
