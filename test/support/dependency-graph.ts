/**
 * The architecture check's detectors, pure so that they can be proven on small
 * synthetic workspaces: which packages a source file imports, which uses break
 * a layering rule, and which cycles the workspace dependency graph has.
 */

/** How a package uses another: at run time, only in tests, or only in development. */
export type UseScope = "production" | "test" | "dev";

/** One use of something outside a package: a declared dependency or an import. */
export interface Use {
  /** A package name (`zod`, `@errand/core`, `node:fs`), or the specifier of a relative import that leaves the package. */
  target: string;
  /** Where the use is: a source file relative to the package, or `package.json#dependencies`. */
  site: string;
  scope: UseScope;
  /** True for a relative import that reaches outside its own package. */
  escapes?: boolean;
}

/** A workspace package as the architecture check sees it. */
export interface WorkspacePackage {
  name: string;
  /** Its folder relative to the repository root, e.g. `packages/core`. */
  dir: string;
  kind: "package" | "app";
  uses: Use[];
}

/** A layering rule for one package. */
export interface DependencyRule {
  /** The package the rule is about. */
  from: string;
  /** Packages it must never use, in any scope. */
  forbid?: readonly string[];
  /** The only packages its production code and runtime dependencies may use. */
  allowOnly?: readonly string[];
  /** Why, for the failure message. */
  why: string;
}

/** One broken rule. */
export interface Violation {
  package: string;
  site: string;
  target: string;
  rule: string;
}

const STATIC_IMPORT =
  /^[ \t]*(?:import|export)(?:[ \t]+type)?[\w\s{},*$]*?\bfrom[ \t]*["']([^"'\n]+)["']/gm;
const SIDE_EFFECT_IMPORT = /^[ \t]*import[ \t]*["']([^"'\n]+)["']/gm;
const DYNAMIC_IMPORT = /\bimport[ \t]*\([ \t]*["']([^"'\n]+)["'][ \t]*\)/g;
const BLOCK_COMMENT = /\/\*[\s\S]*?\*\//g;
const LINE_COMMENT = /(^|[ \t;{}()])\/\/.*$/gm;

/**
 * The module specifiers a TypeScript source imports or re-exports:
 * `import … from "x"`, `export … from "x"`, `import "x"` and `import("x")`.
 * Comments are ignored, so a usage example in TSDoc is not an import.
 */
export function importSpecifiers(source: string): string[] {
  const code = source.replace(BLOCK_COMMENT, "").replace(LINE_COMMENT, "$1");
  const found = [STATIC_IMPORT, SIDE_EFFECT_IMPORT, DYNAMIC_IMPORT].flatMap((pattern) =>
    [...code.matchAll(pattern)].map((match) => match[1]!),
  );
  return [...new Set(found)];
}

