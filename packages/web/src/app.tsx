import { useEffect, useRef, useState, useSyncExternalStore } from "react";
import { navigate, parseRoute, sessionPath, usePathname } from "./lib/router.js";
import { runs } from "./lib/runs.js";
import { settings, type ThemeChoice } from "./lib/settings.js";
import { useApplyTheme, useTheme, useToken } from "./lib/use-settings.js";
import { ChatView } from "./views/chat/ChatView.js";
import { TextField } from "./views/common/TextField.js";
import { SessionPage } from "./views/session/SessionPage.js";
import { SessionList } from "./views/sessions/SessionList.js";

const NEXT_THEME: Record<ThemeChoice, ThemeChoice> = { system: "light", light: "dark", dark: "system" };

export function App() {
  useApplyTheme();
  const route = parseRoute(usePathname());
  const [refreshKey, setRefreshKey] = useState(0);
  const refresh = () => setRefreshKey((k) => k + 1);
  // A run that ends changes its session's title, status and totals in the list.
  useEffect(() => runs.onRunEnd(() => setRefreshKey((k) => k + 1)), []);
  const selectedId = route.name === "session" ? route.sessionId : undefined;
  const drawer = useDrawer(usePathname());
  const narrow = useNarrow();
  return (
    <div className={drawer.open ? "app drawer-open" : "app"}>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-head">
        <button
          type="button"
          ref={drawer.toggleRef}
          className="drawer-toggle"
          aria-expanded={drawer.open}
          aria-controls="sessions-drawer"
          onClick={() => drawer.setOpen(!drawer.open)}
        >
          <span aria-hidden="true">☰</span> Sessions
        </button>
        <a
          className="brand"
          href="/"
          onClick={(e) => {
            e.preventDefault();
            navigate("/");
          }}
        >
          Arbor
        </a>
        <button type="button" className="primary" onClick={() => navigate("/")}>
          New session
        </button>
        <span className="spacer" />
        {!narrow && <TokenField />}
        <ThemeToggle />
      </header>
      {/* On a phone the sessions list is a drawer over the page; the API token field moves into it. */}
      {drawer.open && (
        <button type="button" className="drawer-backdrop" aria-label="Close the sessions list" onClick={() => drawer.close()} />
      )}
      <aside className="sidebar" id="sessions-drawer" ref={drawer.panelRef}>
        <SessionList selectedId={selectedId} refreshKey={refreshKey} />
        {narrow && (
          <div className="drawer-token">
            <TokenField />
          </div>
        )}
      </aside>
      <main id="main" className="main" tabIndex={-1}>
        {route.name === "home" ? (
          <ChatView
            onSessionStarted={(id) => {
              refresh();
              navigate(sessionPath(id));
            }}
          />
        ) : (
          <SessionPage key={route.sessionId} sessionId={route.sessionId} tab={route.tab} onChanged={refresh} />
        )}
      </main>
    </div>
  );
}

/** The width at which the layout turns into the phone's (narrow.css uses the same). */
const NARROW = "(max-width: 760px)";

function useNarrow(): boolean {
  return useSyncExternalStore(
    (changed) => {
      const query = window.matchMedia(NARROW);
      query.addEventListener("change", changed);
      return () => query.removeEventListener("change", changed);
    },
    () => window.matchMedia(NARROW).matches,
  );
}

/**
 * The sessions drawer of narrow screens: open from the header's button, closed by Escape, by the
 * backdrop, or by moving to another page (picking a session). Focus goes into the drawer when it
 * opens and back to the button when it closes. On wide screens CSS shows the list always.
 */
function useDrawer(pathname: string) {
  const [open, setOpen] = useState(false);
  const toggleRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page closes it.
  useEffect(() => setOpen(false), [pathname]);
  useEffect(() => {
    if (!open) return;
    panelRef.current?.querySelector<HTMLElement>("input, button, a[href]")?.focus();
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      toggleRef.current?.focus();
    };
    // Picking a session closes it, the one already open too (the page stays the same then).
    const panel = panelRef.current;
    const onPick = (e: MouseEvent) => {
      if (e.target instanceof Element && e.target.closest("a[href]")) setOpen(false);
    };
    document.addEventListener("keydown", onKey);
    panel?.addEventListener("click", onPick);
    return () => {
      document.removeEventListener("keydown", onKey);
      panel?.removeEventListener("click", onPick);
    };
  }, [open]);
  const close = () => {
    setOpen(false);
    toggleRef.current?.focus();
  };
  return { open, setOpen, close, toggleRef, panelRef };
}

function TokenField() {
  const token = useToken();
  const [draft, setDraft] = useState(token);
  return (
    <form
      className="token-form"
      onSubmit={(e) => {
        e.preventDefault();
        settings.setToken(draft);
      }}
    >
      <TextField
        label="API token"
        className="inline"
        type="password"
        value={draft}
        autoComplete="off"
        placeholder="only if the server has one"
        onValue={setDraft}
      />
      <button type="submit">Use</button>
    </form>
  );
}

function ThemeToggle() {
  const theme = useTheme();
  return (
    <button
      type="button"
      className="theme-toggle"
      aria-label={`Theme: ${theme}. Switch to ${NEXT_THEME[theme]}`}
      onClick={() => settings.setTheme(NEXT_THEME[theme])}
    >
      <span aria-hidden="true">{theme === "dark" ? "☾" : theme === "light" ? "☀" : "◐"}</span>
      <span className="theme-name"> {theme === "dark" ? "Dark" : theme === "light" ? "Light" : "System"}</span>
    </button>
  );
}
