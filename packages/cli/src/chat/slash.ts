import { ArborError, type Runtime, type Store, type ThinkingLevel } from "@arbor/core";
import { parseThinkingLevel, THINKING_LEVEL_HINT } from "@arbor/core/llm";
import { resolveEntryId, resolveSessionId } from "../ids.js";
import { renderSessionList } from "../render/list.js";
import type { Style } from "../render/style.js";
import { oneLine, shortId, truncate } from "../render/text.js";
import { renderTree } from "../render/tree.js";

/** What a slash command may touch of the chat: its store and runtime, the session it is in, and the settings of its next turns. */
export interface SlashHost {
  readonly store: Store;
  readonly runtime: Runtime;
  readonly style: Style;
  readonly columns: number;
  sessionId: string | undefined;
  model: string | undefined;
  agent: string | undefined;
  thinking: ThinkingLevel | undefined;
  /** Adds lines to the transcript. */
  print(lines: readonly string[]): void;
  quit(): void;
}

interface SlashCommand {
  readonly name: string;
  readonly args: string;
  readonly summary: string;
  run(host: SlashHost, rest: string): Promise<void>;
}

function needSession(host: SlashHost): string {
  if (host.sessionId === undefined) {
    throw new ArborError("invalid_input", "No session yet: send a prompt first, or /resume <id> to open one (see /sessions).");
  }
  return host.sessionId;
}

/** The last few user and assistant messages of a session's context, so a resumed chat shows where it was. */
export async function recap(host: SlashHost, sessionId: string, count = 6): Promise<void> {
  const snapshot = await host.store.getSnapshot(sessionId);
  const { messages } = snapshot.runtimeContext;
  const lines: string[] = [];
  for (const message of messages.slice(-count)) {
    if (message.role !== "user" && message.role !== "assistant") continue;
    const content: ReadonlyArray<{ type: string; text?: string }> =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    const text = oneLine(content.flatMap((p) => (p.type === "text" && p.text ? [p.text] : [])).join(" "));
    if (text === "") continue;
    const who = message.role === "user" ? host.style.bold("you") : host.style.dim("agent");
    lines.push(`${who} ${truncate(text, Math.max(20, host.columns - 8))}`);
  }
  const title = snapshot.session.title ?? snapshot.session.task ?? "(untitled)";
  host.print([
    `${host.style.green("●")} session ${host.style.bold(sessionId)} ${host.style.dim(`— ${oneLine(title)}, ${messages.length} messages`)}`,
    ...lines,
  ]);
}

/** `/label [<entry>] <text>`: a first word naming an entry of the session labels it; otherwise the leaf gets the label. */
async function labelTarget(host: SlashHost, sessionId: string, rest: string): Promise<{ entryId: string; text: string }> {
  const [first = "", ...others] = rest.split(/\s+/);
  if (others.length > 0 && /^[0-9a-z-]{4,}$/i.test(first)) {
    try {
      return { entryId: await resolveEntryId(host.store, sessionId, first), text: others.join(" ") };
    } catch {}
  }
  const meta = await host.store.getSession(sessionId);
  if (!meta?.leafEntryId) throw new ArborError("invalid_input", "The session is empty: there is nothing to label.");
  return { entryId: meta.leafEntryId, text: rest };
}

