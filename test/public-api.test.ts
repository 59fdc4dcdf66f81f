/**
 * The public face of every errand package, listed in `public-api.md` so that
 * a change to it shows in review: each entry of each package's `exports` map
 * (the root and its subpaths, such as `@errand/engine/ops`), with the values
 * it exports at run time and the types it exports for the compiler alone.
 * After a deliberate change: `npx vitest run test/public-api.test.ts -u`.
 *
 * The values are what importing the entry gives; the types come from the
 * TypeScript checker, which lists every export of the entry's source,
 * values and types alike. Every name the docs (the READMEs, `docs/`) and
 * the module guides import must be at its package's root, never `/ops`.
 */

import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { API, type Project } from "typescript/unstable/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The conditions of an entry of a package's `exports` map. */
interface EntryConditions {
  "@errand/source": string;
  types: string;
  default: string;
}

/** One entry of a package's `exports` map, such as `@errand/engine/ops`. */
interface PackageEntry {
  specifier: string;
  packageDir: string;
  conditions: EntryConditions;
}

/** Every entry of every package under `packages/`, in the order of the folders and the maps. */
function packageEntries(): PackageEntry[] {
  return readdirSync(join(REPO_ROOT, "packages"))
    .sort()
    .flatMap((folder) => {
      const packageDir = join(REPO_ROOT, "packages", folder);
      const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as {
        name: string;
        exports: Record<string, EntryConditions>;
      };
      return Object.entries(manifest.exports).map(([subpath, conditions]) => ({
        specifier: manifest.name + subpath.slice(1),
        packageDir,
        conditions,
      }));
    });
}

/** The names an entry exports, split by whether they exist at run time. */
interface EntryFace {
  values: string[];
  types: string[];
}

/** Every name the checker sees exported from `sourceFile`, values and types alike. */
function exportedNames(project: Project, sourceFile: string): string[] {
  const file = project.program.getSourceFile(sourceFile);
  if (file === undefined) throw new Error(`${sourceFile} is not in ${project.configFileName}`);
  const moduleSymbol = project.checker.getSymbolAtLocation(file);
  if (moduleSymbol === undefined) throw new Error(`${sourceFile} is not a module`);
  return project.checker.getExportsOfModule(moduleSymbol).map((symbol) => symbol.name);
}

/** The Markdown files that teach errand: the READMEs and everything under `docs/`. */
function docFiles(): string[] {
  const readmes = ["packages", "apps"].flatMap((parent) =>
    readdirSync(join(REPO_ROOT, parent)).map((name) => join(parent, name, "README.md")),
  );
  const docs = readdirSync(join(REPO_ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => join("docs", file));
  return ["README.md", ...readmes, ...docs].filter((file) => existsSync(join(REPO_ROOT, file)));
}

/** A name imported from an errand package, and where. */
interface TaughtImport {
  file: string;
  specifier: string;
  name: string;
}

/** Each name `file` (relative to the repository) imports from a package entry, such as `@errand/engine`. */
function errandImports(file: string): TaughtImport[] {
  const text = readFileSync(join(REPO_ROOT, file), "utf8");
  const statements = text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*"(@errand\/[^"]+)"/g);
  return [...statements].flatMap(([, names = "", specifier = ""]) =>
    names
      .split(",")
      .map(
        (name) =>
          name
            .trim()
            .replace(/^type\s+/, "")
            .split(/\s+as\s+/)[0] ?? "",
      )
      .filter((name) => name !== "")
      .map((name) => ({ file, specifier, name })),
  );
}

/** The list of `public-api.md`: a heading per entry, a line per name. */
function formatFaces(faces: ReadonlyMap<string, EntryFace>): string {
  const lines = [
    "# The public API of errand's packages",
    "",
    "Written by `test/public-api.test.ts`; do not edit. Every name each entry",
    "of each package's `exports` map exports: values (what `import` gives at",
    "run time) and types (for the compiler alone). A change here changes what",
    "users import: review it.",
  ];
  for (const [specifier, { values, types }] of faces) {
    lines.push("", `## ${specifier}`, "");
    lines.push(
      `${values.length + types.length} names: ${values.length} values, ${types.length} types.`,
    );
    lines.push("", "Values:", "", ...values.map((name) => `- \`${name}\``));
    if (types.length > 0) lines.push("", "Types:", "", ...types.map((name) => `- \`${name}\``));
  }
  return `${lines.join("\n")}\n`;
}

