/**
 * No import circles, even through types: Biome's `noImportCycles` (with
 * `ignoreTypes: false`) is on in the repository's `biome.json`, so `npm run
 * check` fails on one. Proof that the rule fails: a circle planted in a
 * temporary folder, linted with the repository's configuration.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const BIOME = join(REPO_ROOT, "node_modules", ".bin", "biome");
const RULE = "lint/suspicious/noImportCycles";

let folders: string[] = [];

afterEach(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
  folders = [];
});

/** A folder holding the repository's `biome.json` and `files` (name → source). */
function plant(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), "errand-cycles-"));
  folders.push(folder);
  copyFileSync(join(REPO_ROOT, "biome.json"), join(folder, "biome.json"));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(folder, name), source);
  return folder;
}

/** `biome lint` in `folder` (no VCS there): its exit code and everything it printed. */
async function lint(folder: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      BIOME,
      ["lint", "--vcs-enabled=false", "."],
      { cwd: folder },
    );
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, output: failed.stdout + failed.stderr };
  }
}

describe("the noImportCycles rule of biome.json", () => {
  it("fails two modules that import each other's types", async () => {
    const folder = plant({
      "run.ts":
        'import type { Step } from "./step.js";\nexport interface Run {\n  steps: Step[];\n}\n',
      "step.ts": 'import type { Run } from "./run.js";\nexport interface Step {\n  run: Run;\n}\n',
    });
    const { code, output } = await lint(folder);
    expect(code).not.toBe(0);
    expect(output).toContain(`run.ts:1:27 ${RULE}`);
    expect(output).toContain(`step.ts:1:26 ${RULE}`);
  });

  it("passes the same types once the shared one lives in a leaf both import", async () => {
    const folder = plant({
      "run.ts":
        'import type { Step } from "./step.js";\nexport interface Run {\n  steps: Step[];\n}\n',
      "step.ts":
        'import type { RunId } from "./run-id.js";\nexport interface Step {\n  runId: RunId;\n}\n',
      "run-id.ts": "export type RunId = string;\n",
    });
    const { code, output } = await lint(folder);
    expect(output).not.toContain(RULE);
    expect(code).toBe(0);
  });
});