/** True for `./x`, `../x` and absolute paths: imports of files rather than packages. */
export function isRelativeSpecifier(specifier: string): boolean {
  return specifier.startsWith(".") || specifier.startsWith("/");
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `zod/v4` → `zod`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

/**
 * True for files that only tests load: `*.test.ts`, `*.spec.ts`, what they
 * compile to (`*.test.js`, `*.test.d.ts`, …) and anything under `test-support/`.
 */
export function isTestFile(path: string): boolean {
  return (
    /\.(test|spec)\.(d\.)?[cm]?[tj]sx?(\.map)?$/.test(path) || /(^|\/)test-support\//.test(path)
  );
}

function describeRule(rule: DependencyRule, kind: "forbid" | "allowOnly"): string {
  const list = kind === "forbid" ? rule.forbid : rule.allowOnly;
  const head = kind === "forbid" ? "must not use" : "may only use";
  return `${rule.from} ${head} ${list?.join(", ") || "nothing"}: ${rule.why}`;
}

function ruleViolations(pkg: WorkspacePackage, rule: DependencyRule): Violation[] {
  return pkg.uses.flatMap((use) => {
    const forbidden = rule.forbid?.includes(use.target) === true;
    const checkedByAllowList = use.scope === "production" && use.escapes !== true;
    const notAllowed = checkedByAllowList && rule.allowOnly?.includes(use.target) === false;
    return [
      ...(forbidden ? [{ ...siteOf(pkg, use), rule: describeRule(rule, "forbid") }] : []),
      ...(notAllowed ? [{ ...siteOf(pkg, use), rule: describeRule(rule, "allowOnly") }] : []),
    ];
  });
}

/**
 * Every use that breaks a rule, plus the rules that hold for every workspace:
 * a library (`kind: "package"`) never uses an app, and no relative import
 * reaches into another package's files.
 */
export function findViolations(
  packages: readonly WorkspacePackage[],
  rules: readonly DependencyRule[],
): Violation[] {
  const apps = new Set(packages.filter((p) => p.kind === "app").map((p) => p.name));
  return packages.flatMap((pkg) => [
    ...rules.filter((rule) => rule.from === pkg.name).flatMap((rule) => ruleViolations(pkg, rule)),
    ...pkg.uses
      .filter((use) => pkg.kind === "package" && apps.has(use.target))
      .map((use) => ({
        ...siteOf(pkg, use),
        rule: `${pkg.name} is a library and must not use an app`,
      })),
    ...pkg.uses
      .filter((use) => use.escapes)
      .map((use) => ({
        ...siteOf(pkg, use),
        rule: "import other packages by name, not by a relative path",
      })),
  ]);
}

/**
 * Every production use of `testKit` (a declared runtime dependency, or an
 * import outside test files) by a package other than the kit itself: the
 * test kit is for tests only.
 */
export function findTestKitUses(
  packages: readonly WorkspacePackage[],
  testKit: string,
): Violation[] {
  return packages
    .filter((pkg) => pkg.name !== testKit)
    .flatMap((pkg) =>
      pkg.uses
        .filter((use) => use.target === testKit && use.scope === "production")
        .map((use) => ({ ...siteOf(pkg, use), rule: `${testKit} is for tests only` })),
    );
}

/** The paths of a build's output (relative to its `dist`) that hold tests or their support. */
export function testFilesIn(distPaths: readonly string[]): string[] {
  return distPaths.filter(isTestFile);
}

function siteOf(pkg: WorkspacePackage, use: Use): Omit<Violation, "rule"> {
  return { package: pkg.name, site: use.site, target: use.target };
}

/** Package name → the workspace packages it uses (declared or imported, any scope), itself excluded. */
export function workspaceGraph(packages: readonly WorkspacePackage[]): Map<string, Set<string>> {
  const names = new Set(packages.map((p) => p.name));
  return new Map(
    packages.map((pkg) => [
      pkg.name,
      new Set(pkg.uses.map((u) => u.target).filter((t) => names.has(t) && t !== pkg.name)),
    ]),
  );
}

/**
 * Every elementary cycle the depth-first search meets, each as a path that
 * ends where it starts (`[a, b, a]`), rotated to start at its smallest name so
 * that the same cycle is reported once.
 */
export function findCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const cycles = new Map<string, string[]>();
  const done = new Set<string>();
  const path: string[] = [];

  const visit = (node: string): void => {
    const onPath = path.indexOf(node);
    if (onPath >= 0) {
      const cycle = rotateToSmallest(path.slice(onPath));
      cycles.set(cycle.join(" → "), [...cycle, cycle[0]!]);
      return;
    }
    if (done.has(node)) return;
    path.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) visit(next);
    path.pop();
    done.add(node);
  };

  for (const node of [...graph.keys()].sort()) visit(node);
  return [...cycles.values()];
}

function rotateToSmallest(cycle: string[]): string[] {
  const smallest = cycle.indexOf([...cycle].sort()[0]!);
  return [...cycle.slice(smallest), ...cycle.slice(0, smallest)];
}
