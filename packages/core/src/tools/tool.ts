import type { z } from "zod";
import type { ArborErrorCode } from "../errors.js";
import type { Message } from "../model/message.js";
import type { PermissionRequest } from "../permissions/ask.js";
import type { RunValues } from "./run-values.js";
import type { ToolProgress } from "./tool-progress.js";
import type { Workspace } from "./workspace.js";

export type { PermissionRequest, ToolProgress };

/**
 * Everything a tool may know about the call it serves. The loop builds one per call; tools never
 * reach for globals, so two sessions (or two runtimes) in one process never see each other's state.
 */
export interface ToolContext {
  sessionId: string;
  messageId: string;
  callId: string;
  /** Name of the agent making the call (`build`, `plan`, …). */
  agent: string;
  /** The workspace root: relative paths resolve here, anything outside is an `external_directory` ask. */
  cwd: string;
  /** Aborted when the run is cancelled; long tools stop and report `aborted`. */
  abort: AbortSignal;
  /**
   * The run's conversation as the model saw it when it made this call (the assistant message with
   * the call last), read-only; a tool called outside a run may be given none.
   */
  messages?: readonly Message[];
  /**
   * What the run's caller passed as `RunInput.extra`, the same object for every call of the run
   * (a front door's request metadata, an embedder's handles); absent when the run was given none.
   */
  extra?: Readonly<Record<string, unknown>>;
  metadata(update: ToolProgress): void;
  /**
   * The run's feature state, for the tools that act on the run itself (the goal tree, the sub-traces,
   * the plan, the todo list), each read by the key its feature declares; absent outside a run.
   */
  run?: RunValues;
  /**
   * Resolves when the request is allowed (by a rule or by the user); rejects with an `ArborError`
   * whose code is `permission_rejected` (the user said no) or `permission_denied` (a rule said no).
   */
  ask(request: PermissionRequest): Promise<void>;
  /**
   * Present when the tool's `effects` is not `none`: a key unique to this call and the same on every
   * run of it (a resumed run re-running an `idempotent-by-key` call passes the key it first had), for
   * the tool to pass on to whatever it changes so a repeat is recognised (`bash` exports it as
   * `ARBOR_IDEMPOTENCY_KEY`, an MCP call carries it in `_meta`).
   */
  idempotencyKey?: string;
  /**
   * Present when the tool's `effects` is not `none`: what the call keeps in the journal about work it
   * handed to something that outlives this process (an MCP server's task id), and what it kept there
   * on an earlier run of the same call (a `resumable` tool's call taken up after a crash or restart).
   */
  checkpoint?: ToolCheckpoint;
  /**
   * Where files are read and written and commands run when not on this process's disk and shell
   * (`RunInput.workspace`: an editor's buffers and terminals); absent, the tools work locally.
   */
  workspace?: Workspace;
}

/**
 * What running a call twice would do, which decides what a resumed run does with a call a crash left
 * without a result. `none`: the tool changes nothing (reading, searching), so the call simply runs
 * again, and nothing is recorded before it starts. `at-most-once` (the default): before the call
 * starts, the run records it as started; a call recorded started and not finished is never run again
 * (the model is told its effect may or may not have happened), while a call that had not started runs
 * now. `idempotent-by-key`: recorded started with its key like `at-most-once`, and run again on resume
 * with the same key, which the tool uses to make the repeat harmless (or its effect is the same
 * however often it runs, as `write`'s full content is).
 */
export type ToolEffects = "none" | "at-most-once" | "idempotent-by-key";

/** A call's record in the journal of the work it handed off (see `ToolContext.checkpoint`). */
export interface ToolCheckpoint {
  /** What an earlier run of this call saved last; undefined on its first run. */
  readonly saved: Readonly<Record<string, unknown>> | undefined;
  /** Writes `data` to the journal; resolves once it is stored. */
  save(data: Record<string, unknown>): Promise<void>;
}

/** A tool that does not say what running twice would do is taken to do its work twice. */
export function toolEffects(tool: { effects?: ToolEffects } | undefined): ToolEffects {
  return tool?.effects ?? "at-most-once";
}

