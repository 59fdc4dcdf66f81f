/**
 * The HTTP API guide's examples, run as a reader would run them against a
 * real errand (Redis, a worker running the guide's `greeter` and
 * `approver`, a collector, the API): the curl walk-through with bash and the
 * standard-library Python example with python3, each printing exactly the
 * `text` block the guide shows after it.
 */
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { apiTestAgents } from "./test-support/agents.js";
import { type ApiStack, startApiStack } from "./test-support/api-stack.js";

const run = promisify(execFile);
const GUIDE = new URL("../../../docs/guide/http-api.md", import.meta.url);

/** The code of the block fenced as `info`, and the `text` block after it. */
async function example(info: string): Promise<{ code: string; prints: string }> {
  const markdown = await readFile(GUIDE, "utf8");
  const start = markdown.indexOf(`\`\`\`${info}\n`);
  expect(start, `no block ${info} in the guide`).toBeGreaterThanOrEqual(0);
  const codeStart = start + info.length + 4;
  const codeEnd = markdown.indexOf("\n```\n", codeStart);
  const printsStart = markdown.indexOf("```text\n", codeEnd) + "```text\n".length;
  const printsEnd = markdown.indexOf("\n```\n", printsStart);
  return {
    code: markdown.slice(codeStart, codeEnd + 1),
    prints: markdown.slice(printsStart, printsEnd + 1),
  };
}

let stack: ApiStack;
beforeAll(async () => {
  const agents = apiTestAgents().filter((agent) => agent.name !== "scripted");
  stack = await startApiStack({}, agents);
});
afterAll(async () => stack?.stop());

it("runs the curl walk-through as the guide shows it", async () => {
  const { code, prints } = await example("sh http-api-walkthrough");
  const { stdout } = await run("bash", ["-euo", "pipefail", "-c", code], {
    env: { ...process.env, ERRAND_API: stack.url },
    timeout: 60_000,
  });
  expect(stdout).toBe(prints);
});

it("runs the Python example as the guide shows it", async () => {
  const { code, prints } = await example("python http-api-example");
  const { stdout } = await run("python3", ["-c", code], {
    env: { ...process.env, ERRAND_API: stack.url },
    timeout: 60_000,
  });
  expect(stdout).toBe(prints);
});
