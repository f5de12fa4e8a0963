import { type DurableAskOptions, storedAnswer, type WaitEnds } from "../asks/durable-wait.js";

/**
 * How an ask an MCP server makes during a tool call (an elicitation, a login) ends: with the answer
 * stored, else cancelled. The server's request is gone with the call, so a call that stops closes
 * its ask as cancelled: nobody is left to answer what nothing waits on (an answer that landed first
 * wins in the store).
 */
export function cancellingEnds<A>(options: DurableAskOptions, id: string): WaitEnds<A | { action: "cancel" }> {
  return {
    answered: (answer) => answer.value as unknown as A,
    expired: () => ({ action: "cancel" }),
    aborted: () => {
      options.store.answerAsk(id, storedAnswer(options, { action: "cancel" })).catch(() => {});
      return { action: "cancel" };
    },
  };
}
