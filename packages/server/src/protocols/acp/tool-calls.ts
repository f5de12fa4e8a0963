import { isAbsolute, resolve } from "node:path";
import type { ToolCall, ToolCallContent, ToolCallLocation, ToolCallUpdate, ToolKind } from "@agentclientprotocol/sdk";

/**
 * What kind of work an Arbor tool does, as an ACP client shows it (an icon, a diff view, a
 * terminal). Tools of MCP servers and extensions are `other`.
 */
export function toolKindOf(tool: string): ToolKind {
  switch (tool) {
    case "read":
    case "list":
    case "todoread":
    case "memory_search":
    case "search_knowledge_base":
    case "skill":
      return "read";
    case "write":
    case "edit":
    case "memory_write":
      return "edit";
    case "bash":
    case "python_repl":
      return "execute";
    case "grep":
    case "glob":
    case "explore":
      return "search";
    case "fetch":
      return "fetch";
    case "goal":
    case "todowrite":
    case "plan_create":
    case "plan_update":
      return "think";
    default:
      return "other";
  }
}

/** A tool's input as the model wrote it (JSON text), or undefined when it is not a JSON object. */
function inputObject(input: unknown): Record<string, unknown> | undefined {
  let value = input;
  if (typeof input === "string") {
    try {
      value = JSON.parse(input);
    } catch {
      return undefined;
    }
  }
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

const str = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);

/** An absolute path for a client that opens files: tools take paths relative to the workspace. */
const absolute = (cwd: string, path: string) => (isAbsolute(path) ? path : resolve(cwd, path));

/** The files a call touches, so a client can follow along in its editor. */
function locationsOf(tool: string, input: Record<string, unknown> | undefined, cwd: string): ToolCallLocation[] {
  const path = str(input?.path);
  if (path === undefined) return [];
  const line = typeof input?.offset === "number" && tool === "read" ? { line: input.offset } : {};
  return [{ path: absolute(cwd, path), ...line }];
}

/** A title a person reads in the client's tool list: the tool and what it works on. */
function titleOf(tool: string, input: Record<string, unknown> | undefined): string {
  const subject =
    tool === "bash"
      ? (str(input?.description) ?? str(input?.command))
      : (str(input?.path) ?? str(input?.pattern) ?? str(input?.url) ?? str(input?.query) ?? str(input?.command));
  return subject === undefined ? tool : `${tool} ${subject}`;
}

/** What an edit or write changes, as the diff a client shows before and after it is made. */
function diffOf(tool: string, input: Record<string, unknown> | undefined, cwd: string): ToolCallContent[] {
  const path = str(input?.path);
  if (path === undefined) return [];
  if (tool === "write" && typeof input?.content === "string") {
    return [{ type: "diff", path: absolute(cwd, path), newText: input.content }];
  }
  if (tool === "edit" && typeof input?.oldString === "string" && typeof input.newString === "string") {
    return [{ type: "diff", path: absolute(cwd, path), oldText: input.oldString, newText: input.newString }];
  }
  return [];
}

/** A tool call as it starts: its kind, title, the files it touches and, for edits, the diff. */
export function toolCallStarted(callId: string, tool: string, input: unknown, cwd: string): ToolCall {
  const args = inputObject(input);
  return {
    toolCallId: callId,
    title: titleOf(tool, args),
    kind: toolKindOf(tool),
    status: "in_progress",
    locations: locationsOf(tool, args, cwd),
    content: diffOf(tool, args, cwd),
    rawInput: args ?? input,
  };
}

/** A tool call as it ends: completed or failed, with its output as text (an edit keeps its diff). */
export function toolCallEnded(
  callId: string,
  tool: string,
  input: unknown,
  output: string,
  failed: boolean,
  cwd: string,
): ToolCallUpdate {
  const text: ToolCallContent = { type: "content", content: { type: "text", text: output } };
  const diff = failed ? [] : diffOf(tool, inputObject(input), cwd);
  return {
    toolCallId: callId,
    status: failed ? "failed" : "completed",
    content: [...diff, text],
    rawOutput: output,
  };
}
