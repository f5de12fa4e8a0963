import { z } from "zod";
import { JwtAuthSchema } from "../auth/jwt-config.js";
import { ThinkingLevelSchema } from "../model/entry.js";
import { ModelInfoSchema } from "../model/model-info.js";
import { PermissionConfigSchema } from "../permissions/permission.js";
import { AgentSandboxSchema, SandboxSettingsSchema } from "../sandbox/settings.js";
import { SecurityRuleSchema } from "./security-rule.js";

/** Scenarios the model pool maps to models: side jobs that a cheaper model can do; other names are allowed for plugins. */
export const MODEL_SCENARIOS = ["llm", "compaction", "title", "summary", "replanner", "memory"] as const;

export const PoolEntrySchema = z.strictObject({
  model: z.string().min(1),
  baseURL: z.url().optional(),
  /** Name of the environment variable holding the key, e.g. OPENROUTER_API_KEY. */
  apiKeyEnv: z
    .string()
    .regex(/^[A-Z_][A-Z0-9_]*$/, "expected an environment variable name")
    .optional(),
});

/** Server names become part of tool names, so they keep to the characters tool names allow. */
export const McpServerNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9-]{1,20}$/, 'a server name is 1-20 letters, digits or "-" (it becomes part of tool names)');

/**
 * One MCP server: `command` (stdio, a child process) or `url` (Streamable HTTP), never both. One
 * object with a check rather than a union, so a mistake is reported at its own key.
 */
export const McpServerSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.string()).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    /**
     * OAuth for a `url` server that asks for it (`arbor mcp login <server>`): a client the
     * authorization server knows already (`clientId`, `clientSecret`), the URL of Arbor's Client ID
     * Metadata Document where the server accepts one, and the scope to ask for when the server names none.
     * With `grant: "client_credentials"` no person logs in: Arbor is the client, authenticated by
     * `clientSecret` or by a JWT signed with the key in `privateKeyFile` (`signingAlgorithm`, RS256 by
     * default), and its credentials go only to the authorization server `issuer` when given.
     */
    oauth: z
      .strictObject({
        grant: z.enum(["authorization_code", "client_credentials"]).optional(),
        clientId: z.string().min(1).optional(),
        clientSecret: z.string().min(1).optional(),
        privateKeyFile: z.string().min(1).optional(),
        signingAlgorithm: z.enum(["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"]).optional(),
        issuer: z.url().optional(),
        clientMetadataUrl: z
          .url({ protocol: /^https$/, error: "must be an https URL of a Client ID Metadata Document" })
          .optional(),
        scope: z.string().min(1).optional(),
      })
      .superRefine((oauth, ctx) => {
        if (oauth.grant !== "client_credentials") {
          for (const key of ["privateKeyFile", "signingAlgorithm", "issuer"] as const) {
            if (oauth[key] !== undefined)
              ctx.addIssue({ code: "custom", path: [key], message: 'only with "grant": "client_credentials"' });
          }
          return;
        }
        if (oauth.clientId === undefined) {
          ctx.addIssue({ code: "custom", path: ["clientId"], message: "the client credentials grant needs the client's id" });
        }
        if ((oauth.clientSecret === undefined) === (oauth.privateKeyFile === undefined)) {
          ctx.addIssue({
            code: "custom",
            message: 'the client credentials grant needs one of "clientSecret" and "privateKeyFile"',
          });
        }
      })
      .optional(),
    /** Milliseconds a start or one call may take (progress reports restart the clock). */
    timeoutMs: z.number().int().positive().default(60_000),
    enabled: z.boolean().default(true),
  })
  .superRefine((server, ctx) => {
    if ((server.command === undefined) === (server.url === undefined)) {
      ctx.addIssue({ code: "custom", message: 'give either "command" (stdio) or "url" (Streamable HTTP)' });
    }
    if (server.url !== undefined) {
      for (const key of ["args", "env", "cwd"] as const) {
        if (server[key] !== undefined) ctx.addIssue({ code: "custom", path: [key], message: 'only for a "command" server' });
      }
    }
    for (const key of ["headers", "oauth"] as const) {
      if (server.command !== undefined && server[key] !== undefined) {
        ctx.addIssue({ code: "custom", path: [key], message: 'only for a "url" server' });
      }
    }
  });

