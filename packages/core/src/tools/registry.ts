import { z } from "zod";
import { ArborError, type ArborErrorCode, isArborError } from "../errors.js";
import type { BlobStore } from "./blob-store.js";
import { capOutput, countLines, DEFAULT_OUTPUT_LIMITS, type OutputLimits } from "./output-cap.js";
import type { AnyToolDefinition, ToolContext, ToolOffer, ToolOutcome } from "./tool.js";

/** What a model is told about a tool: its name, description and the JSON Schema of its input. */
export interface ToolInfo {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolCallInfo {
  tool: string;
  sessionId: string;
  callId: string;
  agent: string;
  /** The workspace root the call runs in. */
  cwd: string;
}

/**
 * Hooks around every tool call, for policies the tools need not know. `before` sees the validated input and may
 * return a replacement (validated again) or throw to block the call (the model sees the message);
 * `after` sees every outcome, errors included, and may return a replacement.
 */
export interface ToolHooks {
  before?(call: ToolCallInfo, input: unknown): Promise<{ input: unknown } | undefined> | { input: unknown } | undefined;
  after?(call: ToolCallInfo, input: unknown, outcome: ToolOutcome): Promise<ToolOutcome | undefined> | ToolOutcome | undefined;
}

export interface ToolRegistryOptions {
  /** Where cut outputs are kept in full. Without it outputs are never cut (a test or an embedder's choice). */
  blobs?: BlobStore;
  limits?: OutputLimits;
  hooks?: ToolHooks[];
}

export interface InvokeOptions {
  /** Tool names this agent may call; any other name is answered as unknown, listing these. */
  available?: readonly string[];
}

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * The tools a runtime offers. An instance, not module state, so two runtimes in one process can
 * hold different tool sets. `invoke` is the one way the loop runs a tool: whatever the model sends
 * (an unknown name, text that is not JSON, arguments that fail the schema) and whatever the tool
 * throws comes back as an outcome the model can read, never as an exception.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyToolDefinition>();
  /**
   * JSON Schemas by the zod schema they come from, shared with the registries `withTools` makes: a
   * run's registry is new each run, and converting every tool's schema again was a tenth of a
   * server's CPU per run. Keyed by the zod object (immutable), not the name, so a name reused for
   * another tool cannot get a stale schema.
   */
  private schemas = new WeakMap<object, Record<string, unknown>>();
  private readonly hooks: ToolHooks[];
  private readonly blobs: BlobStore | undefined;
  private readonly limits: OutputLimits;

  constructor(options: ToolRegistryOptions = {}) {
    this.blobs = options.blobs;
    this.limits = options.limits ?? DEFAULT_OUTPUT_LIMITS;
    this.hooks = [...(options.hooks ?? [])];
  }

  register(...tools: AnyToolDefinition[]): this {
    for (const tool of tools) {
      if (!TOOL_NAME.test(tool.name)) {
        throw new ArborError("invalid_input", `Tool name "${tool.name}" must be 1-64 letters, digits, "_" or "-".`, {
          tool: tool.name,
        });
      }
      if (this.tools.has(tool.name)) {
        throw new ArborError("invalid_input", `A tool named "${tool.name}" is already registered; unregister it first.`, {
          tool: tool.name,
        });
      }
      this.tools.set(tool.name, tool);
    }
    return this;
  }

  unregister(name: string): boolean {
    return this.tools.delete(name);
  }

  get(name: string): AnyToolDefinition | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /**
   * This registry with `tools` added, for one run (the tools its extensions offer), sharing its hooks,
   * blob store and limits. A name this registry holds keeps its own tool; itself when nothing is added.
   */
  withTools(tools: readonly AnyToolDefinition[]): ToolRegistry {
    const extra = tools.filter((tool) => !this.tools.has(tool.name));
    if (extra.length === 0) return this;
    const run = new ToolRegistry({ ...(this.blobs ? { blobs: this.blobs } : {}), limits: this.limits, hooks: this.hooks });
    for (const [name, tool] of this.tools) run.tools.set(name, tool);
    run.schemas = this.schemas;
    return run.register(...extra);
  }

  /** Adds a hook; returns a function that removes it. Hooks run in the order they were added. */
  addHook(hook: ToolHooks): () => void {
    this.hooks.push(hook);
    return () => {
      const index = this.hooks.indexOf(hook);
      if (index !== -1) this.hooks.splice(index, 1);
    };
  }

  /** The tools as the model is told of them; with `offer`, each described for that run (see `describe`). */
  list(filter?: (name: string) => boolean, offer?: ToolOffer): ToolInfo[] {
    const out: ToolInfo[] = [];
    for (const tool of this.tools.values()) {
      if (filter && !filter(tool.name)) continue;
      const description = offer && tool.describe ? tool.describe(offer) : tool.description;
      out.push({ name: tool.name, description, inputSchema: this.schemaOf(tool) });
    }
    return out;
  }

  private schemaOf(tool: AnyToolDefinition): Record<string, unknown> {
    if (tool.inputSchema) return tool.inputSchema;
    let schema = this.schemas.get(tool.input);
    if (!schema) {
      // `io: "input"` so fields with defaults are optional for the model, as the parser treats them.
      schema = z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Record<string, unknown>;
      this.schemas.set(tool.input, schema);
    }
    return schema;
  }