export const SLASH_COMMANDS: readonly SlashCommand[] = [
  {
    name: "tree",
    args: "",
    summary: "Draw the session's entry tree, every branch, with the active path and the leaf marked.",
    async run(host) {
      const snapshot = await host.store.getSnapshot(needSession(host));
      host.print(renderTree(snapshot, { style: host.style, width: host.columns }));
    },
  },
  {
    name: "fork",
    args: "[<entry>]",
    summary: "Copy the branch up to the entry (default: the leaf) into a new session, and go on in it.",
    async run(host, rest) {
      const from = needSession(host);
      const entryId =
        rest === "" ? (await host.store.getSession(from))?.leafEntryId : await resolveEntryId(host.store, from, rest);
      if (!entryId) throw new ArborError("invalid_input", "The session is empty: there is nothing to fork.");
      const fork = await host.runtime.sessions.fork(from, entryId);
      host.sessionId = fork.id;
      host.print([
        `Forked session ${from} at entry ${shortId(entryId)} into ${host.style.bold(fork.id)}; you are now in the fork.`,
      ]);
    },
  },
  {
    name: "leaf",
    args: "<entry>",
    summary: "Move the session's leaf to an entry (as /tree shows it): the next prompt continues from there.",
    async run(host, rest) {
      const sessionId = needSession(host);
      if (rest === "")
        throw new ArborError("invalid_input", "Say which entry: /leaf <entry>, an id or prefix as /tree shows it.");
      const entryId = await resolveEntryId(host.store, sessionId, rest);
      const moved = await host.runtime.sessions.switchLeaf(sessionId, entryId);
      host.print([`The session now continues from entry ${shortId(moved.leafId ?? entryId)}.`]);
    },
  },
  {
    name: "label",
    args: "[<entry>] <text>",
    summary: "Label an entry (default: the leaf) — a bookmark /tree shows.",
    async run(host, rest) {
      const sessionId = needSession(host);
      if (rest === "") throw new ArborError("invalid_input", "Give the label: /label [<entry>] <text>.");
      const { entryId, text } = await labelTarget(host, sessionId, rest);
      const label = oneLine(text);
      await host.runtime.sessions.label(sessionId, entryId, label);
      host.print([`Labelled entry ${shortId(entryId)} "${label}".`]);
    },
  },
  {
    name: "compact",
    args: "[<focus>]",
    summary: "Summarize the session's history now, keeping the recent turns; the focus says what the summary should keep.",
    async run(host, rest) {
      const result = await host.runtime.sessions.compact(needSession(host), rest === "" ? {} : { focus: rest });
      host.print([`Compacted: ${result.tokensBefore} → ${result.tokensAfter} tokens.`]);
    },
  },
  {
    name: "revert",
    args: "[<entry>]",
    summary: "Put the workspace back as it was before the entry (default: the last prompt) and move the leaf there.",
    async run(host, rest) {
      const sessionId = needSession(host);
      const to = rest === "" ? undefined : await resolveEntryId(host.store, sessionId, rest);
      const result = await host.runtime.sessions.revert(sessionId, to);
      host.print([
        `Reverted to before entry ${shortId(result.to)}: ${result.files} file(s) put back; the next prompt continues from there.`,
      ]);
    },
  },
  {
    name: "model",
    args: "[<provider/model>]",
    summary: "Show the model, or use another from the next turn on (the session records the change).",
    async run(host, rest) {
      if (rest !== "") host.model = rest;
      host.print([`model: ${host.model ?? host.runtime.defaults().model ?? "(none configured)"}`]);
    },
  },
  {
    name: "thinking",
    args: "[<level>]",
    summary: `Show or set how hard the model thinks: ${THINKING_LEVEL_HINT}.`,
    async run(host, rest) {
      if (rest !== "") {
        const level = parseThinkingLevel(rest);
        if (level === undefined)
          throw new ArborError("invalid_input", `Unknown thinking level ${rest}: use ${THINKING_LEVEL_HINT}.`);
        host.thinking = level;
      }
      host.print([`thinking: ${host.thinking ?? "(the session's, else the agent's or the provider's default)"}`]);
    },
  },
  {
    name: "agent",
    args: "[<name>]",
    summary: "Show the agents, or use another from the next turn on.",
    async run(host, rest) {
      const { agents, defaultAgent } = host.runtime.defaults();
      if (rest !== "") {
        if (!agents.some((a) => a.name === rest)) {
          throw new ArborError("invalid_input", `No agent ${rest}: the agents are ${agents.map((a) => a.name).join(", ")}.`);
        }
        host.agent = rest;
      }
      const current = host.agent ?? defaultAgent;
      host.print(
        agents.map(
          (a) =>
            `${a.name === current ? "*" : " "} ${a.name}${a.description ? host.style.dim(` — ${oneLine(a.description)}`) : ""}`,
        ),
      );
    },
  },
  {
    name: "sessions",
    args: "",
    summary: "List the latest sessions; /resume <id> opens one.",
    async run(host) {
      const page = await host.store.listSessions({ limit: 15, parentSessionId: null });
      host.print(renderSessionList(page, { command: "arbor sessions list" }));
    },
  },
  {
    name: "resume",
    args: "<session>",
    summary: "Go on in another session (an id or a prefix, as /sessions lists them).",
    async run(host, rest) {
      if (rest === "") throw new ArborError("invalid_input", "Say which session: /resume <id> (see /sessions).");
      const id = await resolveSessionId(host.store, rest);
      host.sessionId = id;
      await recap(host, id);
    },
  },
  {
    name: "new",
    args: "",
    summary: "Start a new session with the next prompt.",
    async run(host) {
      host.sessionId = undefined;
      host.print(["The next prompt starts a new session."]);
    },
  },
  {
    name: "help",
    args: "",
    summary: "This list, and the keys.",
    async run(host) {
      host.print(helpLines(host.style, host.columns));
    },
  },
  {
    name: "quit",
    args: "",
    summary: "Leave the chat (Ctrl-D or Ctrl-C twice do too).",
    async run(host) {
      host.quit();
    },
  },
];

/** The commands and keys, two columns where the terminal is wide enough, else each summary under its command. */
export function helpLines(style: Style, columns: number): string[] {
  const rows: Array<readonly [string, string]> = [
    ...SLASH_COMMANDS.map((c) => [`/${c.name}${c.args ? ` ${c.args}` : ""}`, c.summary] as const),
  ];
  const keys: Array<readonly [string, string]> = [
    ["Enter", "send (while the agent works: queue it for after the turn)"],
    ["Esc", "while the agent works: steer it with what you typed (it reads it before its next model call)"],
    ["\\ Enter, Alt-Enter", "a new line"],
    ["↑ ↓", "earlier prompts"],
    ["Tab", "complete an @file path"],
    ["Ctrl-C", "stop the turn (keeping what it did); twice: quit"],
    ["Ctrl-D", "quit (on an empty prompt)"],
  ];
  const width = Math.max(...[...rows, ...keys].map(([name]) => name.length));
  const line = ([name, summary]: readonly [string, string]) =>
    2 + width + 2 + summary.length <= columns
      ? `  ${name.padEnd(width)}  ${style.dim(summary)}`
      : `  ${name}\n      ${style.dim(summary)}`;
  return [style.bold("Commands"), ...rows.map(line), style.bold("Keys"), ...keys.map(line)];
}

/** Runs one `/command args` line; an unknown command says which there are. */
export async function runSlash(host: SlashHost, line: string): Promise<void> {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(line.trim());
  const name = match?.[1] ?? "";
  const rest = (match?.[2] ?? "").trim();
  const command = SLASH_COMMANDS.find((c) => c.name === name) ?? (name === "exit" ? SLASH_COMMANDS.at(-1) : undefined);
  if (!command) {
    throw new ArborError("invalid_input", `Unknown command /${name}: try ${SLASH_COMMANDS.map((c) => `/${c.name}`).join(", ")}.`);
  }
  await command.run(host, rest);
}
