import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

/** Debian's chromium (`apt-get install -y chromium`); CI installs it in .ci/run. */
const EXECUTABLE = process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium";

/** Screenshots land here (gitignored), for a person to look at after a run. */
export const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/web/", import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(EXECUTABLE)) {
    throw new Error(`No Chromium at ${EXECUTABLE}: install it with apt-get install -y chromium (or set ARBOR_CHROMIUM).`);
  }
  return chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

export interface PageOptions {
  width?: number;
  height?: number;
  colorScheme?: "light" | "dark";
}

/** A fresh context (own storage) and page; console errors fail loudly in the test output. */
export async function openPage(browser: Browser, options: PageOptions = {}): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1280, height: options.height ?? 720 },
    colorScheme: options.colorScheme ?? "light",
  });
  const page = await context.newPage();
  // Fail on the step that waits too long, well inside the test's own timeout.
  page.setDefaultTimeout(10_000);
  page.on("pageerror", (err) => console.error(`[page error] ${err.message}`));
  return page;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png` });
}
