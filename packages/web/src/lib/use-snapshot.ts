import type { Snapshot } from "@arbor/core";
import { useCallback, useEffect, useRef, useState } from "react";
import { ApiCallError, api } from "../api/client.js";
import { parseSnapshot } from "../api/wire.js";
import { runs } from "./runs.js";
import { useToken } from "./use-settings.js";

export interface SnapshotState {
  snapshot: Snapshot | undefined;
  error: string | undefined;
  loading: boolean;
  /** The server has no such session (a mistyped or deleted id). */
  notFound: boolean;
  /** Loads it again (after a tree operation); resolves once the new snapshot is in place. */
  reload: () => Promise<void>;
}

/**
 * The session's snapshot, the one source the chat, tree and step views render from. It
 * reloads when a run of the session ends, and whenever a caller asks (watch events, tree operations).
 */
export function useSnapshot(sessionId: string): SnapshotState {
  const token = useToken();
  const [snapshot, setSnapshot] = useState<Snapshot | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [loading, setLoading] = useState(true);
  const [notFound, setNotFound] = useState(false);
  const generation = useRef(0);

  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      // Marks for the browser tests' first-render breakdown (and anyone profiling a big session).
      performance.mark("snapshot:request");
      const next = await api(`/api/sessions/${encodeURIComponent(sessionId)}`, (value) => {
        performance.mark("snapshot:json");
        return parseSnapshot(value);
      });
      performance.mark("snapshot:checked");
      // A slower, older request must not overwrite a newer answer.
      if (mine !== generation.current) return;
      setSnapshot(next);
      setError(undefined);
      setNotFound(false);
    } catch (err) {
      if (mine !== generation.current) return;
      setError(err instanceof Error ? err.message : String(err));
      setNotFound(err instanceof ApiCallError && err.status === 404);
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [sessionId]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new token may unlock the session.
  useEffect(() => {
    setSnapshot(undefined);
    void reload();
  }, [reload, token]);

  useEffect(
    () =>
      runs.onRunEnd((id) => {
        if (id === sessionId) void reload().then(() => runs.clear(id));
      }),
    [sessionId, reload],
  );

  return { snapshot, error, loading, notFound, reload };
}
