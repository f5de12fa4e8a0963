import { describe, expect, it } from "vitest";
import { startServer } from "./helpers/server.js";

describe("GET /api/docs", () => {
  it("serves the interactive reference and its assets without a token, the document still behind it", async () => {
    const { api } = await startServer({ server: { token: "s3cret" } });
    const page = await api("/api/docs", { headers: { authorization: "" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    for (const asset of ["swagger-ui.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "init.js"]) {
      expect(html).toContain(`/api/docs/${asset}`);
      const res = await api(`/api/docs/${asset}`, { headers: { authorization: "" } });
      expect(res.status, asset).toBe(200);
      expect(res.headers.get("content-type"), asset).toMatch(asset.endsWith(".css") ? /^text\/css/ : /^text\/javascript/);
      expect((await res.text()).length, asset).toBeGreaterThan(asset === "init.js" ? 100 : 10_000);
    }
    const init = await (await api("/api/docs/init.js", { headers: { authorization: "" } })).text();
    expect(init).toContain('"/api/openapi.json"');
    expect(init).toContain('localStorage.getItem("arbor.token")');
    // The document the page loads is still the API's, behind the token.
    expect((await api("/api/openapi.json", { headers: { authorization: "" } })).status).toBe(401);
    expect((await api("/api/openapi.json")).status).toBe(200);
  });

  it("refuses an asset it does not serve, naming the ones it does", async () => {
    const { api } = await startServer();
    const res = await api("/api/docs/..%2Fpackage.json");
    expect(res.status).toBe(400);
    const missing = await api("/api/docs/index.html");
    expect(missing.status).toBe(400);
    expect(JSON.stringify(await missing.json())).toContain("swagger-ui.css");
  });
});
