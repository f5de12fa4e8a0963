import { existsSync, mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";

/**
 * The test setup picks the browser (ARBOR_CHROMIUM, a system Chromium, or the build packaged in
 * @sparticuz/chromium) and names it here, with the library folder the packaged build may need.
 */
const EXECUTABLE = process.env.ARBOR_TEST_CHROMIUM ?? process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium";
const LIBRARIES = process.env.ARBOR_TEST_CHROMIUM_LIBS;

/** Screenshots land here (gitignored), for a person to look at after a run. */
export const ARTIFACTS = fileURLToPath(new URL("../../../../test-artifacts/web/", import.meta.url));

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(EXECUTABLE)) {
    throw new Error(`No Chromium at ${EXECUTABLE}: set ARBOR_CHROMIUM to a Chromium or Chrome executable.`);
  }
  return chromium.launch({
    executablePath: EXECUTABLE,
    headless: true,
    // System folders first: the packaged libraries only fill in what the machine lacks.
    ...(LIBRARIES ? { env: { ...process.env, LD_LIBRARY_PATH: withLibraries(LIBRARIES) } } : {}),
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

function withLibraries(extra: string): string {
  const system = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"];
  return [process.env.LD_LIBRARY_PATH, ...system, extra].filter(Boolean).join(":");
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
