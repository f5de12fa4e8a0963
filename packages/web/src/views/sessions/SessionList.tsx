import type { SessionMeta } from "@arbor/core";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { ApiCallError, api } from "../../api/client.js";
import { parseSessionMeta, parseSessionPage } from "../../api/wire.js";
import { formatTime } from "../../lib/format.js";
import { onLinkClick, sessionPath } from "../../lib/router.js";
import { useToken } from "../../lib/use-settings.js";
import { ErrorAlert } from "../common/ErrorAlert.js";
import { TextField } from "../common/TextField.js";
import {
  containsSession,
  filterSessions,
  groupByProject,
  nestSessions,
  type SessionNode,
  sessionTitle,
} from "./nest-sessions.js";

const PAGE_SIZE = 50;

interface Props {
  selectedId: string | undefined;
  /** Bumped by the app when a session is created or deleted, to reload the first page. */
  refreshKey: number;
}

/** The sessions list: newest first, paged with the server's cursor, searchable, sub-traces nested. */
export function SessionList({ selectedId, refreshKey }: Props) {
  const token = useToken();
  const [sessions, setSessions] = useState<SessionMeta[]>([]);
  const [cursor, setCursor] = useState<string | undefined>();
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [query, setQuery] = useState("");
  const [found, setFound] = useState<SessionMeta | undefined>();

  // "": every project; else one workspace path, filtered by the server (`?cwd=`).
  const [project, setProject] = useState("");
  const [projects, setProjects] = useState<readonly string[]>([]);

  const load = useCallback(
    async (after: string | undefined) => {
      setLoading(true);
      setError(undefined);
      try {
        const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
        if (after) params.set("cursor", after);
        if (project) params.set("cwd", project);
        const page = await api(`/api/sessions?${params}`, parseSessionPage);
        setProjects((prev) => {
          const next = new Set(prev);
          for (const s of page.sessions) if (s.cwd) next.add(s.cwd);
          return next.size === prev.length ? prev : [...next].sort();
        });
        setSessions((prev) => {
          const base = after ? prev : [];
          const seen = new Set(base.map((s) => s.id));
          return [...base, ...page.sessions.filter((s) => !seen.has(s.id))];
        });
        setCursor(page.next_cursor);
      } catch (err) {
        setError(err instanceof ApiCallError && err.status === 401 ? "This server needs a token: enter it above." : String(err));
      } finally {
        setLoading(false);
      }
    },
    [project],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the token or refreshKey changes.
  useEffect(() => {
    void load(undefined);
  }, [load, token, refreshKey]);

  const filtered = useMemo(() => filterSessions(sessions, query), [sessions, query]);
  const tree = useMemo(() => nestSessions(filtered), [filtered]);
  const groups = useMemo(() => groupByProject(tree), [tree]);
  // One project needs no heading; several are told apart by their workspace.
  const showGroups = groups.length > 1;
  // While searching, sub-traces that match are shown under their (otherwise folded) parents.
  const searching = query.trim() !== "";

  // A pasted id that is not on a loaded page: ask the server for it directly.
  useEffect(() => {
    const q = query.trim();
    setFound(undefined);
    if (q.length < 8 || filtered.length > 0) return;
    let live = true;
    api(`/api/sessions/${encodeURIComponent(q)}`, (v) => parseSessionMeta((v as { session: unknown }).session)).then(
      (meta) => live && setFound(meta),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [query, filtered.length]);

  return (
    <nav className="session-list" aria-label="Sessions">
      <div className="session-list-head">
        <TextField
          label="Search sessions"
          type="search"
          value={query}
          placeholder="title or id"
          onValue={setQuery}
          aria-controls="session-tree"
        />
        <button type="button" onClick={() => void load(undefined)} disabled={loading} aria-label="Reload sessions">
          ↻
        </button>
      </div>
      {projects.length > 1 && (
        <label className="field project-filter">
          <span>Project</span>
          <select value={project} onChange={(e) => setProject(e.target.value)}>
            <option value="">All projects</option>
            {projects.map((cwd) => (
              <option key={cwd} value={cwd} title={cwd}>
                {cwd}
              </option>
            ))}
          </select>
        </label>
      )}
      <ErrorAlert error={error} />
      <ul id="session-tree" className="session-tree">
        {showGroups
          ? groups.map((g) => (
              <li key={g.cwd ?? ""} className="project-group" data-project={g.cwd ?? ""}>
                <h2 className="project-name" title={g.cwd}>
                  {g.name}
                </h2>
                <ul aria-label={`Sessions in ${g.name}`}>
                  {g.sessions.map((node) => (
                    <SessionItem key={node.meta.id} node={node} selectedId={selectedId} depth={0} searching={searching} />
                  ))}
                </ul>
              </li>
            ))
          : tree.map((node) => (
              <SessionItem key={node.meta.id} node={node} selectedId={selectedId} depth={0} searching={searching} />
            ))}
        {found && <SessionItem node={{ meta: found, children: [] }} selectedId={selectedId} depth={0} />}
      </ul>
      {tree.length === 0 && !found && !loading && !error && (
        <p className="muted">{query ? "No session matches." : "No sessions yet: start one with a message."}</p>
      )}
      {cursor && (
        <button type="button" className="load-more" onClick={() => void load(cursor)} disabled={loading}>
          {loading ? "Loading…" : "Load older sessions"}
        </button>
      )}
    </nav>
  );
}

interface ItemProps {
  node: SessionNode;
  selectedId: string | undefined;
  depth: number;
  searching?: boolean;
}

function SessionItem({ node, selectedId, depth, searching = false }: ItemProps) {
  // Sub-traces stay folded unless the open session is among them.
  const [opened, setOpen] = useState(() => node.children.some((c) => containsSession(c, selectedId)));
  const open = opened || searching;
  const { meta } = node;
  const path = sessionPath(meta.id);
  const selected = meta.id === selectedId;
  const row = useRef<HTMLDivElement>(null);
  const holdsSelected = node.children.some((c) => containsSession(c, selectedId));
  useEffect(() => {
    if (holdsSelected) setOpen(true);
  }, [holdsSelected]);
  // The open session is brought into the sidebar's view, wherever it sits in the list.
  useEffect(() => {
    if (selected) row.current?.scrollIntoView({ block: "nearest" });
  }, [selected]);
  return (
    <li className="session-item" data-session-id={meta.id}>
      <div ref={row} className={`session-row${selected ? " selected" : ""}`} style={{ paddingLeft: `${0.5 + depth * 1}rem` }}>
        {node.children.length > 0 ? (
          <button
            type="button"
            className="twisty"
            aria-expanded={open}
            aria-label={`${open ? "Hide" : "Show"} ${node.children.length} sub-traces of ${sessionTitle(meta)}`}
            onClick={() => setOpen(!open)}
          >
            {open ? "▾" : "▸"}
          </button>
        ) : (
          <span className="twisty-space" />
        )}
        <a href={path} onClick={(e) => onLinkClick(e, path)} aria-current={selected ? "page" : undefined} title={meta.id}>
          <span className="session-title">{sessionTitle(meta)}</span>
          <span className="session-sub">
            {meta.agentType !== "main" && <span className="badge">{meta.agentType}</span>}
            {meta.status && meta.status !== "completed" && <span className={`badge status-${meta.status}`}>{meta.status}</span>}
            <time dateTime={meta.createdAt}>{formatTime(meta.createdAt)}</time>
          </span>
        </a>
      </div>
      {open && node.children.length > 0 && (
        <ul aria-label={`Sub-traces of ${sessionTitle(meta)}`}>
          {node.children.map((child) => (
            <SessionItem key={child.meta.id} node={child} selectedId={selectedId} depth={depth + 1} searching={searching} />
          ))}
        </ul>
      )}
    </li>
  );
}
