import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore, type Store } from "@arbor/core";
import { delay, hang, type ScriptAction, type StepContext, text, toolCall } from "@arbor/testkit";
import { otherHostsWork } from "../../packages/cli/test/helpers/cli.js";
import { type Instance, startInstance } from "../../packages/cli/test/helpers/cluster.js";
import { FaultRig } from "../../packages/cli/test/helpers/fault.js";
import { createTestDatabase, POSTGRES_URL } from "../../packages/cli/test/helpers/postgres.js";
import { CuttableProxy } from "./proxy.js";

/**
 * What every trial shares: a fresh PostgreSQL database, the scripted provider, one workspace whose
 * `effects.log` the runs' bash lines append to, and three `arbor serve --cluster` instances, each
 * reaching the database through a proxy of its own that a trial can cut. A killed instance is
 * restarted at once under the same name and proxy, as systemd or docker would.
 */

export const INSTANCE_NAMES = ["A", "B", "C"] as const;

export interface WorldOptions {
  takeoverMs: number;
  /** Planted fault: the scripted model runs a job's first bash line again at its last turn. */
  doubleEffect: boolean;
  /** Planted fault: the scripted model never answers a job's last turn. */
  hang: boolean;
}

interface Body {
  tools?: unknown[];
  messages?: Array<{ role: string; content: unknown }>;
}

const textOf = (content: unknown) => (typeof content === "string" ? content : JSON.stringify(content));

/** A stable small number from a string, so a job's pace depends on its trial, not on timing. */
function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/**
 * One job is three model calls: a bash line that appends the marker `<tag>-s0` to effects.log, a
 * second one (`<tag>-s1`; with `printf` instead of `echo` when the prompt says "ask", which the
 * workspace's permissions make an ask), and the answer `[<tag>] done.`. The turn is the number of
 * answers since the job's prompt, so a run woken on another instance is answered as the first would
 * have been. A prompt starting "follow-up" is answered in one call.
 */
export function jobStep(opts: WorldOptions) {
  return (call: StepContext): readonly ScriptAction[] => {
    const body = (call.source === "http" ? call.body : {}) as Body;
    if (!body.tools) return [text("Job")];
    const messages = body.messages ?? [];
    const lastUser = messages.findLastIndex((m) => m.role === "user");
    const prompt = textOf(messages[lastUser]?.content);
    if (prompt.includes("follow-up")) return [text("Noted.")];
    const tag = /job (t\d+)/.exec(prompt)?.[1] ?? "x";
    const turn = messages.slice(lastUser).filter((m) => m.role === "assistant").length;
    const pace = delay((hash(`${tag}/${turn}`) % 250) + 20);
    const write = prompt.includes("ask") ? "printf '%s\\n'" : "echo";
    switch (turn) {
      case 0:
        return [text(`Starting ${tag}. `), pace, toolCall("bash", { command: `echo ${tag}-s0 >> effects.log` })];
      case 1:
        return [pace, toolCall("bash", { command: `${write} ${tag}-s1 >> effects.log` })];
      case 2:
        if (opts.doubleEffect) return [pace, toolCall("bash", { command: `echo ${tag}-s0 >> effects.log` })];
        if (opts.hang) return [hang()];
        return [text("Job "), pace, text(`[${tag}] done.`)];
      default:
        return [text(`[${tag}] done.`)];
    }
  };
}

export class World {
  readonly instances = new Map<string, Instance>();
  /** Every instance started, dead or alive, for their stderr lines. */
  readonly everyInstance: Instance[] = [];
  readonly proxies = new Map<string, CuttableProxy>();
  private readonly restarting = new Set<string>();
  /** Instances that exited without a kill, with their last stderr lines. */
  readonly crashes: string[] = [];
  private closing = false;

  private constructor(
    readonly dir: string,
    readonly rig: FaultRig,
    readonly db: { url: string; drop(): Promise<void> },
    readonly store: Store,
    readonly baseURL: string,
    readonly ownHosts: boolean,
    readonly opts: WorldOptions,
  ) {}

