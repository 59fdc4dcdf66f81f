/**
 * The README's example runs as written: its `agents.mjs` (the `js` block
 * after "`agents.mjs`:", copied into a module as is) on a real worker and
 * collector, and its `fire-and-collect.mjs` run by Node as a script of its
 * own, which collects both runs as the README's comment says. And the
 * guide's researcher (the first `ts` block of docs/guide/agents-and-tools.md's
 * "The researcher"), fired with the city of its script, records its own
 * schema's output after its lookup tool ran.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import type { RunEvent } from "@errand/core";
import { type Collector, createCollector, createErrand, createWorker } from "@errand/engine";
import type { Agent } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));
const run = promisify(execFile);

/** The first block fenced with `fence` after the line `marker` in the Markdown file `file`. */
async function blockAfter(file: string, marker: string, fence: string): Promise<string> {
  const text = await readFile(join(REPO_ROOT, file), "utf8");
  const at = text.indexOf(`\n${marker}\n`);
  expect(at, `${file} has the line ${marker}`).toBeGreaterThan(-1);
  const start = text.indexOf(`${fence}\n`, at) + `${fence}\n`.length;
  return text.slice(start, text.indexOf("\n```", start) + 1);
}

const cleanups: (() => Promise<unknown>)[] = [];
let dir: string;
let server: RedisServer;

beforeAll(async () => {
  // Without a model server configured, as on a newcomer's machine: the scripted model plays.
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
  // A folder inside the repository, so that the modules find errand's packages and zod.
  dir = await mkdtemp(fileURLToPath(new URL("./.readme-example-", import.meta.url)));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  cleanups.push(() => server.stop());
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  vi.unstubAllEnvs();
});

/** A worker running `agents` and a collector, on `prefix`, stopped after the file's tests. */
async function startWorkerAndCollector(agents: Agent[], prefix?: string): Promise<void> {
  const connection = server.url;
  const worker = await createWorker({ connection, ...(prefix ? { prefix } : {}), agents });
  cleanups.push(() => worker.close({ graceMs: 1_000 }));
  const collector: Collector = createCollector({
    connection,
    ...(prefix ? { prefix } : {}),
    reaper: false,
  });
  await collector.start();
  cleanups.push(() => collector.stop());
}

describe("the README's example", () => {
  it("fires a run of each agent and collects the text and the structured output", async () => {
    const agentsModule = join(dir, "agents.mjs");
    await writeFile(agentsModule, await blockAfter("README.md", "`agents.mjs`:", "```js"));
    const agents = Object.values(await import(pathToFileURL(agentsModule).href)) as Agent[];
    expect(agents.map((agent) => agent.name).sort()).toEqual(["city-reporter", "greeter"]);
    // The README's script runs on the default prefix, as the README's worker and collector do.
    await startWorkerAndCollector(agents);

    const script = join(dir, "fire-and-collect.mjs");
    const marker =
      "`fire-and-collect.mjs`, a script of your app that fires runs and collects them:";
    await writeFile(script, await blockAfter("README.md", marker, "```js"));
    const { stdout } = await run(
      process.execPath,
      ["--import", "tsx", "--conditions=@errand/source", script],
      {
        cwd: REPO_ROOT,
        env: { ...process.env, REDIS_URL: server.url, ERRAND_LOG_LEVEL: "silent" },
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({
      total: 2,
      succeeded: 2,
      failed: 0,
      pending: 0,
      results: [
        { ok: true, status: "succeeded", text: "Hello, Ada!" },
        { ok: true, status: "succeeded", output: { city: "Lyon", population: 522_250 } },
      ],
    });
  }, 120_000);
});

describe("the guide's researcher agent", () => {
  it("runs as written: it looks Lyon up, then records { city, population } in its own schema", async () => {
    const module = join(dir, "researcher.ts");
    await writeFile(
      module,
      await blockAfter("docs/guide/agents-and-tools.md", "## The researcher", "```ts"),
    );
    const { researcher } = (await import(pathToFileURL(module).href)) as { researcher: Agent };
    const prefix = uniqueKeyPrefix("readme-example");
    await startWorkerAndCollector([researcher], prefix);
    const errand = createErrand({ connection: server.url, prefix });
    cleanups.push(() => errand.close());

    const { runId } = await errand.fire({ agent: "researcher", input: "Lyon" });
    const result = await errand.result(runId, { waitMs: 30_000 });
    expect(result).toMatchObject({
      status: "succeeded",
      output: { city: "Lyon", population: 522_250 },
      steps: 2,
    });
    const log: RunEvent[] = [];
    for await (const event of errand.events(runId)) log.push(event);
    const lookup = log.find((event) => event.type === "tool-result");
    expect(lookup?.data).toMatchObject({ ok: true, result: { city: "Lyon", population: 522_250 } });
  });
});
