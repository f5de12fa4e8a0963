import { describe, expect, it } from "vitest";
import { globMatcher, globToRegExp } from "../../src/tools/glob-pattern.js";

describe("globMatcher", () => {
  it.each([
    ["*.ts", "a.ts", true],
    ["*.ts", "src/deep/a.ts", true], // no slash: the name at any depth
    ["*.ts", "a.tsx", false],
    ["src/*.ts", "src/a.ts", true],
    ["src/*.ts", "src/x/a.ts", false],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**/*.ts", "lib/src/a.ts", false],
    ["**/*.md", "README.md", true],
    ["**/*.md", "docs/a/b.md", true],
    ["./src/*.ts", "src/a.ts", true],
    ["src/**", "src/a/b/c", true],
    ["*.{js,jsx}", "app.jsx", true],
    ["*.{js,jsx}", "app.ts", false],
    ["{src,lib}/**/*.{ts,tsx}", "lib/x/a.tsx", true],
    ["test_?.py", "test_1.py", true],
    ["test_?.py", "test_10.py", false],
    ["[abc].txt", "b.txt", true],
    ["[!abc].txt", "b.txt", false],
    ["[a-c].txt", "c.txt", true],
    ["file(1).txt", "file(1).txt", true],
    ["a+b.txt", "a+b.txt", true],
    ["a.txt", "aXtxt", false],
  ])("%s on %s: %s", (glob, path, expected) => {
    expect(globMatcher(glob)(path)).toBe(expected);
  });

  it("rejects an unclosed brace with a clear message", () => {
    expect(() => globToRegExp("*.{ts")).toThrow('The glob "*.{ts" has an unclosed "{"; close each {a,b} group.');
  });
});
