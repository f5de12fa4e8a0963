import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll } from "vitest";
import { launchBrowser, openPage, type PageOptions } from "./browser.js";
import { startWebServer, type WebServer, type WebServerOptions } from "./server.js";

export interface BrowserSuite {
  /** The file's Chromium, launched before its first test. */
  readonly browser: Browser;
  /** A fresh page in the file's browser. */
  page(options?: PageOptions): Promise<Page>;
  /** A server for the test that starts it, closed when that test ends (passed or failed). */
  server(options?: WebServerOptions): Promise<WebServer>;
  /** A server for the whole file (start it in a `beforeAll`), closed after the file's last test. */
  fileServer(options?: WebServerOptions): Promise<WebServer>;
}

/**
 * The hooks every browser test file needs: one Chromium for the file, and the servers its tests start
 * closed when they are done with, before the browser. Call it once at the top of a test file, before
 * any hook of the file's own, so the browser is up when those run.
 */
export function browserSuite(): BrowserSuite {
  let browser: Browser | undefined;
  const testServers: WebServer[] = [];
  const fileServers: WebServer[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterEach(() => closeAll(testServers));
  afterAll(async () => {
    await closeAll(fileServers);
    await browser?.close();
  });
  const suite: BrowserSuite = {
    get browser() {
      if (!browser) throw new Error("The browser is launched in beforeAll: use it from a hook or a test.");
      return browser;
    },
    page: (options) => openPage(suite.browser, options),
    server: async (options) => kept(testServers, await startWebServer(options)),
    fileServer: async (options) => kept(fileServers, await startWebServer(options)),
  };
  return suite;
}

function kept(list: WebServer[], server: WebServer): WebServer {
  list.push(server);
  return server;
}

async function closeAll(servers: WebServer[]): Promise<void> {
  for (const server of servers.splice(0)) await server.close();
}
