/**
 * The user's bearer token and theme, kept in localStorage so a reload keeps them. The token is only
 * needed when `arbor serve` was started with `--token`; the shell itself is served without one.
 */
type Listener = () => void;

const TOKEN_KEY = "arbor.token";
const THEME_KEY = "arbor.theme";

export type ThemeChoice = "system" | "light" | "dark";

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null || value === "") localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Storage may be disabled (private mode); the setting then lasts for this page only.
  }
}

const listeners = new Set<Listener>();
let token = read(TOKEN_KEY) ?? "";
let theme: ThemeChoice = (read(THEME_KEY) as ThemeChoice | null) ?? "system";

export const settings = {
  subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  get token(): string {
    return token;
  },
  setToken(value: string): void {
    token = value.trim();
    write(TOKEN_KEY, token);
    for (const l of listeners) l();
  },
  get theme(): ThemeChoice {
    return theme;
  },
  setTheme(value: ThemeChoice): void {
    theme = value;
    write(THEME_KEY, value === "system" ? null : value);
    for (const l of listeners) l();
  },
};
