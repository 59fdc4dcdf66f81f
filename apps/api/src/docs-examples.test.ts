/**
 * The HTTP API guide's examples, run as a reader would run them against a
 * real errand (Redis, a worker running the guide's own `greeter` and
 * `approver`, loaded from the guide's code, a collector, the API): the curl
 * walk-through with bash and the standard-library Python example with
 * python3, each printing exactly the `text` block the guide shows after it.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { Agent } from "@errand/runtime";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ApiStack, startApiStack } from "./test-support/api-stack.js";

const run = promisify(execFile);
const GUIDE = new URL("../../../docs/guide/http-api.md", import.meta.url);

/** The guide's block fenced as `info`: its code, and where it ends. */
async function block(info: string): Promise<{ markdown: string; code: string; end: number }> {
  const markdown = await readFile(GUIDE, "utf8");
  const start = markdown.indexOf(`\`\`\`${info}\n`);
  expect(start, `no block ${info} in the guide`).toBeGreaterThanOrEqual(0);
  const codeStart = start + info.length + 4;
  const end = markdown.indexOf("\n```\n", codeStart);
  return { markdown, code: markdown.slice(codeStart, end + 1), end };
}

/** The code of the block fenced as `info`, and the `text` block after it. */
async function example(info: string): Promise<{ code: string; prints: string }> {
  const { markdown, code, end } = await block(info);
  const printsStart = markdown.indexOf("```text\n", end) + "```text\n".length;
  const printsEnd = markdown.indexOf("\n```\n", printsStart);
  return { code, prints: markdown.slice(printsStart, printsEnd + 1) };
}

/** The agents the guide's agents module exports, imported from a file of its code beside this one. */
async function guideAgents(dir: string): Promise<Agent[]> {
  const file = `${dir}/agents.ts`;
  await writeFile(file, (await block("ts http-api-agents")).code);
  return Object.values((await import(pathToFileURL(file).href)) as Record<string, Agent>);
}

let stack: ApiStack;
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(fileURLToPath(new URL("./.docs-agents-", import.meta.url)));
  const agents = await guideAgents(dir);
  expect(agents.map((agent) => agent.name)).toEqual(["greeter", "approver"]);
  stack = await startApiStack({}, agents);
});
afterAll(async () => {
  await stack?.stop();
  await rm(dir, { recursive: true, force: true });
});

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
