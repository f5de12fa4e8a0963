import { basename } from "node:path";
import { pathToFileURL } from "node:url";

/**
 * What Arbor answers a server's `roots/list`: the workspace, as a file:// URI. A server that works on
 * files (a filesystem server, a linter) is pointed at the directory the runs work in, and nothing wider.
 */
export function workspaceRoots(workspace: string): { uri: string; name: string }[] {
  return [{ uri: pathToFileURL(workspace).href, name: basename(workspace) || workspace }];
}
