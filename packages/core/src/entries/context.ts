/**
 * `@arbor/core/context`: the building blocks of a model's context — token counting, cuts, pruning,
 * overflow budgets and folding a path into messages — which the benchmarks time one by one. The
 * runtime uses them internally; a host does not need them to run agents.
 */
export { ContextSize } from "../context/context-size.js";
export { keepRecentBudget, selectCut } from "../context/cut.js";
export { usableTokens } from "../context/overflow.js";
export { selectPrune } from "../context/prune.js";
export { SUMMARY_SYSTEM_PROMPT } from "../context/summary-prompt.js";
export { TokenCounter } from "../context/token-counter.js";
export { applyEntry, buildContext, contextMessages } from "../session/context.js";
export { EMPTY_CONTEXT } from "../session/context-state.js";