/** Built-in agents whose permission rules a configured agent may start from. */
export const PERMISSION_PRESETS = ["build", "plan", "general", "explore"] as const;

/** Agent names become part of session metadata and CLI flags, so they keep to a simple alphabet. */
export const AgentNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,39}$/, 'an agent name is a letter then up to 39 letters, digits, "_" or "-"');

/**
 * A remote agent spoken to over A2A: its agent card's URL (or the base URL the card is under, at
 * `/.well-known/agent-card.json`) and the bearer token it wants, named by its environment variable
 * so no secret is written into arbor.json.
 */
export const A2AAgentSchema = z.strictObject({
  url: z.url({
    protocol: /^https?$/,
    error: "must be the http(s) URL of an A2A agent: its base URL or its agent card (…/.well-known/agent-card.json)",
  }),
  token: z
    .string()
    .regex(/^env:[A-Z_][A-Z0-9_]*$/, 'give the bearer token as "env:VARIABLE", the environment variable holding it')
    .optional(),
});

/** The keys that shape how Arbor runs an agent itself; a remote agent runs on its own server, so it takes none of them. */
const LOCAL_ONLY = ["prompt", "promptFile", "model", "thinking", "tools", "preset", "maxTurns", "permission", "sandbox"] as const;

/**
 * One custom agent in arbor.json. `promptFile` is read relative to the file that names it when the
 * config is loaded, so what reaches the runtime always carries the prompt text. With `a2a` the agent
 * is remote: `delegate` hands it tasks over A2A, and it runs only as a sub-agent.
 */
export const AgentConfigSchema = z
  .strictObject({
    /** Required of a local agent; a remote one without it is described by its URL. */
    description: z.string().min(1).optional(),
    /** Replaces the default system prompt's opening. */
    prompt: z.string().min(1).optional(),
    promptFile: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    thinking: ThinkingLevelSchema.optional(),
    /** Only these tools (exact names); absent means every tool the preset and rules allow. */
    tools: z.array(z.string().min(1)).min(1).optional(),
    /** The built-in agent whose permission rules this one starts from. */
    preset: z.enum(PERMISSION_PRESETS).optional(),
    /** primary when absent (subagent for a remote agent, the only mode it may have). */
    mode: z.enum(["primary", "subagent", "all"]).optional(),
    maxTurns: z.number().int().positive().optional(),
    /** Rules for this agent only; they win over the global `permission`. */
    permission: PermissionConfigSchema.optional(),
    /** This agent's sandbox: its mode and protection win, its lists add to the global `sandbox`. */
    sandbox: AgentSandboxSchema.optional(),
    /** A remote agent over A2A instead of one Arbor runs. */
    a2a: A2AAgentSchema.optional(),
  })
  .superRefine((agent, ctx) => {
    if (agent.a2a !== undefined) {
      for (const key of LOCAL_ONLY) {
        if (agent[key] !== undefined) {
          ctx.addIssue({ code: "custom", path: [key], message: 'only for a local agent: an "a2a" agent runs on its own server' });
        }
      }
      if (agent.mode !== undefined && agent.mode !== "subagent") {
        ctx.addIssue({
          code: "custom",
          path: ["mode"],
          message: 'an "a2a" agent runs only as a sub-agent (delegate): leave "mode" out or set "subagent"',
        });
      }
      return;
    }
    if (agent.description === undefined) {
      ctx.addIssue({ code: "custom", path: ["description"], message: "required: say what the agent is for" });
    }
    if (agent.prompt !== undefined && agent.promptFile !== undefined) {
      ctx.addIssue({ code: "custom", path: ["promptFile"], message: 'give "prompt" or "promptFile", not both' });
    }
  })
  // The defaults, set once what was written is checked: a remote agent is a sub-agent and has no preset.
  .transform((agent) => ({
    ...agent,
    mode: agent.mode ?? (agent.a2a ? ("subagent" as const) : ("primary" as const)),
    ...(agent.a2a ? {} : { preset: agent.preset ?? ("build" as const) }),
  }));

