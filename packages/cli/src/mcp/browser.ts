import { spawn } from "node:child_process";

/**
 * Opens a URL in the user's browser, best effort: `$BROWSER` when set, else the platform's opener.
 * A failure is silent: the URL is printed too, so the user can open it by hand.
 */
export function openBrowser(url: URL, env: Readonly<Record<string, string | undefined>>): void {
  const [file, ...args] = env.BROWSER
    ? [env.BROWSER]
    : process.platform === "darwin"
      ? ["open"]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", '""']
        : ["xdg-open"];
  try {
    const child = spawn(file ?? "xdg-open", [...args, url.href], { stdio: "ignore", detached: true });
    child.on("error", () => {});
    child.unref();
  } catch {
    // The printed link is the fallback.
  }
}
