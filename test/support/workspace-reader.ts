/**
 * Reads the workspace for the architecture check: every `package.json` under
 * `packages/*` and `apps/*`, and the imports of each package's `src` files.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import {
  importSpecifiers,
  isRelativeSpecifier,
  isTestFile,
  packageNameOf,
  type Use,
  type UseScope,
  type WorkspacePackage,
} from "./dependency-graph.js";

/** The folders whose children are workspace packages, and what kind each holds. */
const WORKSPACE_FOLDERS = { packages: "package", apps: "app" } as const;

const DEPENDENCY_FIELDS: Record<string, UseScope> = {
  dependencies: "production",
  peerDependencies: "production",
  optionalDependencies: "production",
  devDependencies: "dev",
};

const SOURCE_FILE = /\.[cm]?tsx?$/;

interface PackageJson {
  name?: string;
  [field: string]: unknown;
}

function declaredUses(manifest: PackageJson): Use[] {
  return Object.entries(DEPENDENCY_FIELDS).flatMap(([field, scope]) =>
    Object.keys((manifest[field] as Record<string, string> | undefined) ?? {}).map((target) => ({
      target,
      site: `package.json#${field}`,
      scope,
    })),
  );
}

function importedUses(packageDir: string): Use[] {
  const srcDir = join(packageDir, "src");
  if (!existsSync(srcDir)) return [];
  const files = readdirSync(srcDir, { recursive: true, encoding: "utf8" })
    .filter((file) => SOURCE_FILE.test(file))
    .map((file) => join(srcDir, file));
  return files.flatMap((file) => {
    const site = relative(packageDir, file).split(sep).join("/");
    const scope: UseScope = isTestFile(site) ? "test" : "production";
    return importSpecifiers(readFileSync(file, "utf8")).flatMap((specifier): Use[] => {
      if (!isRelativeSpecifier(specifier))
        return [{ target: packageNameOf(specifier), site, scope }];
      const inside = resolve(dirname(file), specifier).startsWith(packageDir + sep);
      return inside ? [] : [{ target: specifier, site, scope, escapes: true }];
    });
  });
}

/** Every workspace package under `root`, with its declared and imported uses. */
export function readWorkspace(root: string): WorkspacePackage[] {
  return Object.entries(WORKSPACE_FOLDERS).flatMap(([folder, kind]) => {
    const parent = join(root, folder);
    if (!existsSync(parent)) return [];
    return readdirSync(parent, { withFileTypes: true })
      .filter(
        (entry) => entry.isDirectory() && existsSync(join(parent, entry.name, "package.json")),
      )
      .map((entry) => {
        const dir = resolve(parent, entry.name);
        const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as PackageJson;
        return {
          name: manifest.name ?? `${folder}/${entry.name}`,
          dir: `${folder}/${entry.name}`,
          kind,
          uses: [...declaredUses(manifest), ...importedUses(dir)],
        };
      });
  });
}
