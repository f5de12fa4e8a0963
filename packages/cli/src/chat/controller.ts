import type { RunEvent, Runtime, Store, ThinkingLevel } from "@arbor/core";
import type { Io } from "../io.js";
import type { Ask, AskAnswerer, AskReply, RunEnd, RunView } from "../render/live.js";
import { retryLine } from "../render/retry.js";
import { streamSafe, toolSubject } from "../render/run-format.js";
import type { Style } from "../render/style.js";
import { oneLine, truncate } from "../render/text.js";
import { driveRun, type RunHandleLike } from "../run/drive.js";
import { mcpPromptInput } from "../run/mcp-input.js";
import { endLines, toolEndLine } from "./lines.js";
import { type MarkdownStyle, renderMarkdown } from "./markdown.js";
import { recap, runSlash, type SlashHost } from "./slash.js";

/** One finished piece of the transcript, rendered (it may span lines and hold styling). */
export interface Item {
  readonly id: number;
  readonly text: string;
}

/** A tool call in progress, with its latest progress note. */
export interface LiveTool {
  readonly callId: string;
  readonly tool: string;
  readonly subject: string;
  readonly note: string;
}

/** A question of the run waiting for the person: answered with one of `keys`, or (no keys) a line of text. */
export interface Question {
  readonly text: string;
  readonly keys: readonly string[];
}

/** What the chat screen shows; replaced (never changed in place) on every update. */
export interface ChatState {
  readonly items: readonly Item[];
  readonly sessionId: string | undefined;
  readonly busy: boolean;
  /** The answer streaming in, as Markdown. */
  readonly streaming: string;
  readonly tools: readonly LiveTool[];
  readonly question: Question | undefined;
  /** Prompts sent while a turn runs, sent in order after it. */
  readonly queued: readonly string[];
  /** A one-line note under the input (how to quit, what Esc did). */
  readonly hint: string | undefined;
  readonly status: string;
  readonly quit: boolean;
}

export interface ChatOptions {
  io: Io;
  store: Store;
  storeLabel: string;
  style: Style;
  markdown: MarkdownStyle;
  columns: number;
  sessionId?: string | undefined;
  model?: string | undefined;
  agent?: string | undefined;
  thinking?: ThinkingLevel | undefined;
  /** The MCP servers `@server:uri` may attach from (and `/mcp:<server>:<prompt>` may use). */
  mcpServers?: readonly string[];
}

/**
 * The chat's state and everything it does, apart from drawing: turns driven through the runtime as
 * `arbor run` drives them (`driveRun` into a `RunView`), questions answered by a key, slash commands,
 * Ctrl-C and steering. The Ink screen subscribes to it and sends it the keys.
 */
export class ChatController implements SlashHost {
  readonly store: Store;
  readonly style: Style;
  readonly columns: number;
  model: string | undefined;
  agent: string | undefined;
  thinking: ThinkingLevel | undefined;
  /** Set by `attach` before any turn. */
  runtime!: Runtime;
  private state: ChatState;
  private readonly listeners = new Set<() => void>();
  private nextId = 0;
  private handle: RunHandleLike | undefined;
  private aborting = false;
  private answer: ((text: string | undefined) => void) | undefined;
  private reasoning = "";

  constructor(private readonly opts: ChatOptions) {
    this.store = opts.store;
    this.style = opts.style;
    this.columns = opts.columns;
    this.model = opts.model;
    this.agent = opts.agent;
    this.thinking = opts.thinking;
    this.state = {
      items: [],
      sessionId: opts.sessionId,
      busy: false,
      streaming: "",
      tools: [],
      question: undefined,
      queued: [],
      hint: undefined,
      status: "",
      quit: false,
    };
  }