/** What a tool returns. `output` is exactly what the model sees. */
export interface ToolResult<Meta extends Record<string, unknown> = Record<string, unknown>> {
  output: string;
  /** A short label for humans (the file read, the command run). */
  title?: string;
  metadata?: Meta;
  /** Set when the output was cut: the full text is in the blob store under this ref. */
  truncated?: { fullOutputRef: string };
  /** True when the result was answered from a cache instead of running the tool again. */
  cached?: boolean;
  /**
   * Every workspace file the call created, changed or removed (absolute paths), when the tool knows
   * them all because it wrote them itself: the step's snapshot then looks at only these instead of
   * the whole workspace. Leave it out whenever the call may have changed anything else (a command
   * ran, a host wrote for it): a result without it makes the snapshot look at everything.
   */
  changedFiles?: readonly string[];
  /**
   * Images and files for the model to see with `output` (a screenshot, a chart, a PDF), each at most
   * `MAX_ATTACHMENT_BYTES`; a larger one is left out and the model reads why. Sent as real file parts
   * to providers that take them in tool results; ignored on an error result.
   */
  attachments?: ToolAttachment[];
}

/** One image or file a tool result carries: base64 `data` of `mediaType` (`image/png`, `application/pdf`, …). */
export interface ToolAttachment {
  mediaType: string;
  data: string;
  filename?: string;
}

/** What one attachment may weigh once decoded; a result's attachments are stored with the session. */
export const MAX_ATTACHMENT_BYTES = 5 * 1024 * 1024;

/**
 * The outcome of `ToolRegistry.invoke`: a success or an error the model sees as the tool's result.
 * Errors carry the `ArborError` code so the loop can tell a rejection or an abort from a failure.
 */
export type ToolOutcome = (ToolResult & { isError: false }) | (ToolResult & { isError: true; code: ArborErrorCode });

/**
 * What a run offers a tool's description to adapt to: the runtime's agents (its built-in ones and
 * those configured), for a tool that names the ones it can start.
 */
export interface ToolOffer {
  agents: ReadonlyArray<{ name: string; description: string; mode: "primary" | "subagent" | "all"; hidden?: boolean }>;
}

/**
 * A tool: a name the model calls, a description it reads, a zod schema its arguments must pass,
 * and `execute`, which receives the parsed arguments. `Output` is the shape of the result's metadata.
 *
 * `execute` is declared as a method on purpose: method parameters are checked bivariantly, so a
 * `ToolDefinition<{ path: string }>` can sit in a registry of `ToolDefinition<unknown>`.
 */
export interface ToolDefinition<Input = unknown, Output extends Record<string, unknown> = Record<string, unknown>> {
  name: string;
  description: string;
  input: z.ZodType<Input>;
  /**
   * The JSON Schema the model is shown, when the tool brings its own (an MCP server's tool) instead
   * of the one derived from `input`.
   */
  inputSchema?: Record<string, unknown>;
  /** What running a call twice would do (see `ToolEffects`); `at-most-once` when left out. */
  effects?: ToolEffects;
  /**
   * The tool can take up its own call's work after a crash or restart from the checkpoint the call
   * saved (`ToolContext.checkpoint`): a resumed run runs such a call again when it saved one, even an
   * `at-most-once` call recorded started, rather than answering it as interrupted.
   */
  resumable?: boolean;
  /**
   * The description a run shows the model, when it depends on what the runtime has (`delegate`
   * lists the sub-agents it can start); `description` wherever there is no run to ask about.
   */
  describe?(offer: ToolOffer): string;
  execute(input: Input, ctx: ToolContext): Promise<ToolResult<Output>>;
}

export type AnyToolDefinition = ToolDefinition<unknown>;

/** Infers `Input` from the schema so tool files need no type annotations on `execute`. */
export function defineTool<S extends z.ZodType, Output extends Record<string, unknown> = Record<string, unknown>>(tool: {
  name: string;
  description: string;
  input: S;
  effects?: ToolEffects;
  describe?(offer: ToolOffer): string;
  // NoInfer: metadata shapes differ between a tool's return paths; give Output explicitly to pin one.
  execute(input: z.output<S>, ctx: ToolContext): Promise<ToolResult<NoInfer<Output>>>;
}): ToolDefinition<z.output<S>, Output> {
  return tool as ToolDefinition<z.output<S>, Output>;
}
