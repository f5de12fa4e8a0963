import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { text, toolCall } from "@arbor/testkit";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { runToElicitation } from "./helpers/asks.js";
import { ARBOR_BIN } from "./helpers/cli.js";
import { FAKE_MODEL, runEvents, setupCliE2e } from "./helpers/e2e.js";

/** The MCP servers from npm, run from the workspace's node_modules with this Node. */
const modules = fileURLToPath(new URL("../../../node_modules/@modelcontextprotocol/", import.meta.url));

const e2e = setupCliE2e("arbor-mcp-e2e-", { files: { "notes.txt": "the answer is 42\n" } });

beforeAll(async () => {
  await writeFile(
    join(e2e.workspace, "arbor.json"),
    JSON.stringify({
      mcp: {
        servers: {
          fs: { command: process.execPath, args: [`${modules}server-filesystem/dist/index.js`, e2e.workspace] },
          everything: { command: process.execPath, args: [`${modules}server-everything/dist/index.js`, "stdio"] },
        },
      },
    }),
  );
});

describe("arbor run with MCP servers", () => {
  it("completes a scripted run over the fake OpenAI server that calls tools of both servers", async () => {
    const server = await e2e.startFake({
      script: [
        [
          text("Reading with MCP."),
          toolCall("mcp__fs__read_text_file", { path: join(e2e.workspace, "notes.txt") }, { id: "fs1" }),
          toolCall("mcp__everything__get-sum", { a: 40, b: 2 }, { id: "ev1" }),
        ],
        [text("The notes say 42, and 40 + 2 = 42.")],
      ],
    });
    const r = await e2e.cli(e2e.runArgs(server.baseURL, "What is in notes?"));
    expect(r.code, r.stderr).toBe(0);
    const events = runEvents(r);
    expect(events.at(-1)?.type).toBe("done");
    const ends = events.flatMap((e) => (e.type === "tool_end" ? [e] : []));
    expect(ends.map((e) => [e.tool, e.is_error])).toEqual(
      expect.arrayContaining([
        ["mcp__fs__read_text_file", false],
        ["mcp__everything__get-sum", false],
      ]),
    );
    expect(ends.find((e) => e.call_id === "fs1")?.output).toBe("the answer is 42\n");
    expect(ends.find((e) => e.call_id === "ev1")?.output).toMatch(/42/);
    // The provider was shown the MCP tools with their schemas.
    const first = server.requests[0]?.body as { tools?: { function: { name: string } }[] } | undefined;
    const names = first?.tools?.map((t) => t.function.name) ?? [];
    expect(names).toEqual(expect.arrayContaining(["mcp__fs__read_text_file", "mcp__everything__get-sum", "read"]));
  });

  it("a server's elicitation waits as an ask that 'arbor approve <elic_…> --content' answers from another process", {
    timeout: 120_000,
  }, async () => {
    const { run, id } = await runToElicitation(e2e, {
      script: [[toolCall("mcp__everything__trigger-elicitation-request", {}, { id: "el" })], [text("Thanks, Ada.")]],
      prompt: "Ask me for my details.",
      check: (elicitation) => expect(elicitation?.server).toBe("everything"),
      shows: "MCP server everything asks: Please provide inputs",
    });
    const bad = await e2e.cli(["approve", id, "--content", '{"name": 7}']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/name must be a string/);
    const answered = await e2e.cli(["approve", id, "--json", "--content", '{"name": "Ada"}']);
    expect(answered.code, answered.stderr).toBe(0);
    expect(JSON.parse(answered.stdout)).toMatchObject({ id, kind: "elicitation", allowed: true });
    const r = await run.result;
    expect(r.code, r.stderr).toBe(0);
    const end = runEvents(r).find((e) => e.type === "tool_end" && e.call_id === "el");
    expect(end?.type === "tool_end" ? end.output : "").toContain("Name: Ada");
  });

  it("arbor mcp list shows each server, its state and its tools", async () => {
    const r = await e2e.cli(["mcp", "list", "--json", "--cwd", e2e.workspace]);
    expect(r.code, r.stderr).toBe(0);
    const { servers } = JSON.parse(r.stdout) as {
      servers: { name: string; state: { status: string }; tools: { name: string; readOnly: boolean }[] }[];
    };
    expect(servers.map((s) => [s.name, s.state.status])).toEqual([
      ["fs", "ready"],
      ["everything", "ready"],
    ]);
    expect(servers[0]?.tools.map((t) => t.name)).toContain("mcp__fs__read_text_file");
    expect(servers[1]?.tools).toContainEqual({
      name: "mcp__everything__echo",
      mcpName: "echo",
      description: expect.any(String),
      readOnly: true,
    });

    const text = await e2e.cli(["mcp", "list", "--cwd", e2e.workspace]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/^fs {2}stdio {2}/m);
    expect(text.stdout).toMatch(/^ {2}ready/m);
    expect(text.stdout).toMatch(/^ {2}mcp__everything__echo \(read-only\)/m);
  });

  it("a bad mcp config is an error naming the file and key, before anything runs", async () => {
    const bad = join(e2e.dir, "bad");
    await mkdir(bad);
    await writeFile(join(bad, "arbor.json"), JSON.stringify({ mcp: { servers: { fs: { command: 3 } } } }));
    const r = await e2e.cli(["mcp", "list", "--cwd", bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(join(bad, "arbor.json"));
    expect(r.stderr).toContain("mcp.servers.fs.command");
    expect(await readFile(join(bad, "arbor.json"), "utf8")).toContain('"command":3');
  });

  it("the docs' example with its placeholders left in says which field to fill, not spawn ENOENT or ByteString", async () => {
    const pasted = join(e2e.dir, "pasted");
    await mkdir(pasted);
    await writeFile(
      join(pasted, "arbor.json"),
      JSON.stringify({
        mcp: {
          servers: {
            // The command exists; only the docs' example cwd does not.
            files: { command: process.execPath, args: ["-e", "1"], cwd: "/home/me/proj" },
            search: { url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer …" }, timeoutMs: 5000 },
          },
        },
      }),
    );
    const r = await e2e.cli(["mcp", "list", "--cwd", pasted]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("its cwd /home/me/proj is not a directory here: set mcp.servers.files.cwd to one that exists");
    expect(r.stdout).toContain(
      'header Authorization holds "…" at character 8, which HTTP headers cannot carry: put the real value in mcp.servers.search.headers.Authorization',
    );
    expect(r.stdout).not.toMatch(/ENOENT|ByteString/);
  });
});

describe("arbor mcp serve", () => {
  it("an MCP client over stdio runs an agent that calls MCP tools, with progress, and reads the session back", async () => {
    const server = await e2e.startFake({
      script: [[toolCall("mcp__everything__echo", { message: "via arbor" }, { id: "e" })], [text("Echoed.")]],
    });
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("ARBOR_")) env[k] = v;
    const client = new Client({ name: "test", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [ARBOR_BIN, "mcp", "serve", "--model", FAKE_MODEL, "--base-url", server.baseURL, "--cwd", e2e.workspace],
      env: { ...env, ARBOR_HOME: e2e.home },
      stderr: "pipe",
    });
    await client.connect(transport);
    try {
      const progress: string[] = [];
      const result = (await client.callTool({ name: "run_prompt", arguments: { prompt: "echo it" } }, undefined, {
        onprogress: (p) => progress.push(p.message ?? ""),
      })) as CallToolResult;
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ status: "done", text: "Echoed." });
      expect(progress).toEqual(expect.arrayContaining(["tool mcp__everything__echo started", "tool mcp__everything__echo done"]));
      const sessionId = (result.structuredContent as { session_id: string }).session_id;
      const read = (await client.callTool({ name: "read_session", arguments: { session_id: sessionId } })) as CallToolResult;
      expect(JSON.stringify(read.structuredContent)).toContain("Echo: via arbor");
      const bad = (await client.callTool({ name: "read_session", arguments: { session_id: "missing" } })) as CallToolResult;
      expect(bad.isError).toBe(true);
    } finally {
      await client.close();
    }
  });
});
