import type { Entry } from "@arbor/core";
import OpenAI from "openai";
import type { TestServer } from "./server.js";

/** The official client, unchanged, pointed at the server (the token, if any, is its API key). */
export function responsesClient(server: Pick<TestServer, "url">, apiKey = "unused"): OpenAI {
  return new OpenAI({ baseURL: `${server.url}/v1`, apiKey, maxRetries: 0 });
}

/** A client function the run pauses on: Arbor hands its calls back to the client. */
export function clientFunction(name: string, parameters: Record<string, unknown> = { type: "object" }): OpenAI.Responses.Tool {
  return { type: "function", name, parameters, strict: false };
}

/** The client's get_weather(city), the function the pause-and-answer tests call. */
export const weatherTools: OpenAI.Responses.Tool[] = [
  {
    ...clientFunction("get_weather", { type: "object", properties: { city: { type: "string" } }, required: ["city"] }),
    description: "The weather in a city.",
  } as OpenAI.Responses.Tool,
];

/** The request body that answers the function calls of `previousId`, by call id. */
export function functionOutputs(
  previousId: string,
  outputs: Record<string, string>,
): { model: string; previous_response_id: string; input: OpenAI.Responses.ResponseInputItem[] } {
  return {
    model: "build",
    previous_response_id: previousId,
    input: Object.entries(outputs).map(([call_id, output]) => ({ type: "function_call_output", call_id, output })),
  };
}

/** The tool results on the session's active path, as the model read them. */
export async function toolResults(server: TestServer, sessionId: string): Promise<unknown[]> {
  const path: Entry[] = await server.store.getActivePath(sessionId);
  return path.flatMap((e) =>
    e.type === "message" && e.message.role === "tool" ? e.message.content.map((p) => p.type === "tool-result" && p.output) : [],
  );
}

/** The id of the session the store lists first (the tests that read it make one). */
export async function firstSessionId(server: TestServer): Promise<string> {
  return ((await server.store.listSessions({})).sessions[0] as { id: string }).id;
}
