/**
 * Every code block of the docs marked runnable (a fence opened with
 * ```` ```js runnable ````) runs as written: each is a whole ES module, run
 * by Node in a process of its own from a folder inside the repository (so
 * that it finds errand's packages, from their sources, and zod) against a
 * fresh Redis of its own in `REDIS_URL`, and must exit 0. When the next block is a ```` ```text output ```` one,
 * what the module printed on stdout must be exactly that text.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { startRedis } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runnableBlocks, runnableBlocksOf } from "./support/markdown.js";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

const runnable = await runnableBlocksOf(REPO_ROOT);

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(fileURLToPath(new URL("./.docs-runnable-", import.meta.url)));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("the runnable blocks of the docs", () => {
  it("include fire and collect, structured output and waitpoints", () => {
    const pages = new Set(runnable.map(({ file }) => file));
    for (const page of ["fire-and-collect.md", "structured-output.md", "waitpoints.md"]) {
      expect(pages, page).toContain(`docs/guide/${page}`);
    }
  });

  it("reads a runnable block and the output after it", () => {
    const markdown =
      "```js runnable\nconsole.log(1);\n```\n\n```text output\n1\n```\n\n```js\nx\n```\n";
    expect(runnableBlocks("a.md", markdown)).toEqual([
      {
        file: "a.md",
        block: { info: "js runnable", code: "console.log(1);\n", line: 1 },
        output: "1\n",
      },
    ]);
  });

  it.each(runnable.map((entry) => [`${entry.file}:${entry.block.line}`, entry] as const))(
    "%s runs as written",
    async (name, { block, output }) => {
      const redis = await startRedis({ maxmemoryPolicy: "noeviction" });
      try {
        const module = join(dir, `${name.replace(/[^a-z0-9]+/gi, "-")}.mjs`);
        await writeFile(module, block.code);
        const { stdout } = await run(
          process.execPath,
          ["--import", "tsx", "--conditions=@errand/source", module],
          {
            cwd: REPO_ROOT,
            env: { ...process.env, REDIS_URL: redis.url, ERRAND_LOG_LEVEL: "silent" },
            timeout: 50_000,
          },
        );
        if (output !== undefined) expect(stdout).toBe(output);
        else expect(stdout, "a runnable block prints what it shows").not.toBe("");
      } finally {
        await redis.stop();
      }
    },
  );
});
