/**
 * The README's first example runs as written: its `researcher` agent (the
 * first `ts` block of "Agents and tools", copied into a module as is) on a
 * real worker and collector, fired with the city of its script, records its
 * own schema's output after its lookup tool ran.
 */
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { RunEvent } from "@errand/core";
import { type Collector, createCollector, createErrand, createWorker } from "@errand/engine";
import type { Agent } from "@errand/runtime";
import { startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const README = fileURLToPath(new URL("../README.md", import.meta.url));

/** The first `ts` block after the heading `heading` in the README. */
async function firstTsBlock(heading: string): Promise<string> {
  const text = await readFile(README, "utf8");
  const section = text.indexOf(`\n${heading}\n`);
  expect(section, `the README has a section ${heading}`).toBeGreaterThan(-1);
  const start = text.indexOf("```ts\n", section) + "```ts\n".length;
  return text.slice(start, text.indexOf("\n```", start));
}

const cleanups: (() => Promise<unknown>)[] = [];
let researcher: Agent;

beforeAll(async () => {
  // Without a model server configured, as on a newcomer's machine: the scripted model plays.
  vi.stubEnv("OPENAI_API_KEY", "");
  vi.stubEnv("OPENAI_BASE_URL", "");
  // A folder inside the repository, so that the module finds @errand/runtime and zod.
  const dir = await mkdtemp(fileURLToPath(new URL("./.readme-example-", import.meta.url)));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const module = join(dir, "agents.ts");
  await writeFile(module, await firstTsBlock("### Agents and tools"));
  ({ researcher } = (await import(pathToFileURL(module).href)) as { researcher: Agent });
});
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  vi.unstubAllEnvs();
});

describe("the README's researcher agent", () => {
  it("runs as written: it looks Lyon up, then records { city, population } in its own schema", async () => {
    const server = await startRedis({ maxmemoryPolicy: "noeviction" });
    cleanups.push(() => server.stop());
    const connection = server.url;
    const prefix = uniqueKeyPrefix("readme-example");
    const worker = await createWorker({ connection, prefix, agents: [researcher] });
    cleanups.push(() => worker.close({ graceMs: 1_000 }));
    const collector: Collector = createCollector({ connection, prefix, reaper: false });
    await collector.start();
    cleanups.push(() => collector.stop());
    const errand = createErrand({ connection, prefix });
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