const entries = packageEntries();
const faces = new Map<string, EntryFace>();
let api: API;

beforeAll(async () => {
  api = new API({ cwd: REPO_ROOT });
  const configs = [...new Set(entries.map((entry) => join(entry.packageDir, "tsconfig.json")))];
  const snapshot = api.updateSnapshot({ openProjects: configs });
  for (const entry of entries) {
    const project = snapshot.getProject(join(entry.packageDir, "tsconfig.json"));
    if (project === undefined) throw new Error(`no project for ${entry.specifier}`);
    const source = join(entry.packageDir, entry.conditions["@errand/source"]);
    const module = (await import(pathToFileURL(source).href)) as Record<string, unknown>;
    const values = Object.keys(module).sort();
    const names = exportedNames(project, source);
    const types = names.filter((name) => !values.includes(name)).sort();
    expect(names, `${entry.specifier}: every value is an export the checker sees`).toEqual(
      expect.arrayContaining(values),
    );
    faces.set(entry.specifier, { values, types });
  }
}, 60_000);

afterAll(() => api?.close());

describe("the public API", () => {
  it("is the committed list, entry by entry", async () => {
    await expect(formatFaces(faces)).toMatchFileSnapshot("./public-api.md");
  });

  it("gives every subpath the root's conditions, on its own source and build files", () => {
    for (const entry of entries) {
      const source = entry.conditions["@errand/source"];
      const base = source.replace(/^\.\/src\//, "").replace(/\.ts$/, "");
      expect(Object.keys(entry.conditions), entry.specifier).toEqual([
        "@errand/source",
        "types",
        "default",
      ]);
      expect(source, entry.specifier).toBe(`./src/${base}.ts`);
      expect(entry.conditions.types, entry.specifier).toBe(`./dist/${base}.d.ts`);
      expect(entry.conditions.default, entry.specifier).toBe(`./dist/${base}.js`);
    }
  });

  it("keeps each ops subpath apart from its root: no name in both", () => {
    const opsEntries = entries.filter((entry) => entry.specifier.endsWith("/ops"));
    expect(opsEntries.map((entry) => entry.specifier).sort()).toEqual([
      "@errand/core/ops",
      "@errand/engine/ops",
      "@errand/runtime/ops",
      "@errand/store/ops",
    ]);
    for (const ops of opsEntries) {
      const root = faces.get(ops.specifier.slice(0, -"/ops".length));
      const subpath = faces.get(ops.specifier);
      const rootNames = [...(root?.values ?? []), ...(root?.types ?? [])];
      const shared = [...(subpath?.values ?? []), ...(subpath?.types ?? [])].filter((name) =>
        rootNames.includes(name),
      );
      expect(shared, ops.specifier).toEqual([]);
    }
  });

  it("has every name the docs and the module guides import at its package's root", () => {
    const guides = entries
      .filter((entry) => !entry.specifier.endsWith("/ops"))
      .map((entry) =>
        relative(REPO_ROOT, join(entry.packageDir, entry.conditions["@errand/source"])),
      );
    const taught = [...docFiles(), ...guides]
      .flatMap(errandImports)
      .filter(({ specifier }) => entries.some((entry) => entry.specifier === specifier));
    const notAtRoot = taught.filter(({ specifier, name }) => {
      const face = faces.get(specifier);
      return (
        specifier.endsWith("/ops") || !(face?.values.includes(name) || face?.types.includes(name))
      );
    });
    expect(taught.length).toBeGreaterThan(0);
    expect(notAtRoot).toEqual([]);
  });
});