  async invoke(name: string, rawInput: unknown, ctx: ToolContext, options: InvokeOptions = {}): Promise<ToolOutcome> {
    const tool = this.tools.get(name);
    if (!tool || (options.available && !options.available.includes(name))) {
      const names = options.available ?? this.names();
      return failure(
        "unknown_tool",
        `Unknown tool "${name}". Available tools: ${names.length > 0 ? names.join(", ") : "(none)"}. Call one of these by its exact name.`,
      );
    }
    const call: ToolCallInfo = { tool: name, sessionId: ctx.sessionId, callId: ctx.callId, agent: ctx.agent, cwd: ctx.cwd };

    let outcome: ToolOutcome;
    let input: unknown;
    try {
      input = parseInput(tool, rawInput, this.schemaOf(tool));
      // A hook's answer is awaited only when it is a promise: most hooks answer most calls at once,
      // and awaiting a plain value cost a promise and a microtask turn per hook, every call.
      for (const hook of this.hooks) {
        let replaced = hook.before?.(call, input);
        if (replaced !== undefined) replaced = await replaced;
        if (replaced) input = parseInput(tool, replaced.input, this.schemaOf(tool));
      }
      const result = await tool.execute(input, ctx);
      outcome = { ...result, isError: false };
    } catch (err) {
      outcome = errorOutcome(name, err, ctx.abort);
    }
    for (const hook of this.hooks) {
      try {
        let replaced = hook.after?.(call, input, outcome);
        if (replaced !== undefined) replaced = await replaced;
        outcome = replaced ?? outcome;
      } catch (err) {
        outcome = errorOutcome(name, err, ctx.abort);
      }
    }
    return this.cap(outcome);
  }

  /**
   * The cap comes last so no hook can put an uncut flood in front of the model. A tool that already
   * cut its own output (bash keeps the tail and its exit status) says so with `truncated`.
   */
  private cap(outcome: ToolOutcome): ToolOutcome | Promise<ToolOutcome> {
    if (!this.blobs || outcome.truncated) return outcome;
    // Most outputs are within the limits: they are answered at once, with no promise to wait on.
    const { output } = outcome;
    if (Buffer.byteLength(output) <= this.limits.maxBytes && countLines(output) <= this.limits.maxLines) return outcome;
    return this.capStored(outcome, this.blobs);
  }

  private async capStored(outcome: ToolOutcome, blobs: BlobStore): Promise<ToolOutcome> {
    const capped = await capOutput(outcome.output, blobs, this.limits);
    if (capped.fullOutputRef === undefined) return outcome;
    return { ...outcome, output: capped.output, truncated: { fullOutputRef: capped.fullOutputRef } };
  }
}

/** Accepts parsed arguments or the raw JSON text a provider streams; an empty text means `{}`. */
function parseInput(tool: AnyToolDefinition, raw: unknown, schema: Record<string, unknown>): unknown {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") {
      value = {};
    } else {
      try {
        value = JSON.parse(raw);
      } catch (err) {
        throw new ArborError(
          "invalid_tool_input",
          `The arguments for tool "${tool.name}" are not valid JSON (${(err as Error).message}). Send one JSON object: ${expectedShape(schema)}.`,
        );
      }
    }
  }
  const parsed = tool.input.safeParse(value);
  if (!parsed.success) {
    throw new ArborError("invalid_tool_input", describeIssues(tool.name, parsed.error, schema), {
      issues: parsed.error.issues.map((issue) => ({ path: issue.path.map(String), message: issue.message })),
    });
  }
  return parsed.data;
}

/** One line per issue, each naming the field, so the model can fix exactly what was wrong. */
function describeIssues(toolName: string, error: z.ZodError, schema: Record<string, unknown>): string {
  const lines = error.issues.map((issue) => {
    const field = issue.path.length > 0 ? issue.path.map(String).join(".") : "(arguments)";
    if (issue.code === "unrecognized_keys")
      return `- ${issue.keys.map((k) => `"${k}"`).join(", ")}: not a parameter of this tool`;
    return `- ${field}: ${issue.message}`;
  });
  return `Invalid arguments for tool "${toolName}":\n${lines.join("\n")}\nExpected ${expectedShape(schema)}. Fix these and call the tool again.`;
}

/** The shape of a JSON schema's value in a line, e.g. `array of string`. */
function typeOf(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "any";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (Array.isArray(s.anyOf)) return s.anyOf.map(typeOf).join(" | ");
  if (s.type === "array") return `array of ${typeOf(s.items)}`;
  return typeof s.type === "string" ? s.type : "any";
}

/** A tool's parameters as the model should send them: `an object with add (string, optional), …`. */
function expectedShape(schema: Record<string, unknown>): string {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const fields = Object.entries(properties).map(
    ([name, field]) => `${name} (${typeOf(field)}${required.has(name) ? "" : ", optional"})`,
  );
  return fields.length > 0 ? `an object with ${fields.join(", ")}` : "an empty object {}";
}

function errorOutcome(toolName: string, err: unknown, signal: AbortSignal): ToolOutcome {
  if (isArborError(err)) return failure(err.code, err.message);
  if (signal.aborted) return failure("aborted", "[Tool execution was interrupted]");
  const message = err instanceof Error ? err.message : String(err);
  return failure("tool_failed", `Tool "${toolName}" failed: ${message}`);
}

function failure(code: ArborErrorCode, output: string): ToolOutcome {
  return { isError: true, code, output };
}
