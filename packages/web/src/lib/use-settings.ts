import { useEffect, useSyncExternalStore } from "react";
import { settings, type ThemeChoice } from "./settings.js";

export function useToken(): string {
  return useSyncExternalStore(settings.subscribe, () => settings.token);
}

export function useTheme(): ThemeChoice {
  return useSyncExternalStore(settings.subscribe, () => settings.theme);
}

/** Puts the chosen theme on <html data-theme>; "system" leaves it to prefers-color-scheme in the CSS. */
export function useApplyTheme(): void {
  const theme = useTheme();
  useEffect(() => {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
  }, [theme]);
}
