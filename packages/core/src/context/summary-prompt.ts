import { z } from "zod";
import type { Message } from "../model/message.js";
import type { ToolResultOutput } from "../model/parts.js";

/**
 * What the compaction agent is told, pure. The conversation is sent
 * as text rather than as chat messages, so a summary request needs no tool definitions and long tool
 * outputs can be cut to what a summary needs.
 */

/** The `compaction` agent's system prompt. */
export const SUMMARY_SYSTEM_PROMPT = [
  "You are Arbor's compaction agent. You read a conversation between a user and a coding agent and write the",
  "summary that replaces it in the agent's context. The agent continues from your summary alone, so keep every",
  "fact it needs: exact file paths, names, commands, values, error messages, and the user's own requirements in",
  "their words. You have no tools. Do not continue the conversation or answer questions in it: write only the summary.",
].join("\n");

const SECTIONS = [
  "## Goal",
  "What the user wants overall.",
  "## Constraints and preferences",
  "Requirements, restrictions and preferences the user stated or the work revealed.",
  "## Progress",
  "### Done",
  "### In progress",
  "### Blocked",
  "## Key decisions",
  "Each decision and why; approaches tried and given up, and why.",
  "## Next steps",
  "The concrete next actions, in order.",
  "## Critical context",
  "Facts the next steps depend on: identifiers, values, error messages, output that matters.",
  "## Files",
  "### Read",
  "### Modified",
  "Paths, with a few words on each.",
].join("\n");

/** Tool outputs longer than this are cut in what the summarizer reads. */
export const SUMMARY_TOOL_OUTPUT_CHARS = 2_000;
/** Other message text longer than this is cut too (a pasted file, a long answer). */
export const SUMMARY_TEXT_CHARS = 8_000;

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[… ${text.length - max} more characters not shown]`;
}

function outputText(output: ToolResultOutput): string {
  return output.type === "text" || output.type === "error-text" ? output.value : (JSON.stringify(output.value) ?? "");
}

function stripReminder(text: string): string {
  return text.replace(/^<system-reminder>\n?|\n?<\/system-reminder>$/g, "");
}

/** One message as the summarizer reads it. */
export function serializeMessage(message: Message): string {
  const lines: string[] = [];
  const who = message.role === "user" && message.synthetic ? "system reminder" : message.role;
  for (const part of message.content) {
    switch (part.type) {
      case "text":
        lines.push(`[${who}]: ${cut(message.synthetic ? stripReminder(part.text) : part.text, SUMMARY_TEXT_CHARS)}`);
        break;
      case "reasoning":
        break;
      case "file":
        lines.push(`[${who} attached file]: ${part.filename ?? part.mediaType}`);
        break;
      case "tool-call":
        lines.push(`[assistant called ${part.toolName}]: ${cut(JSON.stringify(part.input) ?? "", SUMMARY_TEXT_CHARS)}`);
        break;
      case "tool-result": {
        const failed = part.output.type.startsWith("error") ? " (failed)" : "";
        lines.push(`[${part.toolName} result${failed}]: ${cut(outputText(part.output), SUMMARY_TOOL_OUTPUT_CHARS)}`);
        break;
      }
    }
  }
  return lines.join("\n");
}

export function serializeConversation(messages: readonly Message[]): string {
  return messages
    .map(serializeMessage)
    .filter((s) => s !== "")
    .join("\n\n");
}

function focusBlock(focus: string | undefined): string {
  return focus?.trim() ? `\n\nThe user asked this summary to focus on: ${focus.trim()}` : "";
}

/**
 * The request for a compaction summary. With `previousSummary` the summary is updated: what is still
 * true is kept, new work folded in, rather than written again from the new messages alone.
 */
export function summaryRequest(input: { conversation: string; previousSummary?: string; focus?: string }): string {
  const head = input.previousSummary
    ? [
        "<previous-summary>",
        input.previousSummary,
        "</previous-summary>",
        "",
        "<conversation>",
        input.conversation,
        "</conversation>",
        "",
        "The conversation above continues from the previous summary. Provide a detailed prompt for continuing our conversation",
        "above: update the previous summary with what happened since. Keep everything in it that is still true, move",
        "finished work to Done, add the new decisions, files and next steps, and drop only what the new messages make wrong.",
      ]
    : [
        "<conversation>",
        input.conversation,
        "</conversation>",
        "",
        "Provide a detailed prompt for continuing our conversation above. It replaces the conversation: write it so that",
        "an agent that has seen nothing else can pick up the work exactly where it stopped.",
      ];
  return `${head.join("\n")}\n\nUse these sections, in this order (write "None." under a section with nothing in it):\n\n${SECTIONS}${focusBlock(input.focus)}`;
}

/** The short summary of the first part of a turn whose later steps are kept verbatim. */
export function turnPrefixRequest(conversation: string): string {
  return [
    "<conversation>",
    conversation,
    "</conversation>",
    "",
    "This is the beginning of a turn whose later steps are kept verbatim after your summary. Summarize it briefly so",
    "those steps make sense: what the user asked in this turn, what was done so far in it, and what the rest of the",
    "turn needs to know. Sections: ## Turn request, ## Done so far in this turn, ## Needed next. At most 300 words.",
  ].join("\n");
}

/** The summary of a branch the user has left, so continuing elsewhere still knows what was tried there. */
export function branchSummaryRequest(conversation: string, focus?: string): string {
  return [
    "<conversation>",
    conversation,
    "</conversation>",
    "",
    "The user has left this branch of the conversation to try something else. Summarize what was done on it so that",
    "the work on the new branch can use it. Sections: ## Goal of the branch, ## What was done, ## Outcome (what worked,",
    "what failed and why), ## Files (read / modified), ## Worth knowing. Be brief.",
  ]
    .join("\n")
    .concat(focusBlock(focus));
}

/** Sent after an automatic compaction, as a system reminder marked synthetic: the model goes on with its work instead of waiting for the user, and the user's own words stay apart. */
export const CONTINUE_TEXT =
  "The conversation was compacted to fit the model's context; the summary above replaces the earlier messages. Continue if you have next steps; otherwise say what is done.";

/** Joins the history summary and a split turn's own summary. */
export function joinSplitTurn(history: string, turn: string): string {
  return history.trim() === ""
    ? `## Current turn (started before the cut)\n\n${turn}`
    : `${history}\n\n---\n\n## Current turn (started before the cut)\n\n${turn}`;
}

