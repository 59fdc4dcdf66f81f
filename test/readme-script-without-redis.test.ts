/**
 * The README's own script (`fire-and-collect.mjs` of the consumer app),
 * run as a child process against a Redis that is not there, ends: its
 * `fire` throws `redis_unavailable` once its patience has passed, and the
 * process exits with that error instead of hanging.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { CLIENT_PATIENCE_MS } from "@errand/engine";
import { findFreePort } from "@errand/testing";
import { describe, expect, it } from "vitest";

const APP = fileURLToPath(new URL("./consumer/app/", import.meta.url));

/** How long past its patience the script may take to exit on a loaded machine (its start included). */
const SLACK_MS = 20_000;

describe("the README's fire-and-collect script without Redis", () => {
  it(
    "exits with redis_unavailable once fire's patience has passed",
    async () => {
      const port = await findFreePort();
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "--conditions=@errand/source", "fire-and-collect.mjs"],
        {
          cwd: APP,
          env: { ...process.env, REDIS_URL: `redis://127.0.0.1:${port}` },
          stdio: ["ignore", "pipe", "pipe"],
        },
      );
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
      const startedAt = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const exit = await Promise.race([
        new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code))),
        new Promise<"hung">((resolve) => {
          timer = setTimeout(() => resolve("hung"), CLIENT_PATIENCE_MS + SLACK_MS);
        }),
      ]);
      clearTimeout(timer);
      if (exit === "hung") child.kill("SIGKILL");
      expect(exit, output).toBe(1);
      expect(Date.now() - startedAt).toBeGreaterThanOrEqual(CLIENT_PATIENCE_MS);
      expect(output).toContain("redis_unavailable");
      expect(output).toContain(`Redis at redis://127.0.0.1:${port}`);
    },
    CLIENT_PATIENCE_MS + 2 * SLACK_MS,
  );
});
