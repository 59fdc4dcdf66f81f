/**
 * An agent's own `outputSchema` applies to every run of it: `fire` copies it
 * into `run-queued` from the registry, so a run fired without a schema must
 * record one (recorded → `succeeded` with the output; text only →
 * `no_structured_output`). A fire may repeat the agent's schema but not
 * replace it; a registered schema outside the subset, or on a model without
 * tools, is refused at `fire` with nothing written.
 */
import { foldRun, settleRun } from "@errand/core";
import { defineAgent, scriptedModel } from "@errand/runtime";
import { afterAll, describe, expect } from "vitest";
import { z } from "zod";
import { createLogger } from "../logger.js";
import type { EngineFixture } from "../test-support/engine-fixture.js";
import { engineTest } from "../test-support/engine-test.js";
import { registerTestQueue } from "../test-support/registered-queue.js";
import { createWorker, type ErrandWorker } from "../worker/create-worker.js";

const it = engineTest("agent-schema");

const City = z.object({ city: z.string(), population: z.number().int() });

const reporter = defineAgent({
  name: "reporter",
  instructions: "Record the city's population.",
  model: scriptedModel(),
  outputSchema: City,
  scriptFromInput: true,
});

let worker: ErrandWorker;

it.beforeAll(async ({ fx }) => {
  worker = await createWorker({
    connection: fx.server.url,
    prefix: fx.prefix,
    agents: [reporter],
    logger: createLogger({ level: "silent" }),
  });
});
afterAll(async () => {
  await worker?.close({ graceMs: 1_000 });
});

async function settled(fx: EngineFixture, runId: string) {
  return settleRun(foldRun(await fx.waitForEvent(runId)));
}

/** The keys of every run's log and head under the fixture's prefix. */
async function runKeys(fx: EngineFixture): Promise<string[]> {
  return (await fx.redis.keys(`${fx.prefix}:*:run:*`)).sort();
}

/** Fires `spec`, expecting a refusal with no run written. */
async function refusal(
  fx: EngineFixture,
  spec: Parameters<typeof fx.errand.fire>[0],
): Promise<unknown> {
  const before = await runKeys(fx);
  const error = await fx.errand.fire(spec).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(await runKeys(fx)).toEqual(before);
  return error;
}

describe("an agent's own outputSchema", () => {
  it("is copied into run-queued, and a run fired without a schema records it", async ({ fx }) => {
    const { runId } = await fx.errand.fire({
      agent: "reporter",
      input: {
        script: [
          { call: [{ tool: "structured_output", args: { city: "Lyon", population: 522_250 } }] },
        ],
      },
    });
    const [queued] = await fx.errand.store.readLog(runId);
    expect(queued).toMatchObject({
      type: "run-queued",
      data: { outputSchema: { type: "object", required: ["city", "population"] } },
    });
    expect(await settled(fx, runId)).toMatchObject({
      status: "succeeded",
      output: { city: "Lyon", population: 522_250 },
    });
  });

  it("fails a run that answers with text only: no_structured_output", async ({ fx }) => {
    const { runId } = await fx.errand.fire({
      agent: "reporter",
      input: { script: [{ say: "Lyon has about half a million people." }] },
    });
    expect(await settled(fx, runId)).toMatchObject({
      status: "failed",
      error: { code: "no_structured_output" },
      text: "Lyon has about half a million people.",
    });
  });

  it("accepts a fire that repeats the same schema (zod or JSON Schema), and refuses another", async ({
    fx,
  }) => {
    const script = [
      { call: [{ tool: "structured_output", args: { city: "Oslo", population: 1 } }] },
    ];
    const same = await fx.errand.fire({ agent: "reporter", input: { script }, outputSchema: City });
    expect(await settled(fx, same.runId)).toMatchObject({ status: "succeeded" });
    const asJson = z.toJSONSchema(City) as Record<string, unknown>;
    const again = await fx.errand.fire({
      agent: "reporter",
      input: { script },
      outputSchema: asJson,
    });
    expect(await settled(fx, again.runId)).toMatchObject({ status: "succeeded" });

    const other = await refusal(fx, {
      agent: "reporter",
      input: { script },
      outputSchema: z.object({ answer: z.string() }),
    });
    expect(other).toMatchObject({ code: "invalid_spec" });
    expect((other as Error).message).toContain("agent reporter has its own outputSchema");
  });

  it("refuses at fire a registered schema outside the subset, or one on a model without tools", async ({
    fx,
  }) => {
    // Registrations as a worker of another errand version (or a hand-written one) could leave them.
    const openObject = { type: "object", properties: { city: { type: "string" } } };
    await registerTestQueue(fx.redis, fx.errand.keys, [
      { name: "loose", outputSchema: openObject },
      { name: "toolless", supportsSchema: false, outputSchema: z.toJSONSchema(City) as never },
    ]);
    const loose = await refusal(fx, { agent: "loose", input: null });
    expect(loose).toMatchObject({ code: "unsupported_schema" });
    expect((loose as Error).message).toMatch(/^unsupported JSON schema: /);
    const toolless = await refusal(fx, { agent: "toolless", input: null });
    expect(toolless).toMatchObject({ code: "schema_not_supported" });
  });
});
