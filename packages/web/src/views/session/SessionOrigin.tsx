import type { SessionMeta } from "@arbor/core";
import { onLinkClick, sessionPath } from "../../lib/router.js";

interface ImportedFrom {
  agent?: string;
  sourceId?: string;
}

function importedFrom(meta: SessionMeta): ImportedFrom | undefined {
  const value = (meta as { importedFrom?: unknown }).importedFrom;
  return typeof value === "object" && value !== null ? (value as ImportedFrom) : undefined;
}

function SessionLink({ id, children }: { id: string; children: React.ReactNode }) {
  const path = sessionPath(id);
  return (
    <a href={path} onClick={(e) => onLinkClick(e, path)}>
      {children}
    </a>
  );
}

/**
 * Where a session came from, above its tabs: the parent a sub-trace belongs to (a breadcrumb back),
 * the session a fork was cut from, or the agent an imported copy was read from.
 */
export function SessionOrigin({ meta }: { meta: SessionMeta }) {
  const imported = importedFrom(meta);
  if (!meta.parentSessionId && !meta.branchedFrom && !imported) return null;
  return (
    <nav className="session-origin" aria-label="Where this session comes from">
      {meta.parentSessionId && (
        <span className="breadcrumb" data-testid="breadcrumb">
          <SessionLink id={meta.parentSessionId}>↑ Parent trace</SessionLink>
          <span aria-hidden="true"> › </span>
          <span>
            {meta.agentType} sub-trace{meta.task ? `: ${meta.task}` : ""}
          </span>
        </span>
      )}
      {meta.branchedFrom && (
        <span className="badge origin" data-testid="fork-of">
          Fork of <SessionLink id={meta.branchedFrom.sessionId}>{meta.branchedFrom.sessionId}</SessionLink>
        </span>
      )}
      {imported && (
        <span className="badge origin" data-testid="imported-from">
          Imported from {imported.agent ?? "another agent"}
          {imported.sourceId ? ` (${imported.sourceId})` : ""}
        </span>
      )}
    </nav>
  );
}
