import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const publicEntry = resolve(root, "src/index.ts");
const entriesDir = resolve(root, "src/entries");

/** Above this the public entry stops being a list a user can read through. */
const MAX_PUBLIC_NAMES = 120;
/** Runtime values over every entry point together: what a release promises to keep loadable. */
const MAX_RUNTIME_VALUES = 250;
/**
 * Entries that re-export some of the public entry's own names (the same bindings, never new ones) so a
 * command can reach them without loading the whole runtime: the one exception to "one name, one entry".
 */
const PUBLIC_SUBSETS = new Set(["@arbor/core/open"]);

interface EntryExports {
  values: string[];
  types: string[];
}

/**
 * The names an entry really exports, as the compiler resolves them (re-exports followed), split into
 * runtime values and type-only names. A name exported with `type` counts as a type even when it is a class.
 */
function entryExports(program: ts.Program, file: string): EntryExports {
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`${file} is not in the program`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) throw new Error(`${file} exports nothing`);
  const values: string[] = [];
  const types: string[] = [];
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const declaration = symbol.declarations?.[0];
    const typeOnly =
      declaration !== undefined &&
      ts.isExportSpecifier(declaration) &&
      (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly);
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (!typeOnly && target.flags & ts.SymbolFlags.Value) values.push(symbol.name);
    else types.push(symbol.name);
  }
  return { values: values.sort(), types: types.sort() };
}

/** The declaration each name an entry exports stands for, re-exports followed. */
function exportTargets(program: ts.Program, file: string): Map<string, ts.Symbol> {
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
  const out = new Map<string, ts.Symbol>();
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    out.set(symbol.name, symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  }
  return out;
}