/**
 * arbor.json (workspace and $ARBOR_HOME) and ~/.arbor/models.json. Every field is optional or has
 * a default, so one file alone validates and errors name the file and the key. Unknown keys are
 * errors: a misspelt setting must not be silently ignored.
 */
export const ConfigSchema = z.strictObject({
  model: z.string().min(1).optional(),
  /** How hard models think unless the agent or the run says (the provider's default when absent). */
  thinking: ThinkingLevelSchema.optional(),
  baseURL: z.url().optional(),
  store: z.string().min(1).optional(),
  llm: z
    .strictObject({
      temperature: z.number().min(0).max(2).default(0.7),
      maxTokens: z.number().int().positive().default(4096),
      /** Milliseconds a streamed response may stay silent before it is ended and retried. */
      streamIdleTimeoutMs: z.number().int().positive().default(60_000),
    })
    .prefault({}),
  agent: z
    .strictObject({
      recursionLimit: z.number().int().positive().default(100),
      /** Tool calls run per step; the model's calls past it get an error result instead. */
      maxToolCallsPerStep: z.number().int().positive().default(64),
      /** Tool calls of one step running at the same time. */
      toolConcurrency: z.number().int().positive().default(8),
      /** Bytes of one tool call's arguments; larger calls get an error result instead. */
      maxToolInputBytes: z
        .number()
        .int()
        .positive()
        .default(1024 * 1024),
      /** How deep sub-agents may nest: a sub-agent at this depth may not start another. */
      maxSubAgentDepth: z.number().int().min(0).max(8).default(2),
      /** Input plus output tokens one run and all its sub-agents may spend together; unset: no cap. */
      maxTraceTokens: z.number().int().positive().optional(),
      /** Dollars one run and all its sub-agents may spend together (priced models only); unset: no cap. */
      maxTraceCost: z.number().positive().optional(),
    })
    .prefault({}),
  cache: z
    .strictObject({
      enabled: z.boolean().default(false),
      /** Seconds. */
      ttl: z.number().int().positive().default(86_400),
    })
    .prefault({}),
  plan: z
    .strictObject({
      enabled: z.boolean().default(true),
      revisionEnabled: z.boolean().default(true),
      requireApproval: z.boolean().default(false),
      maxSteps: z.number().int().positive().default(8),
    })
    .prefault({}),
  mcp: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Seconds a server's tool list, and a read-only tool's result, is reused. */
      toolCacheTtl: z.number().int().positive().default(3600),
      /** MCP servers by name; their tools appear as `mcp__<name>__<tool>`. */
      servers: z.record(McpServerNameSchema, McpServerSchema).default({}),
    })
    .prefault({}),
  telemetry: z
    .strictObject({
      /** OTLP/HTTP base URL (traces go to `{endpoint}/v1/traces`); absent, no spans are made. */
      endpoint: z
        .url({ protocol: /^https?$/, error: "must be an http(s) URL of an OTLP/HTTP collector, such as http://127.0.0.1:4318" })
        .optional(),
      /** Put prompts and answers on `chat` spans; they may hold secrets, so off unless asked. */
      captureContent: z.boolean().default(false),
    })
    .prefault({}),
  /** Who may call a server over this config: identity providers whose signed tokens (JWTs) act as principals. */
  auth: z.strictObject({ jwt: JwtAuthSchema.optional() }).prefault({}),
  security: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** More rules (`command`, `secret`, `injection`) after the built-in ones. */
      rules: z.array(SecurityRuleSchema).default([]),
      /** Ids of rules (built-in or structural) to turn off. */
      disabledRules: z.array(z.string()).default([]),
      /** Folders outside the workspace a redirection may write to; the system's temp folder when absent. */
      writeRoots: z.array(z.string().min(1)).optional(),
      /** Tools whose output comes from outside and is checked for prompt-injection markers. */
      injectionTools: z.array(z.string()).default(["fetch"]),
    })
    .prefault({}),
  memory: z
    .strictObject({
      /** Tokens of the system prompt MEMORY.md and the recent daily logs may take together (about 4 characters a token). */
      maxPromptTokens: z.number().int().positive().default(4000),
      /** After a run, let the `memory` scenario model pick what to remember into the day's log. */
      autoExtract: z.boolean().default(false),
      /** Days of daily logs (memory/YYYY-MM-DD.md) read into the prompt, today included. */
      dailyLogDays: z.number().int().min(0).max(31).default(2),
    })
    .prefault({}),
  knowledge: z
    .strictObject({
      /** `provider/model` of an embedding model; when set, knowledge-base search ranks by meaning as well as by words. */
      embeddingModel: z
        .string()
        .regex(/^[^/\s]+\/\S+$/, "must be provider/model, e.g. openai/text-embedding-3-small")
        .optional(),
    })
    .prefault({}),
  maxPromptChars: z.number().int().positive().default(20_000),
  models: z.record(z.string(), ModelInfoSchema).default({}),
  pool: z.record(z.string(), PoolEntrySchema).default({}),
  /** The OS sandbox every process a tool starts runs in (bash, python_repl, stdio MCP servers). */
  sandbox: SandboxSettingsSchema.prefault({}),
  /** Custom agents by name; a built-in name replaces that agent. */
  agents: z.record(AgentNameSchema, AgentConfigSchema).default({}),
  /** Permission rules for every agent, after each agent's preset: `{ "bash": { "*": "ask", "git status*": "allow" } }`. */
  permission: PermissionConfigSchema.default({}),
});