  attach(runtime: Runtime): void {
    this.runtime = runtime;
    this.update({ status: this.statusLine() });
  }

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): ChatState => this.state;

  private update(patch: Partial<ChatState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of [...this.listeners]) l();
  }

  get sessionId(): string | undefined {
    return this.state.sessionId;
  }

  set sessionId(id: string | undefined) {
    this.update({ sessionId: id });
  }

  print(lines: readonly string[]): void {
    if (lines.length === 0) return;
    this.update({ items: [...this.state.items, { id: this.nextId++, text: lines.join("\n") }] });
  }

  quit(): void {
    this.handle?.abort(new Error("the chat was closed"));
    this.update({ quit: true });
  }

  /** The session (when resumed) and how to get help, at the top of the screen. */
  async greet(): Promise<void> {
    this.print([`${this.style.bold("arbor chat")} ${this.style.dim("— /help for commands and keys, Ctrl-C twice to quit")}`]);
    if (this.sessionId !== undefined) await recap(this, this.sessionId);
  }

  private statusLine(): string {
    const parts = [
      this.sessionId === undefined ? "new session" : `session ${this.sessionId}`,
      this.model ?? this.runtime?.defaults().model ?? "no model",
      this.agent ?? this.runtime?.defaults().defaultAgent ?? "build",
      ...(this.thinking === undefined ? [] : [`thinking ${this.thinking}`]),
    ];
    return parts.join(" · ");
  }

  /** Enter on the input: a slash command, an answer to a question, a prompt (queued while a turn runs). */
  async submit(text: string): Promise<void> {
    if (this.state.question !== undefined && this.state.question.keys.length === 0) {
      this.answer?.(text);
      return;
    }
    if (text.trim() === "") return;
    this.update({ hint: undefined });
    // `/mcp:<server>:<prompt> …` is a prompt (the server's), not a chat command.
    if (text.trim().startsWith("/") && !text.trim().startsWith("/mcp:")) {
      this.print([this.style.dim(`› ${text.trim()}`)]);
      try {
        await runSlash(this, text);
      } catch (err) {
        this.print([this.style.red(`error: ${err instanceof Error ? err.message : String(err)}`)]);
      }
      this.update({ status: this.statusLine() });
      return;
    }
    if (this.state.busy) {
      this.update({
        queued: [...this.state.queued, text],
        hint: "queued: it is sent when this turn ends (Esc steers the turn instead)",
      });
      return;
    }
    await this.turn(text);
  }

  /** Esc with text while a turn runs: a message the running agent reads before its next model call. */
  async steer(text: string): Promise<boolean> {
    const handle = this.handle;
    if (handle === undefined || text.trim() === "") {
      if (handle !== undefined) this.update({ hint: "type a message, then Esc to steer the running turn with it" });
      return false;
    }
    try {
      await this.runtime.sessions.steer(handle.sessionId, text);
      this.print([`${this.style.yellow("↪")} ${this.style.dim("steer:")} ${oneLine(text)}`]);
      return true;
    } catch (err) {
      this.update({ hint: `could not steer: ${err instanceof Error ? err.message : String(err)}` });
      return false;
    }
  }

  /** A key while a question waits; keys the question does not offer are ignored. */
  answerKey(key: string): void {
    const q = this.state.question;
    if (q === undefined || !q.keys.includes(key.toLowerCase())) return;
    this.answer?.(key.toLowerCase());
  }

  /** Ctrl-C: stops the running turn (it keeps what it did); pressed again, or with nothing running, twice: quit. */
  interrupt(): void {
    if (this.handle !== undefined) {
      if (this.aborting) {
        this.quit();
        return;
      }
      this.aborting = true;
      this.update({ hint: "stopping the turn and keeping what it did (Ctrl-C again quits)" });
      this.handle.abort(new Error("interrupted by the user (Ctrl-C)"));
      return;
    }
    if (this.state.hint === CONFIRM_QUIT) this.quit();
    else this.update({ hint: CONFIRM_QUIT });
  }

  clearHint(): void {
    if (this.state.hint !== undefined) this.update({ hint: undefined });
  }

  /** `io.prompt` for the runtime's asks: the question waits on the screen for a key (or a line). */
  readonly ask = (question: string, signal?: AbortSignal): Promise<string | undefined> =>
    new Promise((resolve) => {
      const keys = [...question.matchAll(/\[([a-z])\]/g)].map((m) => m[1] as string);
      const text = question.trim();
      const done = (answer: string | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        this.answer = undefined;
        this.update({ question: undefined });
        if (answer !== undefined) this.print([`${this.style.yellow(text)} ${this.style.bold(answer || "—")}`]);
        resolve(answer);
      };
      const onAbort = () => done(undefined);
      if (signal?.aborted) return done(undefined);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.answer = done;
      this.update({ question: { text, keys } });
    });

  private async turn(prompt: string): Promise<void> {
    this.print([`${this.style.bold("›")} ${prompt.split("\n").join("\n  ")}`]);
    this.aborting = false;
    this.reasoning = "";
    const handle = this.runtime.runs.run({
      ...(await mcpPromptInput(prompt, this.opts.mcpServers ?? [])),
      ...(this.sessionId !== undefined ? { sessionId: this.sessionId } : {}),
      ...(this.model !== undefined ? { model: this.model } : {}),
      ...(this.agent !== undefined ? { agent: this.agent } : {}),
      ...(this.thinking !== undefined ? { thinking: this.thinking } : {}),
    });
    this.handle = handle;
    this.update({ busy: true, hint: undefined });
    const driven = await driveRun({ io: { ...this.opts.io, onInterrupt: undefined }, handle, view: this.runView });
    this.handle = undefined;
    const { outcome } = driven;
    if (outcome.sessionId !== "" && (await this.store.getSession(outcome.sessionId).catch(() => undefined)) !== undefined) {
      this.update({ sessionId: outcome.sessionId });
    }
    this.runView.end({ outcome, elapsedMs: driven.elapsedMs });
    this.update({ busy: false, hint: undefined, status: this.statusLine() });
    const [next, ...rest] = this.state.queued;
    if (next !== undefined && !this.state.quit) {
      this.update({ queued: rest });
      await this.turn(next);
    }
  }

  /**
   * Finished paragraphs of a long answer move into the transcript as they complete: the live area
   * stays short, and Ink can redraw it without scrolling (a live area taller than the screen cannot).
   */
  private flushParagraphs(): void {
    const text = this.state.streaming;
    const cut = text.lastIndexOf("\n\n");
    if (cut <= 0) return;
    const done = text.slice(0, cut);
    // Not inside a code block: its fences come in pairs.
    if ((done.match(/^\s*(```|~~~)/gm)?.length ?? 0) % 2 !== 0) return;
    // The blank line between the paragraphs stays.
    this.print([renderMarkdown(done, this.opts.markdown, this.columns), ""]);
    this.update({ streaming: text.slice(cut + 2) });
  }

  private flushText(): void {
    if (this.reasoning.trim() !== "") {
      this.print([this.style.dim(`thinking: ${truncate(oneLine(this.reasoning), this.columns * 2)}`)]);
    }
    this.reasoning = "";
    const text = this.state.streaming.replace(/\s+$/, "");
    if (text !== "") this.print([renderMarkdown(text, this.opts.markdown, this.columns)]);
    if (this.state.streaming !== "") this.update({ streaming: "" });
  }

  /** The run's events, asks and end as the chat shows them (the same view contract `arbor run` renders to). */
  readonly runView: RunView = {
    event: (event: RunEvent) => this.onEvent(event),
    answered: (ask: Ask, reply: AskReply, by: AskAnswerer) => {
      // The person's own answers are printed with their question.
      if (by === "user") return;
      this.flushText();
      this.print([
        this.style.dim(
          `? ${ask.permission} ${ask.patterns.join(", ")} → ${by === "yes" ? `allowed ${reply} (--yes)` : "denied"}`,
        ),
      ]);
    },
    breakLine: () => this.flushText(),
    retrying: (notice) => this.print([this.style.yellow(retryLine(notice))]),
    end: ({ outcome, elapsedMs }: RunEnd) => {
      this.flushText();
      this.update({ tools: [] });
      this.print(endLines(this.style, outcome, elapsedMs, this.opts.storeLabel));
    },
  };

  private onEvent(event: RunEvent): void {
    switch (event.type) {
      case "token":
        if (this.reasoning !== "") this.flushText();
        this.update({ streaming: this.state.streaming + streamSafe(event.content) });
        this.flushParagraphs();
        break;
      case "reasoning":
        this.reasoning += streamSafe(event.content);
        break;
      case "tool_start":
        this.flushText();
        this.update({
          tools: [
            ...this.state.tools,
            { callId: event.call_id, tool: event.tool, subject: toolSubject(event.tool, event.input, this.columns), note: "" },
          ],
        });
        break;
      case "tool_progress": {
        const output = event.metadata?.output;
        const note = (typeof output === "string" ? output.trimEnd().split("\n").at(-1) : undefined) || event.title || "";
        this.update({
          tools: this.state.tools.map((t) => (t.callId === event.call_id ? { ...t, note: oneLine(streamSafe(note)) } : t)),
        });
        break;
      }
      case "tool_end": {
        const call = this.state.tools.find((t) => t.callId === event.call_id);
        this.update({ tools: this.state.tools.filter((t) => t.callId !== event.call_id) });
        this.print([toolEndLine(this.style, event, call?.subject ?? "", this.columns)]);
        break;
      }
      case "plan_created":
        this.flushText();
        this.print([
          this.style.bold(`Plan: ${oneLine(event.plan.title)}`),
          ...event.plan.steps.map((s) => `  ${s.id}. ${oneLine(s.title)} ${this.style.dim(`[${s.status}]`)}`),
        ]);
        break;
      case "plan_updated":
        this.flushText();
        this.print([this.style.dim(`plan step ${event.step_id}: ${event.status}`)]);
        break;
      case "plan_revised":
        this.flushText();
        this.print([this.style.dim(`plan revised: ${oneLine(event.reason)}`)]);
        break;
      default:
        break;
    }
  }
}

const CONFIRM_QUIT = "press Ctrl-C again to quit (or Ctrl-D)";