/** The lines of a README section, from its `## ` heading to the next one. */
function section(readme: string, heading: string): string {
  const start = readme.search(new RegExp(`^## ${heading}$`, "m"));
  if (start < 0) return "";
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** The names each "- `A`, `B` — …" line of the README's "Public API" section documents. */
function documentedNames(text: string): string[] {
  const names: string[] = [];
  for (const line of text.matchAll(/^- ((?:`[\w$]+`(?:, )?)+) — /gm)) {
    for (const name of line[1]!.matchAll(/`([\w$]+)`/g)) names.push(name[1]!);
  }
  return names;
}

interface EntryPoint {
  /** The import specifier: `@arbor/core` or `@arbor/core/<name>`. */
  specifier: string;
  /** The source file the package.json export's built file comes from. */
  file: string;
}

/** The entry points package.json `exports` lists, each mapped from its types' file to its source file. */
function packageEntryPoints(): EntryPoint[] {
  const pkg = JSON.parse(readFileSync(resolve(root, "package.json"), "utf8")) as {
    exports: Record<string, { types: string; default: string }>;
  };
  return Object.entries(pkg.exports).map(([key, target]) => {
    const source = target.types.replace(/^\.\/dist\//, "src/").replace(/\.d\.ts$/, ".ts");
    // The code is the bundle's entry made from that module (scripts/bundle-core.mjs names it so).
    const name = key === "." ? "index" : key.slice(2);
    expect(target.default, `${key}'s code is the bundle's entry of its module`).toBe(`./dist-bundle/${name}.js`);
    expect(target.types).toBe(name === "index" ? "./dist/index.d.ts" : `./dist/entries/${name}.d.ts`);
    return { specifier: key === "." ? "@arbor/core" : `@arbor/core/${key.slice(2)}`, file: resolve(root, source) };
  });
}

const entryPoints = packageEntryPoints();
const program = ts.createProgram(
  entryPoints.map((e) => e.file),
  {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  },
);
const exportsOf = new Map(entryPoints.map((e) => [e.specifier, entryExports(program, e.file)]));
const pub = exportsOf.get("@arbor/core")!;
const publicNames = [...pub.values, ...pub.types].sort();
const readme = readFileSync(resolve(root, "README.md"), "utf8");

describe("the public entry @arbor/core", () => {
  it("tells runtime values from type-only names", () => {
    expect(pub.values).toContain("createRuntime");
    expect(pub.values).toContain("ArborError");
    expect(pub.types).toContain("Runtime");
    expect(pub.types).not.toContain("createRuntime");
  });

  it(`exports at most ${MAX_PUBLIC_NAMES} names, runtime values and types together`, () => {
    expect(publicNames.length, `values ${pub.values.length}, types ${pub.types.length}`).toBeLessThanOrEqual(MAX_PUBLIC_NAMES);
  });

  it("documents every public name in the README's Public API list, and lists nothing it does not export", () => {
    const text = section(readme, "Public API");
    expect(text, "packages/core/README.md has a `## Public API` section").not.toBe("");
    const documented = new Set(documentedNames(text));
    expect(publicNames.filter((n) => !documented.has(n))).toEqual([]);
    expect([...documented].filter((n) => !publicNames.includes(n))).toEqual([]);
  });
});

describe("the entry points of @arbor/core", () => {
  it(`export at most ${MAX_RUNTIME_VALUES} runtime values together`, () => {
    const rows = [...exportsOf].map(([specifier, e]) => ({
      entry: specifier,
      names: e.values.length + e.types.length,
      values: e.values.length,
    }));
    const total = rows.reduce((sum, r) => sum + r.values, 0);
    console.log(
      [
        "entry point                  names  values",
        ...rows.map((r) => `${r.entry.padEnd(28)} ${String(r.names).padStart(5)}  ${String(r.values).padStart(6)}`),
        `${"total".padEnd(28)} ${String(rows.reduce((s, r) => s + r.names, 0)).padStart(5)}  ${String(total).padStart(6)}`,
      ].join("\n"),
    );
    expect(total).toBeLessThanOrEqual(MAX_RUNTIME_VALUES);
  });

  it("name every export by hand: no `export *` in any entry file", () => {
    for (const { specifier, file } of entryPoints) {
      const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
      const starred = source.statements
        .filter(
          (s): s is ts.ExportDeclaration =>
            ts.isExportDeclaration(s) && (s.exportClause === undefined || ts.isNamespaceExport(s.exportClause)),
        )
        .map((s) => s.moduleSpecifier?.getText(source));
      expect(starred, specifier).toEqual([]);
    }
  });

  it("never export the same name twice, so every name has one place to import it from", () => {
    const seen = new Map<string, string>();
    const twice: string[] = [];
    for (const [specifier, e] of exportsOf) {
      if (PUBLIC_SUBSETS.has(specifier)) continue;
      for (const name of [...e.values, ...e.types]) {
        if (seen.has(name)) twice.push(`${name} in ${seen.get(name)} and ${specifier}`);
        seen.set(name, specifier);
      }
    }
    expect(twice).toEqual([]);
  });

  it("re-export, where they are a subset of the public entry, only its names and the same bindings", () => {
    const publicTargets = exportTargets(program, publicEntry);
    for (const specifier of PUBLIC_SUBSETS) {
      const entry = entryPoints.find((e) => e.specifier === specifier);
      expect(entry, `${specifier} is in package.json`).toBeDefined();
      const targets = exportTargets(program, entry!.file);
      expect(targets.size, specifier).toBeGreaterThan(0);
      const foreign = [...targets].filter(([name, target]) => publicTargets.get(name) !== target).map(([name]) => name);
      expect(foreign, `${specifier} exports these, which are not the public entry's`).toEqual([]);
    }
  });

  it("are each a file of src/entries listed in package.json, and every such file is listed", () => {
    for (const { specifier, file } of entryPoints) expect(existsSync(file), `${specifier}: ${relative(root, file)}`).toBe(true);
    expect(entryPoints.find((e) => e.specifier === "@arbor/core")?.file).toBe(publicEntry);
    const listed = new Set(entryPoints.map((e) => e.file));
    const files = readdirSync(entriesDir)
      .filter((f) => f.endsWith(".ts"))
      .map((f) => resolve(entriesDir, f));
    expect(files.filter((f) => !listed.has(f)).map((f) => relative(root, f))).toEqual([]);
  });

  it("are imported by no core module, so an entry only gathers and never sits inside a cycle", () => {
    const entryFiles = new Set(entryPoints.map((e) => e.file));
    const offenders: string[] = [];
    const visit = (dir: string) => {
      for (const name of readdirSync(dir, { withFileTypes: true })) {
        const full = resolve(dir, name.name);
        if (name.isDirectory()) visit(full);
        else if (full.endsWith(".ts") && !entryFiles.has(full)) {
          for (const m of readFileSync(full, "utf8").matchAll(/from\s+"(\.[^"]+)\.js"/g)) {
            if (entryFiles.has(resolve(dirname(full), `${m[1]}.ts`)))
              offenders.push(`${relative(root, full)} imports ${m[1]}.js`);
          }
        }
      }
    };
    visit(resolve(root, "src"));
    expect(offenders).toEqual([]);
  });

  it("are each named and described in the README's Entry points section", () => {
    const text = section(readme, "Entry points");
    expect(text, "packages/core/README.md has a `## Entry points` section").not.toBe("");
    const described = new Set([...text.matchAll(/^- `(@arbor\/core(?:\/[\w-]+)?)` — \S/gm)].map((m) => m[1]));
    expect(entryPoints.map((e) => e.specifier).filter((s) => !described.has(s))).toEqual([]);
    expect([...described].filter((s) => !entryPoints.some((e) => e.specifier === s))).toEqual([]);
  });
});