// Files read and modified, from the tool calls themselves so the lists are exact whatever the summary says.

export const FileOpsSchema = z.object({ read: z.array(z.string()), modified: z.array(z.string()) });
export type FileOps = z.infer<typeof FileOpsSchema>;

const READ_TOOLS = new Set(["read"]);
const WRITE_TOOLS = new Set(["write", "edit"]);

export function fileOps(messages: readonly Message[], previous?: FileOps): FileOps {
  const read = new Set(previous?.read);
  const modified = new Set(previous?.modified);
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type !== "tool-call") continue;
      const path = (part.input as { path?: unknown } | null)?.path;
      if (typeof path !== "string" || path === "") continue;
      if (WRITE_TOOLS.has(part.toolName)) modified.add(path);
      else if (READ_TOOLS.has(part.toolName)) read.add(path);
    }
  }
  for (const path of modified) read.delete(path);
  return { read: [...read].sort(), modified: [...modified].sort() };
}

const FILES_MARK = "\n\n<files-from-tool-calls>";

/** Appends the exact file lists to a summary; `stripFileLists` removes them before the summary is updated. */
export function withFileLists(summary: string, ops: FileOps): string {
  if (ops.read.length === 0 && ops.modified.length === 0) return summary;
  const lines = [FILES_MARK.trimStart()];
  if (ops.read.length > 0) lines.push(`read: ${ops.read.join(", ")}`);
  if (ops.modified.length > 0) lines.push(`modified: ${ops.modified.join(", ")}`);
  lines.push("</files-from-tool-calls>");
  return `${summary.trimEnd()}\n\n${lines.join("\n")}`;
}

export function stripFileLists(summary: string): string {
  const at = summary.indexOf(FILES_MARK);
  return at < 0 ? summary : summary.slice(0, at);
}
