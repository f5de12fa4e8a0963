import { describe, expect, it } from "vitest";
import { startServer } from "./helpers/server.js";

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { security: unknown[]; parameters?: Array<{ name: string; in: string }>; requestBody?: unknown }>
  >;
  components: { schemas: Record<string, Record<string, unknown>> };
};

describe("GET /api/openapi.json", () => {
  it("describes every route from the zod schemas", async () => {
    const { api } = await startServer();
    const doc = (await (await api("/api/openapi.json")).json()) as Doc;
    expect(doc.openapi).toBe("3.1.0");
    const routes = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(routes.sort()).toEqual(
      [
        "GET /api/health",
        "GET /api/info",
        "GET /api/mcp/servers",
        "GET /api/mcp/servers/{server}/resources",
        "GET /api/mcp/servers/{server}/prompts",
        "GET /api/mcp/oauth/callback",
        "GET /api/openapi.json",
        "GET /api/docs",
        "GET /api/docs/{asset}",
        "POST /api/chat",
        "GET /api/sessions/{id}/stream",
        "POST /api/ui/chat",
        "GET /api/ui/chat/{id}/stream",
        "POST /api/sessions/{id}/abort",
        "GET /api/sessions",
        "POST /api/sessions",
        "GET /api/sessions/{id}",
        "DELETE /api/sessions/{id}",
        "POST /api/sessions/{id}/leaf",
        "POST /api/sessions/{id}/fork",
        "POST /api/sessions/{id}/labels",
        "POST /api/sessions/{id}/compact",
        "POST /api/sessions/{id}/revert",
        "POST /api/sessions/{id}/unrevert",
        "GET /api/sessions/{id}/diff",
        "POST /api/sessions/{id}/summary",
        "GET /api/sessions/{id}/messages",
        "DELETE /api/sessions/{id}/messages/{message_id}",
        "GET /api/sessions/{id}/tool-stats",
        "GET /api/sessions/{id}/tool-calls",
        "GET /api/sessions/{id}/approvals",
        "POST /api/sessions/{id}/approvals/revoke",
        "GET /api/permissions",
        "POST /api/permissions/{id}",
        "GET /api/asks",
        "POST /api/asks/{id}",
        "GET /api/approvals",
        "DELETE /api/approvals/{id}",
        "POST /api/plan/approve",
        "GET /api/plan/pending",
        "GET /api/traces/{id}/watch",
        "GET /api/cache/stats",
        "POST /api/cache/clear",
        "GET /api/sessions/{id}/debug",
        "GET /api/sessions/{id}/timeline",
        "GET /api/traces/{id}",
        "GET /api/traces/{id}/messages",
        "PATCH /api/traces/{id}/replay",
        "POST /mcp",
        "GET /mcp",
        "DELETE /mcp",
        "POST /v1/responses",
        "GET /v1/responses/{id}",
        "POST /v1/responses/compact",
        "GET /v1/models",
        "POST /a2a",
        "GET /.well-known/agent-card.json",
        "POST /api/ag-ui",
        "GET /api/ag-ui/capabilities",
      ].sort(),
    );
    expect(doc.paths["/api/health"]?.get?.security).toEqual([]);
    // A protocol's endpoint is listed with its methods, behind the token, pointing at its specification.
    const mcp = doc.paths["/mcp"]?.post as { security: unknown[]; tags: string[]; externalDocs: { url: string } };
    expect(mcp.security).toEqual([{ bearer: [] }]);
    expect(mcp.tags).toEqual(["mcp"]);
    expect(mcp.externalDocs.url).toMatch(/^https:\/\/modelcontextprotocol\.io\//);
    expect(doc.paths["/api/chat"]?.post?.requestBody).toEqual({
      required: true,
      content: { "application/json": { schema: { $ref: "#/components/schemas/ChatRequest" } } },
    });
    const chat = doc.components.schemas.ChatRequest as { properties: Record<string, { pattern?: string }>; required: string[] };
    expect(Object.keys(chat.properties)).toEqual([
      "message",
      "session_id",
      "from_entry_id",
      "agent",
      "model",
      "thinking",
      "debug",
      "busy",
      "stream",
      "attachments",
      "mcp_prompt",
    ]);
    expect(chat.required).toEqual(["message"]);
    expect(chat.properties.session_id?.pattern).toMatch(/^\^/);
    expect(doc.paths["/api/sessions"]?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual([
      "query:limit",
      "query:cursor",
      "query:cwd",
      "query:parent_id",
    ]);
    expect(doc.paths["/api/sessions/{id}"]?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(["path:id"]);
    // Named payloads are referenced, not repeated: the snapshot's session is the SessionMeta component.
    expect(JSON.stringify(doc.components.schemas.Snapshot)).toContain('"$ref":"#/components/schemas/SessionMeta"');
    expect(doc.components.schemas.RunEvent).toHaveProperty("oneOf");
    // The message trace keeps its wire field names, nested by reference.
    const message = doc.components.schemas.Message as { properties: Record<string, unknown> };
    expect(Object.keys(message.properties)).toEqual([
      "id",
      "session_id",
      "request_id",
      "content",
      "role",
      "knowledge_references",
      "agent_steps",
      "is_completed",
      "deleted",
      "created_at",
      "updated_at",
    ]);
    expect(JSON.stringify(message)).toContain('"$ref":"#/components/schemas/AgentStep"');
    expect(Object.keys((doc.components.schemas.ToolCall as { properties: object }).properties)).toEqual([
      "id",
      "name",
      "args",
      "result",
      "reflection",
      "duration",
    ]);
    expect(doc.paths["/api/sessions/{id}/messages"]?.get?.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual([
      "path:id",
      "query:limit",
      "query:before",
    ]);
  });
});
