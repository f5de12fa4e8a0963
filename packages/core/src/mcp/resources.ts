import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ArborError, isArborError } from "../errors.js";
import type { UserMessage } from "../model/message.js";
import { nearestKey } from "../model/validate.js";
import type { McpConnection } from "./connection.js";

/** One resource a server lists (`resources/list`). */
export interface McpResourceInfo {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
}

/** One resource template a server lists (`resources/templates/list`): a URI with `{variables}` to fill in. */
export interface McpResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

/** What `arbor mcp resources <server>` and the inspector show of one server. */
export interface McpResourceListing {
  server: string;
  resources: McpResourceInfo[];
  templates: McpResourceTemplateInfo[];
  /** The server tells of changes to a resource read here, so a read is reused until it does. */
  subscribe: boolean;
}

/** One item of a read resource: text, or base64 `blob` for binary content. */
export type McpResourceContent =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

export interface McpResourceRead {
  server: string;
  uri: string;
  contents: McpResourceContent[];
  /** Answered from an earlier read the server has not said is out of date. */
  cached: boolean;
}

interface Entry {
  /** The client the read and its subscription were made on: a restarted server holds no subscription. */
  client: Client;
  expires: number;
  contents: McpResourceContent[];
}

type Listener = (server: string, uri: string) => void;

/**
 * The servers' resources as the runtime reads them. A read is reused only while the server is
 * subscribed to for it (and within the TTL): its `notifications/resources/updated` drops the copy,
 * so the next read asks the server again. A server without subscriptions is asked every time.
 */
export class McpResources {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by each update, so a read in flight when one arrives is not kept as current. */
  private readonly generations = new Map<string, number>();
  private readonly subscribed = new WeakMap<Client, Set<string>>();
  private readonly listeners = new Set<Listener>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  /** Told of every resource update a server sends (after the copy is dropped); returns the unsubscribe. */
  onUpdated(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A server's `notifications/resources/updated`. */
  updated(server: string, uri: string): void {
    const key = `${server}\0${uri}`;
    this.entries.delete(key);
    this.generations.set(key, (this.generations.get(key) ?? 0) + 1);
    for (const listener of this.listeners) listener(server, uri);
  }

  async list(server: string, connection: McpConnection, signal?: AbortSignal): Promise<McpResourceListing> {
    return connection.request(async (client, options) => {
      const caps = client.getServerCapabilities();
      if (!caps?.resources) return { server, resources: [], templates: [], subscribe: false };
      const resources: McpResourceInfo[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listResources(cursor === undefined ? {} : { cursor }, options);
        resources.push(...page.resources.map(resourceInfo));
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      const templates: McpResourceTemplateInfo[] = [];
      try {
        do {
          const page = await client.listResourceTemplates(cursor === undefined ? {} : { cursor }, options);
          templates.push(...page.resourceTemplates.map(templateInfo));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
      } catch {
        // Templates are optional within the resources capability: a server without them lists none.
      }
      return { server, resources, templates, subscribe: caps.resources.subscribe === true };
    }, signal);
  }

  async read(server: string, connection: McpConnection, uri: string, signal?: AbortSignal): Promise<McpResourceRead> {
    const key = `${server}\0${uri}`;
    try {
      return await connection.request(async (client, options, traced) => {
        const hit = this.entries.get(key);
        if (hit && hit.client === client && hit.expires > this.now()) {
          return { server, uri, contents: hit.contents, cached: true };
        }
        const generation = this.generations.get(key) ?? 0;
        // Subscribed before reading, so a change made after the read is announced, never missed.
        const subscribed = await this.subscribe(client, uri, options);
        const result = await client.readResource({ uri, ...traced }, options);
        const contents = result.contents.map(content);
        if (subscribed && (this.generations.get(key) ?? 0) === generation) {
          this.entries.set(key, { client, expires: this.now() + this.ttlMs, contents });
        }
        return { server, uri, contents, cached: false };
      }, signal);
    } catch (err) {
      // The server refused the read: most often a mistyped URI, so name the nearest it lists.
      if (!isArborError(err, "tool_failed")) throw err;
      const listing = await this.list(server, connection, signal).catch(() => undefined);
      const near = listing
        ? nearestKey(
            uri,
            listing.resources.map((r) => r.uri),
          )
        : undefined;
      throw new ArborError(
        "mcp_resource_not_found",
        `MCP server "${server}" could not read resource "${uri}"${near ? ` (did you mean "${near}"?)` : ""}: ${err.message}. \`arbor mcp resources ${server}\` lists its resources.`,
        { server, uri, ...(near ? { nearest: near } : {}) },
      );
    }
  }

  /** Subscribes once per client; false when the server offers no subscriptions (or refused this one). */
  private async subscribe(client: Client, uri: string, options: { timeout: number; signal?: AbortSignal }): Promise<boolean> {
    if (client.getServerCapabilities()?.resources?.subscribe !== true) return false;
    let uris = this.subscribed.get(client);
    if (uris?.has(uri)) return true;
    try {
      await client.subscribeResource({ uri }, options);
    } catch {
      return false;
    }
    if (!uris) {
      uris = new Set();
      this.subscribed.set(client, uris);
    }
    uris.add(uri);
    return true;
  }
}

/** The optional fields of `from` that are set: the wire leaves an unset field out rather than undefined. */
function setFields<T extends object, K extends keyof T>(from: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (from[key] !== undefined) out[key] = from[key];
  return out;
}

function resourceInfo(r: McpResourceInfo): McpResourceInfo {
  return { uri: r.uri, name: r.name, ...setFields(r, ["title", "description", "mimeType", "size"] as const) };
}

function templateInfo(t: McpResourceTemplateInfo): McpResourceTemplateInfo {
  return { uriTemplate: t.uriTemplate, name: t.name, ...setFields(t, ["title", "description", "mimeType"] as const) };
}

function content(c: { uri: string; mimeType?: string; text?: unknown; blob?: unknown }): McpResourceContent {
  const mime = c.mimeType !== undefined ? { mimeType: c.mimeType } : {};
  if (typeof c.text === "string") return { uri: c.uri, ...mime, text: c.text };
  return { uri: c.uri, ...mime, blob: typeof c.blob === "string" ? c.blob : "" };
}

function base64Bytes(data: string): number {
  const padding = data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

/**
 * A resource as part of a user message: text with its URI named above it; an image as a file part
 * the model sees, with a label; other binary content as a label only (like a tool result's).
 */
export function resourceParts(server: string, contents: readonly McpResourceContent[]): UserMessage["content"] {
  return contents.flatMap((c): UserMessage["content"] => {
    if ("text" in c) return [{ type: "text", text: `[resource ${server}:${c.uri}]\n${c.text}` }];
    const label = `[resource ${server}:${c.uri}${c.mimeType ? ` ${c.mimeType}` : ""}, ${base64Bytes(c.blob)} bytes]`;
    if (c.mimeType?.startsWith("image/"))
      return [
        { type: "text", text: label },
        { type: "file", mediaType: c.mimeType, data: c.blob, filename: c.uri },
      ];
    return [{ type: "text", text: label }];
  });
}
