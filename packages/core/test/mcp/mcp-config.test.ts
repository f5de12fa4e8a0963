import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.js";
import { mcpToolName } from "../../src/mcp/names.js";
import { INLINE_LIMIT, resultMetadata, resultText } from "../../src/mcp/results.js";
import { MemoryBlobStore } from "../../src/tools/blob-store.js";
import { tempDir } from "../loop/harness.js";

function workspaceWith(config: unknown): { cwd: string; env: Record<string, string> } {
  const root = tempDir();
  const cwd = join(root, "work");
  mkdirSync(cwd);
  writeFileSync(join(cwd, "arbor.json"), JSON.stringify(config));
  return { cwd, env: { ARBOR_HOME: join(root, "home") } };
}

describe("mcp config", () => {
  it("accepts stdio and url servers with defaults", () => {
    const ws = workspaceWith({
      mcp: { servers: { fs: { command: "npx", args: ["x"] }, remote: { url: "http://127.0.0.1:1/mcp", headers: { a: "b" } } } },
    });
    const config = loadConfig(ws);
    expect(config.mcp.servers.fs).toEqual({ command: "npx", args: ["x"], timeoutMs: 60_000, enabled: true });
    expect(config.mcp.servers.remote).toMatchObject({ url: "http://127.0.0.1:1/mcp", headers: { a: "b" } });
  });

  it("accepts a machine client (the client credentials grant) with a secret or a private key file", () => {
    const secret = { grant: "client_credentials", clientId: "ci", clientSecret: "s", issuer: "https://auth.example" };
    const key = { grant: "client_credentials", clientId: "ci", privateKeyFile: "/k.pem", signingAlgorithm: "ES256" };
    const ws = workspaceWith({
      mcp: { servers: { a: { url: "http://127.0.0.1:1/mcp", oauth: secret }, b: { url: "http://127.0.0.1:2/mcp", oauth: key } } },
    });
    const config = loadConfig(ws);
    expect(config.mcp.servers.a?.oauth).toEqual(secret);
    expect(config.mcp.servers.b?.oauth).toEqual(key);
  });

  it.each([
    [{ fs: { command: "npx", args: "x" } }, "mcp.servers.fs.args"],
    [{ fs: { command: "npx", url: "http://127.0.0.1/mcp" } }, 'mcp.servers.fs: give either "command"'],
    [{ fs: {} }, 'mcp.servers.fs: give either "command"'],
    [{ fs: { url: "http://127.0.0.1/mcp", env: {} } }, "mcp.servers.fs.env: only for a"],
    [{ fs: { command: "npx", colour: 1 } }, "mcp.servers.fs"],
    [{ "bad name": { command: "npx" } }, "mcp.servers"],
    [{ ci: { url: "http://127.0.0.1/mcp", oauth: { grant: "client_credentials", clientId: "c" } } }, 'one of "clientSecret"'],
    [
      { ci: { url: "http://127.0.0.1/mcp", oauth: { grant: "client_credentials", clientSecret: "s" } } },
      "mcp.servers.ci.oauth.clientId",
    ],
    [
      {
        ci: {
          url: "http://127.0.0.1/mcp",
          oauth: { grant: "client_credentials", clientId: "c", clientSecret: "s", privateKeyFile: "k" },
        },
      },
      'one of "clientSecret"',
    ],
    [{ ci: { url: "http://127.0.0.1/mcp", oauth: { privateKeyFile: "k" } } }, "mcp.servers.ci.oauth.privateKeyFile: only with"],
    [
      {
        ci: {
          url: "http://127.0.0.1/mcp",
          oauth: { grant: "client_credentials", clientId: "c", privateKeyFile: "k", signingAlgorithm: "HS256" },
        },
      },
      "mcp.servers.ci.oauth.signingAlgorithm",
    ],
  ])("rejects %j naming the file and key", (servers, key) => {
    const ws = workspaceWith({ mcp: { servers } });
    let message = "";
    try {
      loadConfig(ws);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain(join(ws.cwd, "arbor.json"));
    expect(message).toContain(key);
  });
});

describe("mcp results", () => {
  it("keeps big binary blocks out of line and describes them to the model", async () => {
    const blobs = new MemoryBlobStore();
    const big = Buffer.alloc(INLINE_LIMIT * 2, 7).toString("base64");
    const result = {
      content: [
        { type: "text" as const, text: "hi" },
        { type: "image" as const, data: big, mimeType: "image/png" },
        { type: "resource" as const, resource: { uri: "file:///a.txt", text: "abc", mimeType: "text/plain" } },
        { type: "resource_link" as const, uri: "file:///b", name: "b" },
      ],
    };
    expect(resultText(result)).toBe(
      `hi\n[image image/png, ${INLINE_LIMIT * 2} bytes]\n[resource file:///a.txt]\nabc\n[resource link b: file:///b]`,
    );
    const meta = await resultMetadata("s", "t", result, blobs);
    const image = meta.parts[1] as { blob?: string; data?: string; bytes: number };
    expect(image.data).toBeUndefined();
    expect(image.bytes).toBe(INLINE_LIMIT * 2);
    expect(Buffer.from((await blobs.get(image.blob as string)) ?? []).equals(Buffer.alloc(INLINE_LIMIT * 2, 7))).toBe(true);
    expect(meta.parts[2]).toEqual({ type: "resource", uri: "file:///a.txt", mimeType: "text/plain", size: 3, text: "abc" });
  });

  it("shows structuredContent when the server sent no text", () => {
    expect(resultText({ content: [], structuredContent: { a: 1 } })).toBe('{"a":1}');
  });

  it("names tools mcp__<server>__<tool> within the registry's characters and length", () => {
    expect(mcpToolName("fs", "read_file")).toBe("mcp__fs__read_file");
    expect(mcpToolName("fs", "a.b/c d")).toBe("mcp__fs__a_b_c_d");
    expect(mcpToolName("fs", "x".repeat(80))).toHaveLength(64);
  });
});
