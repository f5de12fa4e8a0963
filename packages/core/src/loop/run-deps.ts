import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { Config } from "../config/schema.js";
import type { TokenCounter } from "../context/token-counter.js";
import { scenarioModel } from "../llm/scenario.js";
import type { PendingPermissions } from "../permissions/pending-permissions.js";
import type { PermissionConfig, PermissionRule } from "../permissions/permission.js";
import type { PromptFiles } from "../prompt/prompt-files.js";
import type { Store } from "../store/store.js";
import type { ToolRegistry } from "../tools/registry.js";
import type { ExtensionFactory } from "./extension.js";
import type {
  AgentDefinition,
  LoopClock,
  ModelResolver,
  PermissionHandler,
  ResolvedModel,
  RetryNotice,
  RetryOptions,
  TracePublisher,
} from "./types.js";

/** What a run borrows from its runtime. */
export interface RunDeps {
  store: Store;
  config: Config;
  models: () => ModelResolver;
  defaultModel: string | LanguageModelV4 | undefined;
  registry: ToolRegistry;
  agents: Readonly<Record<string, AgentDefinition>>;
  cwd: string;
  /** `$ARBOR_HOME`: where global approvals (and other per-user state) live. */
  arborHome: string;
  userRules: readonly PermissionRule[] | PermissionConfig | undefined;
  onPermission: PermissionHandler | undefined;
  pending: PendingPermissions;
  clock: LoopClock;
  retry: Required<RetryOptions>;
  onRetry?: ((notice: RetryNotice & { sessionId: string }) => void) | undefined;
  /** The system prompt for a run (agent prompt, environment, instructions, custom text). */
  systemPrompt(input: {
    agent: AgentDefinition;
    model: ResolvedModel;
    cwd: string;
    system?: string;
    signal: AbortSignal;
    /** The prompt files a sub-agent batch shares (`ExecuteOptions.promptFiles`). */
    files?: PromptFiles | undefined;
  }): Promise<string>;
  maxTurnsNote: string;
  /** Local token counts, shared by the runtime's runs so the tokenizer loads once. */
  tokens: TokenCounter;
  watch: TracePublisher | undefined;
  /** The features of a run that does not name its own (goals, sub-agents, plan mode). */
  extensions: ExtensionFactory;
}

/** The model that writes summaries: the compaction agent's own, else the pool's, else the run's. */
export function summaryModel(deps: Pick<RunDeps, "models" | "agents">, fallback: ResolvedModel): ResolvedModel {
  return scenarioModel(deps.models, "compaction", fallback, deps.agents.compaction?.model) ?? fallback;
}
