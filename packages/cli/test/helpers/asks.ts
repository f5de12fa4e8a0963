import type { Script } from "@arbor/testkit";
import { expect, vi } from "vitest";
import type { RunningCli } from "./cli.js";
import type { CliE2e } from "./e2e.js";

/** An ask as `arbor approvals pending --json` lists it. */
export interface ListedAsk {
  kind: string;
  id: string;
  sessionId: string;
  plan?: { planId: string; title: string };
  permission?: { request: { permission: string; patterns: string[] } };
  elicitation?: { server: string; mode: string; url?: string };
}

/** The asks waiting in the store of the test's home, by `arbor approvals pending --json`. */
export async function pendingAsks(e2e: Pick<CliE2e, "cli">): Promise<ListedAsk[]> {
  const r = await e2e.cli(["approvals", "pending", "--json"]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { asks: ListedAsk[] }).asks;
}

/**
 * Waits until a running `arbor run` has an MCP elicitation waiting as an ask that `check` accepts
 * (asked again until it does: the run raises it when it gets there), and gives its id.
 */
export async function waitForElicitation(
  e2e: Pick<CliE2e, "cli">,
  check: (elicitation: ListedAsk["elicitation"]) => void,
): Promise<string> {
  return vi.waitFor(
    async () => {
      const ask = (await pendingAsks(e2e)).find((a) => a.kind === "elicitation");
      check(ask?.elicitation);
      return ask?.id ?? "";
    },
    { timeout: 60_000, interval: 500 },
  );
}

/** A run that comes to wait on an MCP elicitation, and how it is listed. */
export interface ElicitingRun {
  /** The fake provider's script: its first turn calls the MCP tool that elicits. */
  script: Script;
  prompt: string;
  /** Checks the listed ask's elicitation (asked again until it passes). */
  check: (elicitation: ListedAsk["elicitation"]) => void;
  /** What `arbor approvals pending` must show a person for it. */
  shows: string;
}

/**
 * Starts `arbor run` with the prompt on a fake provider that follows the script, waits for the MCP
 * elicitation the run then waits on and checks both listings of it; gives the run and the ask's id.
 */
export async function runToElicitation(e2e: CliE2e, asked: ElicitingRun): Promise<{ run: RunningCli; id: string }> {
  const fake = await e2e.startFake({ script: asked.script });
  const run = e2e.startArbor(e2e.runArgs(fake.baseURL, asked.prompt));
  const id = await waitForElicitation(e2e, asked.check);
  const human = await e2e.cli(["approvals", "pending"]);
  expect(human.stdout).toContain(asked.shows);
  return { run, id };
}
