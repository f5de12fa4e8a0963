import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/*
 * Front doors translate; the runtime decides. HTTP routes, protocols, the cluster worker and CLI
 * commands map their wire to runtime calls (`runtime.runs`, `runtime.sessions`, `runtime.asks`) and
 * never write the store, take a session's lease or judge "busy" themselves. This test reads their
 * sources with the type checker, so a write through any variable typed as a Store is found, whatever
 * it is called.
 */

const ROOT = resolve(import.meta.dirname, "../../..");
const FRONT_DOORS = ["packages/server/src", "packages/cli/src"];

/** Every member of core's `Store`, sorted into what writes a session and what only reads. */
const STORE_WRITES = new Set([
  "createSession",
  "updateSession",
  "deleteSession",
  "appendEntry",
  "appendEntries",
  "appendMessage",
  "appendThinkingLevelChange",
  "appendModelChange",
  "appendCompaction",
  "appendBranchSummary",
  "appendLabelChange",
  "appendSessionInfo",
  "updateEntry",
  "purgeEntries",
  "purgeEvents",
  "switchLeaf",
  "resetLeaf",
  "createBranchedSession",
  "postInbox",
  "cacheGoalTree",
  "acquireLease",
  "importSession",
  "createAsk",
  "answerAsk",
  // API tokens: added and revoked through runtime.access.
  "tokens",
]);
/** Writes of a run's recorded event stream: they move into the runtime with run recording (see below). */
const STORE_RUN_RECORDING = new Set(["appendEvents", "appendEventsWithin"]);
const STORE_READS = new Set([
  "provider",
  "getSession",
  "listSessions",
  "listEntries",
  "getEntry",
  "getActivePath",
  "getLivePath",
  "getSnapshot",
  "listEvents",
  "lastEventId",
  "readInbox",
  "inboxMayHaveNew",
  "leaseHolder",
  "exportSession",
  "getAsk",
  "listAsks",
  "close",
]);

/** Core functions that write a session (or an approvals file), take a lease or build a busy verdict. */
const WRITING_HELPERS = new Set([
  "revertSession",
  "unrevertSession",
  "steerSession",
  "revokeScopedApproval",
  "addToApprovalFile",
  "removeFromApprovalFile",
  "appendCustom",
  "appendEntry",
  "appendMessage",
  "compactContext",
  "continueFromEntry",
  "withLease",
  "sessionBusy",
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return sourceFiles(path);
    return d.name.endsWith(".ts") && !d.name.endsWith(".d.ts") ? [path] : [];
  });
}

interface Finding {
  where: string;
  what: string;
}

/** Who declares the member a property access reaches: `Store`, `RunEventLog`, or another. */
function ownerOf(checker: ts.TypeChecker, name: ts.MemberName): string | undefined {
  const symbol = checker.getSymbolAtLocation(name);
  for (const decl of symbol?.declarations ?? []) {
    const parent = decl.parent;
    if ((ts.isInterfaceDeclaration(parent) || ts.isClassDeclaration(parent)) && parent.name) return parent.name.text;
  }
  return undefined;
}

function scan(): { writes: Finding[]; recording: Finding[] } {
  const files = FRONT_DOORS.flatMap((dir) => sourceFiles(join(ROOT, dir)));
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ["node"],
    baseUrl: ROOT,
    paths: {
      "@arbor/core": ["packages/core/src/index.ts"],
      "@arbor/core/*": ["packages/core/src/entries/*.ts"],
    },
  });
  const checker = program.getTypeChecker();
  const writes: Finding[] = [];
  const recording: Finding[] = [];
  for (const file of files) {
    const source = program.getSourceFile(file);
    if (!source) throw new Error(`${file} was not read`);
    const where = (node: ts.Node) =>
      `${relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`;
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        const from = node.moduleSpecifier.text;
        const named = node.importClause?.namedBindings;
        if (from.startsWith("@arbor/core") && named && ts.isNamedImports(named)) {
          for (const spec of named.elements) {
            const name = (spec.propertyName ?? spec.name).text;
            if (WRITING_HELPERS.has(name)) writes.push({ where: where(spec), what: `imports ${name}` });
          }
        }
      }
      if (ts.isPropertyAccessExpression(node)) {
        const member = node.name.text;
        if (STORE_WRITES.has(member) || STORE_RUN_RECORDING.has(member)) {
          if (ownerOf(checker, node.name) === "Store") {
            (STORE_WRITES.has(member) ? writes : recording).push({ where: where(node), what: `store.${member}` });
          }
        }
        if (member === "record" && ownerOf(checker, node.name) === "RunEventLog") {
          recording.push({ where: where(node), what: "events.record" });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return { writes, recording };
}

/** Every member `Store` declares, read from its source, so a new one must be sorted above. */
function storeMembers(): string[] {
  const path = join(ROOT, "packages/core/src/store/store.ts");
  const source = ts.createSourceFile(path, ts.sys.readFile(path) ?? "", ts.ScriptTarget.ES2022);
  const store = source.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === "Store",
  );
  return (store?.members ?? []).flatMap((m) => (m.name && ts.isIdentifier(m.name) ? [m.name.text] : []));
}

/**
 * Run recording (`runtime.events.record`, the cluster's queued-chat record) moves into the runtime in
 * a change of its own. Until it lands these stay where they are; once merged, set this to true so
 * the check below holds front doors to it as well.
 */
const RUN_RECORDING_IN_RUNTIME = true;

describe("front doors translate; the runtime decides", () => {
  const found = scan();

  it("every Store member is sorted into a write or a read", () => {
    const sorted = new Set([...STORE_WRITES, ...STORE_RUN_RECORDING, ...STORE_READS]);
    expect(storeMembers().filter((m) => !sorted.has(m))).toEqual([]);
    expect(storeMembers().length).toBeGreaterThan(20);
  });

  it("no server or CLI module writes a session, takes its lease or judges busy itself", () => {
    expect(found.writes).toEqual([]);
  });

  it.skipIf(!RUN_RECORDING_IN_RUNTIME)("no server or CLI module records a run's events itself", () => {
    expect(found.recording).toEqual([]);
  });

  // Fails once run recording has moved into the runtime: then set RUN_RECORDING_IN_RUNTIME above.
  it.runIf(!RUN_RECORDING_IN_RUNTIME)("run recording is still done by front doors (the check above waits for its move)", () => {
    expect(found.recording.map((f) => f.what)).toContain("events.record");
  });
}, 180_000);
