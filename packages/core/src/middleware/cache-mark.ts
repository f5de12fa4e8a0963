import type { RunMiddleware } from "../loop/run-types.js";

/**
 * Sets `cached` on each `llm_end` of a runtime with an LLM response cache: true when the call was
 * answered from the cache. Made per run by the runtime, first in the pipeline, so the middleware
 * after it and every client see the mark.
 */
export function cacheMarkMiddleware(): RunMiddleware {
  const marks = new Map<string, number>();
  return {
    name: "cache mark",
    wants: { llmCalls: "meta" },
    onEvent(event, ctx) {
      const log = ctx.llmCalls;
      if (!log) return event;
      switch (event.type) {
        case "llm_start":
          marks.set(event.call_id, log.started);
          return event;
        case "llm_end": {
          const mark = marks.get(event.call_id);
          marks.delete(event.call_id);
          if (mark === undefined) return event;
          // The last call since llm_start answered; earlier ones were retried.
          const call = log.since(mark).at(-1);
          return call ? { ...event, cached: call.cached } : event;
        }
        default:
          return event;
      }
    },
  };
}