export type Config = z.infer<typeof ConfigSchema>;
export type PoolEntry = z.infer<typeof PoolEntrySchema>;
export type AgentConfig = z.infer<typeof AgentConfigSchema>;
export type A2AAgentConfig = z.infer<typeof A2AAgentSchema>;
export type McpServerConfig = z.infer<typeof McpServerSchema>;

type Kind = "number" | "int" | "bool" | "string" | "thinking";

/** The environment variables Arbor reads (those deployments already set, and Arbor's own) and where each lands in the config. */
export const ENV_KEYS: ReadonlyArray<readonly [env: string, path: readonly string[], kind: Kind]> = [
  ["ARBOR_MODEL", ["model"], "string"],
  ["ARBOR_THINKING", ["thinking"], "thinking"],
  ["ARBOR_BASE_URL", ["baseURL"], "string"],
  ["ARBOR_STORE", ["store"], "string"],
  ["LLM_TEMPERATURE", ["llm", "temperature"], "number"],
  ["LLM_MAX_TOKENS", ["llm", "maxTokens"], "int"],
  ["AGENT_RECURSION_LIMIT", ["agent", "recursionLimit"], "int"],
  ["ARBOR_MAX_SUBAGENT_DEPTH", ["agent", "maxSubAgentDepth"], "int"],
  ["ARBOR_MAX_TRACE_TOKENS", ["agent", "maxTraceTokens"], "int"],
  ["ARBOR_MAX_TRACE_COST", ["agent", "maxTraceCost"], "number"],
  ["ENABLE_LLM_CACHE", ["cache", "enabled"], "bool"],
  ["LLM_CACHE_TTL", ["cache", "ttl"], "int"],
  ["PLAN_ENABLED", ["plan", "enabled"], "bool"],
  ["PLAN_REVISION_ENABLED", ["plan", "revisionEnabled"], "bool"],
  ["PLAN_REQUIRE_APPROVAL", ["plan", "requireApproval"], "bool"],
  ["PLAN_MAX_STEPS", ["plan", "maxSteps"], "int"],
  ["MCP_ENABLED", ["mcp", "enabled"], "bool"],
  ["MCP_TOOL_CACHE_TTL", ["mcp", "toolCacheTtl"], "int"],
  ["OTEL_EXPORTER_OTLP_ENDPOINT", ["telemetry", "endpoint"], "string"],
  ["OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", ["telemetry", "captureContent"], "bool"],
  ["SECURITY_ENABLED", ["security", "enabled"], "bool"],
  ["MAX_PROMPT_CHARS", ["maxPromptChars"], "int"],
  ["MEMORY_MAX_PROMPT_TOKENS", ["memory", "maxPromptTokens"], "int"],
  ["MEMORY_AUTO_EXTRACT", ["memory", "autoExtract"], "bool"],
  ["KNOWLEDGE_EMBEDDING_MODEL", ["knowledge", "embeddingModel"], "string"],
];
