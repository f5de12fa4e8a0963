import { useSyncExternalStore } from "react";

/**
 * Client-side routes on the History API (the server answers every non-API path with the app):
 *   /                          the sessions list and a new chat
 *   /sessions/:id[/:tab]       a session; tab is chat (default), tree, dag, timeline, compare, steps or debug
 */
export const TABS = ["chat", "tree", "dag", "timeline", "compare", "steps", "debug"] as const;
export type Tab = (typeof TABS)[number];

export type Route = { name: "home" } | { name: "session"; sessionId: string; tab: Tab };

export function parseRoute(pathname: string): Route {
  const match = /^\/sessions\/([^/]+)(?:\/([a-z]+))?\/?$/.exec(pathname);
  if (!match) return { name: "home" };
  const tab = (TABS as readonly string[]).includes(match[2] ?? "") ? (match[2] as Tab) : "chat";
  return { name: "session", sessionId: decodeURIComponent(match[1] as string), tab };
}

export function sessionPath(sessionId: string, tab: Tab = "chat"): string {
  return `/sessions/${encodeURIComponent(sessionId)}${tab === "chat" ? "" : `/${tab}`}`;
}

const listeners = new Set<() => void>();
window.addEventListener("popstate", () => {
  for (const l of listeners) l();
});

export function navigate(path: string, options: { replace?: boolean } = {}): void {
  if (path === window.location.pathname) return;
  if (options.replace) window.history.replaceState(null, "", path);
  else window.history.pushState(null, "", path);
  for (const l of listeners) l();
}

export function usePathname(): string {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => window.location.pathname,
  );
}

/** A same-page link click (no modifier keys) becomes a navigation; others keep the browser's behaviour. */
export function onLinkClick(event: React.MouseEvent<HTMLAnchorElement>, path: string): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(path);
}
