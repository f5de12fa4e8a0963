import { ArborError } from "../errors.js";
import { SESSION_FORMAT_VERSION } from "../model/session.js";

/**
 * Format migrations. Entry migrations are idempotent normalizers: a file may hold lines written by
 * several versions (an old session continued by a newer Arbor), so each line is normalized on read
 * whatever the session's recorded version, and files are never rewritten to migrate them.
 *
 * Version 0 is the pre-release format: no `version` in the meta, message `content` as a plain
 * string, and the trace fields missing.
 */
type Raw = Record<string, unknown>;

function isRecord(v: unknown): v is Raw {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Custom entry types renamed into the `arbor.` namespace: the old name on disk, the name read. */
const RENAMED_CUSTOM_TYPES: Readonly<Record<string, string>> = { run_error: "arbor.run_error" };

export function migrateEntry(raw: unknown): unknown {
  if (isRecord(raw) && raw.type === "custom" && typeof raw.customType === "string") {
    const renamed = RENAMED_CUSTOM_TYPES[raw.customType];
    return renamed === undefined ? raw : { ...raw, customType: renamed };
  }
  if (!isRecord(raw) || raw.type !== "message" || !isRecord(raw.message)) return raw;
  const content = raw.message.content;
  if (typeof content !== "string") return raw;
  return { ...raw, message: { ...raw.message, content: [{ type: "text", text: content }] } };
}

export function migrateSessionMeta(raw: unknown, where: string): unknown {
  if (!isRecord(raw)) return raw;
  const version = raw.version ?? 0;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0) {
    throw new ArborError("corrupt_session", `${where}: "version" must be a whole number, got ${JSON.stringify(version)}.`);
  }
  if (version > SESSION_FORMAT_VERSION) {
    throw new ArborError(
      "unsupported_version",
      `${where} was written by a newer Arbor (format ${version}; this one reads up to ${SESSION_FORMAT_VERSION}). Upgrade Arbor to open it.`,
    );
  }
  if (version === SESSION_FORMAT_VERSION) return raw;
  return {
    mode: "agent",
    agentType: "main",
    totalMessages: 0,
    totalTokens: 0,
    totalCost: 0,
    rootEntryId: null,
    leafEntryId: null,
    ...raw,
    updatedAt: raw.updatedAt ?? raw.createdAt,
    version: SESSION_FORMAT_VERSION,
  };
}
