import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const publicEntry = resolve(root, "src/index.ts");
const internalEntry = resolve(root, "src/internal.ts");

/** Above this the public entry stops being a list a user can read through. */
const MAX_PUBLIC_NAMES = 120;

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

/** The names each "- `A`, `B` — …" line of the README's "Public API" section documents. */
function documentedNames(readme: string): { section: string; names: string[] } {
  const start = readme.search(/^## Public API$/m);
  if (start < 0) return { section: "", names: [] };
  const rest = readme.slice(start + 1);
  const end = rest.search(/^## /m);
  const section = end < 0 ? rest : rest.slice(0, end);
  const names: string[] = [];
  for (const line of section.matchAll(/^- ((?:`[\w$]+`(?:, )?)+) — /gm)) {
    for (const name of line[1]!.matchAll(/`([\w$]+)`/g)) names.push(name[1]!);
  }
  return { section, names };
}

const program = ts.createProgram([publicEntry, internalEntry], {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
});
const pub = entryExports(program, publicEntry);
const publicNames = [...pub.values, ...pub.types].sort();

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

  it("names every export by hand: no `export *`", () => {
    const source = ts.createSourceFile(publicEntry, readFileSync(publicEntry, "utf8"), ts.ScriptTarget.Latest);
    const starred = source.statements
      .filter((s): s is ts.ExportDeclaration => ts.isExportDeclaration(s) && s.exportClause === undefined)
      .map((s) => s.moduleSpecifier?.getText(source));
    expect(starred).toEqual([]);
  });

  it("documents every public name in the README's Public API list, and lists nothing it does not export", () => {
    const { section, names } = documentedNames(readFileSync(resolve(root, "README.md"), "utf8"));
    expect(section, "packages/core/README.md has a `## Public API` section").not.toBe("");
    const documented = new Set(names);
    expect(publicNames.filter((n) => !documented.has(n))).toEqual([]);
    expect([...documented].filter((n) => !publicNames.includes(n))).toEqual([]);
  });

  it("is a subset of @arbor/core/internal, so switching an import between the two never loses a name", () => {
    const internal = entryExports(program, internalEntry);
    const all = new Set([...internal.values, ...internal.types]);
    expect(publicNames.filter((n) => !all.has(n))).toEqual([]);
    expect(pub.values.filter((n) => !internal.values.includes(n))).toEqual([]);
  });
});
