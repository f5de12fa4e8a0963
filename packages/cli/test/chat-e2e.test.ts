import { hang, text, toolCall } from "@arbor/testkit";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { setupCliE2e } from "./helpers/e2e.js";
import { type ArborTerminal, startTerminal, TERMINAL_ARTIFACTS } from "./helpers/terminal.js";

/**
 * `arbor chat` in a pseudo-terminal, driven with real keystrokes against the fake provider; each
 * screen checked is also saved (text, HTML and, with Chromium at hand, PNG) under test-artifacts/cli.
 */
describe("arbor chat", () => {
  const e2e = setupCliE2e("arbor-cli-chat-", { files: { ".env": "SECRET_TOKEN=hunter2\n", "notes.md": "# notes\n" } });
  const pages = new Map<string, string>();
  let term: ArborTerminal | undefined;
  const start = (args: string[]) => {
    term = startTerminal(args, { home: e2e.home, cwd: e2e.workspace });
    return term;
  };
  const shot = (t: ArborTerminal, name: string) => pages.set(name, t.save(name));

  afterEach(() => term?.kill());
  afterAll(async () => {
    // A picture of each saved screen, for a person to look at; no Chromium, no pictures (the text and HTML stay).
    const { existsSync } = await import("node:fs");
    const executable = process.env.ARBOR_CHROMIUM ?? "/usr/bin/chromium";
    if (!existsSync(executable) || pages.size === 0) return;
    const { chromium } = await import("playwright-core");
    const browser = await chromium.launch({
      executablePath: executable,
      headless: true,
      args: ["--no-sandbox", "--disable-gpu"],
    });
    try {
      const page = await browser.newPage({ viewport: { width: 960, height: 620 } });
      for (const [name, html] of pages) {
        await page.setContent(html);
        await page.screenshot({ path: `${TERMINAL_ARTIFACTS}${name}.png`, fullPage: true });
      }
    } finally {
      await browser.close();
    }
  }, 60_000);

  it("runs a turn through a tool call and a permission ask answered with a key, forks, and draws the tree", async () => {
    const baseURL = await e2e.fake([
      [text("Let me look at the file."), toolCall("read", { path: ".env" })],
      [text("The file sets **SECRET_TOKEN**:\n\n- one variable\n- `hunter2` as its value")],
    ]);
    const t = start(["chat", ...e2e.modelArgs(baseURL)]);
    await t.waitFor(/arbor chat/);
    await t.waitFor(/new session · openai-compatible\/fake · build/);
    t.type("what is in .env?");
    await t.waitFor(/› what is in \.env\?/);
    t.type("\r");
    await t.waitFor(/allow read for \.env\? \[o\]nce/);
    shot(t, "chat-permission-ask");
    // Keys the question does not offer are ignored: the ask still waits.
    t.type("x");
    t.type("o");
    await t.waitFor(/✓ done/);
    const answered = t.all();
    expect(answered).toMatch(/allow read for \.env.*\bo$/m);
    expect(answered).toMatch(/✓ read \.env/);
    expect(answered).toContain("Let me look at the file.");
    // Markdown rendered: no asterisks or backticks, bullets drawn.
    expect(answered).toContain("The file sets SECRET_TOKEN:");
    expect(answered).toContain("• hunter2 as its value");
    await t.waitFor(/session \S+ · openai-compatible/);
    const sessionId = /session (\S+) · openai-compatible/.exec(t.screen())?.[1];
    expect(sessionId).toBeDefined();
    shot(t, "chat-answer");

    t.type("/fork");
    await t.waitFor(/› \/fork/);
    t.type("\r");
    await t.waitFor(/Forked session \S+ at entry \S+ into\s+\S+; you are now in the fork/);
    const [, from, forkId] = /Forked session (\S+) at entry \S+ into\s+(\S+);/.exec(t.all()) ?? [];
    expect(from).toBe(sessionId);
    expect(forkId).not.toBe(sessionId);
    await t.waitFor(new RegExp(`session ${forkId} · `));

    t.type("/tree");
    await t.waitFor(/│ › \/tree/);
    t.type("\r");
    await t.waitFor(/← leaf/);
    const tree = t.all().slice(t.all().lastIndexOf("› /tree"));
    expect(tree).toMatch(/\* \S{8} user: what is in \.env\?\n/);
    expect(tree).toMatch(/\* \S{8} assistant: The file sets \*\*SECRET_TOKEN\*\*: ← leaf/);

    // Back to the first answer, bookmarked: the tree shows the leaf and the label there.
    const first = /\* (\S{8}) assistant: Let me look/.exec(tree)?.[1] ?? "";
    t.type(`/leaf ${first}`);
    await t.waitFor(new RegExp(`│ › /leaf ${first}`));
    t.type("\r");
    await t.waitFor(new RegExp(`continues from entry ${first}`));
    t.type("/label first look");
    await t.waitFor(/│ › \/label first look/);
    t.type("\r");
    await t.waitFor(/Labelled entry \S+ "first look"/);
    t.type("/tree");
    await t.waitForScreen(/│ › \/tree/);
    t.type("\r");
    // The leaf moved back to the first answer; the label, an entry of its own, now hangs there, on a branch beside the old answer.
    await t.waitForScreen(/└─ \* \S{8} label: \S+ = "first look" ← leaf\n╭─+╮\n│ › /);
    expect(t.screen()).toMatch(
      new RegExp(`\\* ${first} assistant: Let me look at the file\\. → tool call: read \\[first look\\]`),
    );
    expect(t.screen()).toMatch(/│ {4}\S{8} assistant: The file sets/);
    shot(t, "chat-tree");

    t.type("\u0003");
    await t.waitFor(/press Ctrl-C again to quit/);
    t.type("\u0003");
    expect(await t.exit).toBe(0);

    // The fork is a session of its own in the store, holding the conversation up to its leaf.
    const listed = await e2e.arbor(["sessions", "list", "--json"]);
    const ids = (JSON.parse(listed.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
    expect(ids).toEqual(expect.arrayContaining([sessionId, forkId]));
    expect(e2e.server?.callCount).toBe(2);
  }, 240_000);

  // Retried once: under a full CI run's load a terminal wait has expired; a second failure still fails the test.
  it("stops a turn on Ctrl-C, keeps the session, and resumes it with --session", { retry: 1, timeout: 240_000 }, async () => {
    const baseURL = await e2e.fake([[text("Working on it"), hang()]]);
    const t = start(["chat", ...e2e.modelArgs(baseURL)]);
    await t.waitFor(/arbor chat/);
    // The text, then Enter once it shows: text and Enter in one write can reach the composer as a paste,
    // whose line break is kept as a new line (a full CI run saw the prompt wait, unsent, with two lines).
    t.type("take your time");
    await t.waitFor(/│ › take your time/);
    t.type("\r");
    await t.waitFor(/Working on it/);
    // Esc sends what is typed to the running turn as a steer.
    t.type("mind the tests");
    await t.waitFor(/│ › mind the tests/);
    t.type("\u001b");
    await t.waitFor(/↪ steer: mind the tests/);
    t.type("\u0003");
    await t.waitFor(/■ stopped/);
    await t.waitFor(/session \S+ · openai-compatible/);
    const sessionId = /session (\S+) · openai-compatible/.exec(t.screen())?.[1] ?? "";
    expect(sessionId).not.toBe("");
    t.type("/help");
    await t.waitFor(/│ › \/help/);
    t.type("\r");
    await t.waitFor(/\/resume <session>/);
    shot(t, "chat-stopped-help");
    t.type("/quit");
    await t.waitFor(/│ › \/quit/);
    t.type("\r");
    expect(await t.exit).toBe(0);

    // `arbor` alone, on a terminal, is a chat too.
    const again = start([...e2e.modelArgs(baseURL), "--session", sessionId.slice(0, 8)]);
    await again.waitFor(new RegExp(`session ${sessionId} — `));
    await again.waitFor(/you take your time/);
    // Up walks the prompt history kept from the earlier chat; Ctrl-U clears it, Ctrl-D on an empty prompt quits.
    again.type("\u001b[A");
    await again.waitForScreen(/│ › \/quit/);
    again.type("\u001b[A");
    await again.waitForScreen(/│ › \/help/);
    again.type("\u001b[A");
    await again.waitForScreen(/│ › take your time/);
    shot(again, "chat-resumed");
    again.type("\u0015");
    await again.waitForScreen(/│ › \s+│/);
    again.type("\u0004");
    expect(await again.exit).toBe(0);
  });

  it("asks for a plan's approval with a key, and takes the reason for a no as a line", async () => {
    const plan = toolCall("plan_create", { title: "Tidy up", steps: ["Look around", "Change things", "Check"] });
    const baseURL = await e2e.fake([[plan]]);
    const t = startTerminal(["chat", ...e2e.modelArgs(baseURL)], {
      home: e2e.home,
      cwd: e2e.workspace,
      env: { PLAN_REQUIRE_APPROVAL: "true" },
    });
    term = t;
    await t.waitFor(/arbor chat/);
    t.type("tidy the workspace");
    await t.waitFor(/│ › tidy the workspace/);
    t.type("\r");
    await t.waitFor(/run the plan "Tidy up" \(3 steps\)\? \[y\]es \/ \[n\]o/);
    await t.waitFor(/press y, n to answer/);
    shot(t, "chat-plan-ask");
    t.type("n");
    await t.waitFor(/why not\? \(optional\):/);
    t.type("too risky");
    await t.waitFor(/│ › too risky/);
    t.type("\r");
    await t.waitFor(/stopped because the plan was not approved/);
    expect(t.all()).toMatch(/why not\? \(optional\): too risky/);
    t.type("/quit");
    await t.waitFor(/│ › \/quit/);
    t.type("\r");
    expect(await t.exit).toBe(0);
  }, 240_000);

  it("is refused without a terminal, pointing at arbor run", async () => {
    const r = await e2e.arbor(["chat"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("arbor chat needs a terminal");
  }, 60_000);
});