  get workspace(): string {
    return join(this.dir, "ws");
  }
  get home(): string {
    return join(this.dir, "home");
  }
  /** The file store the `run-file` trials' processes share (in their ARBOR_HOME). */
  fileStore(): { home: string; store: undefined } {
    return { home: join(this.dir, "home-file"), store: undefined };
  }
  /** The SQLite database the `run-sqlite` trials' processes share. */
  sqliteStore(): { home: string; store: string } {
    return { home: join(this.dir, "home-sqlite"), store: `sqlite:${join(this.dir, "chaos.db")}` };
  }

  static async create(opts: WorldOptions, trials: number): Promise<World> {
    const dir = await mkdtemp(join(tmpdir(), "arbor-chaos-"));
    await mkdir(join(dir, "ws"));
    // The runs' echo lines run without asking; printf asks (the ask trials).
    await writeFile(join(dir, "ws", "arbor.json"), JSON.stringify({ permission: { bash: { "*": "ask", "echo *": "allow" } } }));
    const db = await createTestDatabase();
    const rig = new FaultRig(() => join(dir, "ws"));
    const baseURL = await rig.fakeServer(Array.from({ length: trials * 20 + 500 }, () => jobStep(opts)));
    const store = await openStore(db.url);
    const world = new World(dir, rig, db, store, baseURL, otherHostsWork(), opts);
    const pg = new URL(POSTGRES_URL);
    for (const name of INSTANCE_NAMES) {
      world.proxies.set(name, await CuttableProxy.start({ host: pg.hostname, port: Number(pg.port || 5432) }));
      await world.launch(name);
    }
    return world;
  }

  /** The database URL as instance `name` reaches it: through its proxy. */
  private storeUrl(name: string): string {
    const url = new URL(this.db.url);
    url.port = String((this.proxies.get(name) as CuttableProxy).port);
    return url.toString();
  }

  private async launch(name: string): Promise<Instance> {
    const inst = await startInstance(this.rig, name, {
      baseURL: this.baseURL,
      home: this.home,
      store: this.storeUrl(name),
      takeoverMs: this.opts.takeoverMs,
      cwd: this.workspace,
      ...(this.ownHosts ? { host: `arbor-chaos-${name.toLowerCase()}` } : {}),
    });
    this.instances.set(name, inst);
    this.everyInstance.push(inst);
    // An instance that exits without being killed (a database fault took it down) is a finding and is restarted.
    void inst.cli.result.then(() => {
      if (!inst.up || this.closing) return;
      // The error's own lines (Node ends a crash with the source line, a caret and its version): what to fix.
      const said = inst.lines.slice(-30).filter((l) => /error|Error|at /.test(l.line));
      this.crashes.push(
        `${name} exited by itself: ${said
          .slice(0, 6)
          .map((l) => l.line.trim().slice(0, 200))
          .join(" | ")}`,
      );
      void this.killAndRestart(inst).catch(() => undefined);
    });
    return inst;
  }

  live(): Instance[] {
    return [...this.instances.values()].filter((i) => i.up);
  }

  /** kill -9 of an instance, then a restart at once (retried while its proxy is cut). */
  async killAndRestart(inst: Instance): Promise<void> {
    if (!inst.up || this.restarting.has(inst.name)) return;
    this.restarting.add(inst.name);
    inst.up = false;
    inst.cli.child.kill("SIGKILL");
    await inst.cli.result;
    try {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.launch(inst.name);
          return;
        } catch (err) {
          if (attempt >= 20) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    } finally {
      this.restarting.delete(inst.name);
    }
  }

  /** The instance whose process holds the session's lease, or undefined if none does within `ms`. */
  async driverOf(sessionId: string, ms: number): Promise<Instance | undefined> {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      const holder = await this.store.leaseHolder(sessionId).catch(() => undefined);
      const inst = holder ? this.live().find((i) => i.cli.child.pid === holder.pid) : undefined;
      if (inst) return inst;
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  }

  async close(): Promise<void> {
    this.closing = true;
    for (const inst of this.instances.values()) inst.up = false;
    await this.rig.cleanup();
    for (const p of this.proxies.values()) await p.close();
    await this.store.close();
    await this.db.drop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
