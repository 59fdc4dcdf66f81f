/**
 * `scripts/prepare-machine.mjs`, the first step of `npm test`, run as a real
 * process: where it cannot install what is missing it stops at once, with one
 * line naming each missing tool and how to get it.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../scripts/prepare-machine.mjs", import.meta.url));

/** A PATH holding only `node`: every tool is missing, and so is apt-get to install them. */
const bareBin = mkdtempSync(join(tmpdir(), "errand-bare-path-"));
symlinkSync(process.execPath, join(bareBin, "node"));

function prepare(command: string, env: NodeJS.ProcessEnv) {
  const run = spawnSync(process.execPath, [SCRIPT, command], { env, encoding: "utf8" });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("prepare-machine", () => {
  afterAll(() => rmSync(bareBin, { recursive: true, force: true }));

  it("stops npm test with one line naming each missing tool, what needs it and its package", () => {
    const { code, stdout, stderr } = prepare("test", { PATH: bareBin });
    expect(code).toBe(1);
    expect(stdout).toBe("");
    const lines = stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^npm test stopped: this machine lacks redis-server \(/);
    for (const tool of ["redis-cli", "openssl", "docker-compose", "prometheus"]) {
      expect(lines[0]).toContain(`${tool} (`);
    }
    expect(lines[0]).toContain(
      "apt-get install -y --no-install-recommends redis-server redis-tools openssl docker-compose prometheus",
    );
  });

  it("stops at an ERRAND_CHROMIUM that is not an executable, which no install would change", () => {
    const { code, stderr } = prepare("test", {
      PATH: process.env.PATH,
      ERRAND_CHROMIUM: join(bareBin, "no-chromium"),
    });
    expect(code).toBe(1);
    expect(stderr).toContain(
      `npm test stopped: ERRAND_CHROMIUM names ${join(bareBin, "no-chromium")}, which is not an executable`,
    );
  });

  it("names the commands it prepares for when given another", () => {
    const { code, stderr } = prepare("lint", { PATH: bareBin });
    expect(code).toBe(2);
    expect(stderr).toContain("usage: node scripts/prepare-machine.mjs <test|chaos:hosts>");
  });
});
