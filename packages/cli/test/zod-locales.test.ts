import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const HOOK = new URL("../dist/launch/zod-locales-hook.js", import.meta.url).href;
// zod is core's dependency: the child resolves it from there, as `arbor` does.
const CORE = fileURLToPath(new URL("../../core/", import.meta.url));

/** Runs `body` (an ES module's text, with `z`, `real` (zod's own locales namespace) and `log` in scope) in a process `arbor`'s hook is in. */
function withHook(body: string): string {
  const code = `
    (await import(${JSON.stringify(HOOK)})).loadZodLocalesOnUse();
    const { z } = await import("zod");
    const real = await import("zod/v4/locales");
    const log = (value) => console.log(JSON.stringify(value));
    ${body}`;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd: CORE, encoding: "utf8" });
  expect(child.status, child.stderr).toBe(0);
  return child.stdout.trim();
}

describe("zod's locales in the arbor process", () => {
  it("z.locales stands in for zod's namespace under every one of its names", () => {
    const out = withHook("log([Object.keys(z.locales), Object.keys(real), z.locales === real]);");
    const [stand, zods, same] = JSON.parse(out) as [string[], string[], boolean];
    expect(same, "the hook put nothing in place of zod's namespace").toBe(false);
    expect(stand).toEqual(zods);
  });

  it("a locale asked for is zod's own: its messages are the same", () => {
    const out = withHook(`
      const message = () => z.string().safeParse(1).error.issues[0].message;
      const seen = [];
      for (const name of Object.keys(real)) {
        z.config(real[name]());
        const theirs = message();
        z.config(z.locales[name]());
        seen.push([name, theirs, message()]);
      }
      log(seen);`);
    const seen = JSON.parse(out) as [string, string, string][];
    expect(seen.length).toBeGreaterThan(50);
    for (const [name, theirs, ours] of seen) expect(ours, name).toBe(theirs);
    expect(seen.find(([name]) => name === "fr")?.[2]).toMatch(/chaîne/);
  });
});
