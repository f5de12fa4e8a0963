import { z } from "zod";
import {
  capToCaller,
  DEFAULT_RULES,
  mergeRules,
  type PermissionConfig,
  type PermissionRule,
  PermissionRuleSchema,
  rulesFromConfig,
  SENSITIVE_READ_CONFIG,
  type TraceToolContext,
  traceContextRules,
} from "../permissions/permission.js";

/**
 * Agents as data: who they are and what they may do. Each is a permission preset, applied after
 * the defaults; `AgentDefinition` (definition.ts) adds the prompt, model and limits.
 */
export const AgentInfoSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  /** primary: runs a session; subagent: started by another agent; all: either. */
  mode: z.enum(["primary", "subagent", "all"]),
  /** Not offered to users (compaction runs only when Arbor decides). */
  hidden: z.boolean().optional(),
  permission: z.array(PermissionRuleSchema),
});
export type AgentInfo = z.infer<typeof AgentInfoSchema>;

export type BuiltinAgentName = "build" | "plan" | "general" | "explore" | "compaction";

/**
 * Denying `*` also denies the asks that protect the user, so presets that start from a deny put
 * them back: a loop still asks rather than silently failing, and env files still ask.
 */
const KEEP_ASKS: PermissionConfig = { doom_loop: "ask", external_directory: "ask", sandbox: "ask" };

function agent(
  name: BuiltinAgentName,
  description: string,
  mode: AgentInfo["mode"],
  config: PermissionConfig,
  hidden?: boolean,
): AgentInfo {
  const info: AgentInfo = { name, description, mode, permission: rulesFromConfig(config) };
  if (hidden) info.hidden = true;
  return deepFreeze(info);
}

export const BUILTIN_AGENTS: Readonly<Record<BuiltinAgentName, AgentInfo>> = Object.freeze({
  // Build may switch into plan mode (only narrowing what it may do); plan leaves it only with the user's approval of the plan.
  build: agent("build", "The default agent: reads, edits and runs commands to get the task done.", "primary", {
    plan_enter: "allow",
  }),
  plan: agent(
    "plan",
    "Plans without changing anything: may read and search; editing is denied, and commands, Python and memory writes ask first.",
    "primary",
    { edit: "deny", bash: "ask", python_repl: "ask", memory_write: "ask", plan_exit: "ask" },
  ),
  // A sub-agent works one task for another agent, which asks the user itself (seed 004's defaults deny question).
  general: agent(
    "general",
    "A general-purpose sub-agent for multi-step research or work handed over by another agent.",
    "subagent",
    { todowrite: "deny", todoread: "deny", question: "deny" },
  ),
  explore: agent(
    "explore",
    "A fast read-only sub-agent for finding files and code: read, grep, glob and list only (and goal, to plan).",
    "subagent",
    { "*": "deny", ...SENSITIVE_READ_CONFIG, grep: "allow", glob: "allow", list: "allow", goal: "allow", ...KEEP_ASKS },
  ),
  compaction: agent(
    "compaction",
    "Writes the summary that replaces old history; uses no tools.",
    "primary",
    { "*": "deny" },
    true,
  ),
});

export interface AgentPermissionInput {
  /** With the fields of a configured agent (`AgentDefinition`) that shape its rules. */
  agent: AgentInfo & { tools?: readonly string[]; permissionOverrides?: readonly PermissionRule[] };
  /** User config rules (`permission` in arbor.json), as rules or in config form. */
  user?: readonly PermissionRule[] | PermissionConfig;
  /** A sub-trace's allowedTools / deniedTools. */
  trace?: TraceToolContext;
  /** Every tool name the runtime has: a trace whitelist denies those it leaves out. */
  toolNames?: readonly string[];
}

/**
 * The effective rules for a call: defaults → agent → user config → the user's rules for this agent
 * → the agent's tool list → trace context, capped by the rules of the agent that started the
 * trace, if any. A tool list only denies, like a trace's, so it narrows and never widens.
 */
export function agentPermissions(input: AgentPermissionInput): PermissionRule[] {
  const user =
    input.user === undefined ? [] : Array.isArray(input.user) ? input.user : rulesFromConfig(input.user as PermissionConfig);
  const toolNames = input.toolNames ?? [];
  const own = mergeRules(
    DEFAULT_RULES,
    input.agent.permission,
    user,
    input.agent.permissionOverrides,
    input.agent.tools ? traceContextRules({ allowedTools: input.agent.tools }, toolNames) : [],
    traceContextRules(input.trace, toolNames),
  );
  return capToCaller(own, input.trace?.callerPermission);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}
