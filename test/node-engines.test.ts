/**
 * The Node errand runs on: one `engines.node` in every package.json, and the
 * test run itself on the Node that `npm run setup` pins (the root's `node`
 * devDependency, in `node_modules/.bin`, which npm scripts and the packages'
 * bin shims find before the machine's own Node).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

interface Manifest {
  name: string;
  engines?: { node?: string };
  devDependencies?: Record<string, string>;
}

function manifestIn(dir: string): Manifest {
  return JSON.parse(readFileSync(join(REPO_ROOT, dir, "package.json"), "utf8")) as Manifest;
}

/** The root's manifest and every workspace package's. */
function workspaceManifests(): Manifest[] {
  const packageDirs = ["packages", "apps"].flatMap((parent) =>
    readdirSync(join(REPO_ROOT, parent)).map((name) => join(parent, name)),
  );
  return [".", "test", ...packageDirs].map(manifestIn);
}

/** The lowest version `>=X.Y.Z` accepts, as numbers; the only form errand's engines use. */
function lowestAccepted(range: string): number[] {
  const lowest = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (lowest === null) throw new Error(`engines.node is not of the form >=X.Y.Z: ${range}`);
  return lowest.slice(1).map(Number);
}

/** True when version `a` is at least `b` (both as [major, minor, patch]). */
function atLeast(a: number[], b: number[]): boolean {
  const differing = a.findIndex((part, index) => part !== b[index]);
  return differing === -1 || (a[differing] ?? 0) > (b[differing] ?? 0);
}

describe("the Node errand runs on", () => {
  const root = manifestIn(".");
  const engines = root.engines?.node ?? "";

  it("is one range, a maintained LTS line on, in every package.json", () => {
    expect(lowestAccepted(engines)[0]).toBeGreaterThanOrEqual(22);
    for (const manifest of workspaceManifests()) {
      expect({ name: manifest.name, node: manifest.engines?.node }).toEqual({
        name: manifest.name,
        node: engines,
      });
    }
  });

  it("runs this test run: the Node pinned in node_modules, whatever the machine's own", () => {
    const pinned = root.devDependencies?.node;
    expect(process.version).toBe(`v${pinned}`);
    expect(atLeast(process.versions.node.split(".").map(Number), lowestAccepted(engines))).toBe(
      true,
    );
  });
});
