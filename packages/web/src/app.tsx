import { useEffect, useState } from "react";
import { navigate, parseRoute, sessionPath, usePathname } from "./lib/router.js";
import { runs } from "./lib/runs.js";
import { settings, type ThemeChoice } from "./lib/settings.js";
import { useApplyTheme, useTheme, useToken } from "./lib/use-settings.js";
import { ChatView } from "./views/chat/ChatView.js";
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
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-head">
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
        <TokenField />
        <ThemeToggle />
      </header>
      <aside className="sidebar">
        <SessionList selectedId={selectedId} refreshKey={refreshKey} />
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
      <label className="field inline">
        <span>API token</span>
        <input
          type="password"
          value={draft}
          autoComplete="off"
          placeholder="only if the server has one"
          onChange={(e) => setDraft(e.target.value)}
        />
      </label>
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
      {theme === "dark" ? "☾ Dark" : theme === "light" ? "☀ Light" : "◐ System"}
    </button>
  );
}
