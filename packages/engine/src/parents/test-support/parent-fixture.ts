/**
 * What the parent-agent tests share: the engine fixture (a private Redis, a
 * client, worker processes), an in-process collector with its reaper, the
 * test's parent and child agents on in-process workers, and reading a run's
 * tool results back from its log. Test-only: not exported.
 */
import { preflightSchema, type RunEvent } from "@errand/core";
import { type Agent, defineAgent, scriptedModel } from "@errand/runtime";
import { z } from "zod";
import { type Collector, createCollector } from "../../collector/create-collector.js";
import type { EngineFixture } from "../../test-support/engine-fixture.js";
import { captureLogs, type LogCapture } from "../../test-support/log-capture.js";
import { createWorker, type ErrandWorker, type WorkerOptions } from "../../worker/create-worker.js";
import { parentTools } from "../parent-tools.js";

/** The parent agent: plays `input.script` with the parent tools. */
export const LEAD = "lead";
/** The child agent: plays `input.script`, no tools of its own. */
export const CHILD = "child";

/**
 * A {@link LEAD} input that spawns three {@link CHILD} runs playing `childStep`
 * (each then says `child <n> done`), collects them with `wait: true`, then says `finalSay`.
 */
export function spawnThreeThenCollect(finalSay: string, childStep: Record<string, unknown> = {}) {
  const agents = [1, 2, 3].map((n) => ({
    agent: CHILD,
    input: { script: [{ ...childStep, say: `child ${n} done` }] },
  }));
  return {
    script: [
      { call: [{ tool: "spawn_agents", args: { agents } }] },
      { call: [{ tool: "collect_agents", args: { wait: true } }] },
      { say: finalSay },
    ],
  };
}

/** What a child records when it is given {@link childOutputSchema}. */
const ChildAnswer = z.object({ answer: z.string() });

/** {@link ChildAnswer} as the JSON Schema a spawn item carries. */
export const childOutputSchema: Record<string, unknown> = (() => {
  const checked = preflightSchema(ChildAnswer);
  if (!checked.ok) throw new Error(checked.reason);
  return checked.jsonSchema;
})();

/** The parent and child agents of these tests. */
function parentTestAgents(): Agent[] {
  const common = { instructions: "Follow your script.", model: scriptedModel(), maxSteps: 8 };
  return [
    defineAgent({ ...common, name: LEAD, scriptFromInput: true, tools: parentTools() }),
    defineAgent({ ...common, name: CHILD, scriptFromInput: true }),
  ];
}

/** An engine fixture with a collector, and in-process workers started on demand. */
export interface ParentFixture {
  fx: EngineFixture;
  collector: Collector;
  /** Starts an in-process worker of the test agents, its log lines captured; closed by `stop`. */
  startWorker(
    options?: Partial<WorkerOptions>,
  ): Promise<{ worker: ErrandWorker; logs: LogCapture }>;
  /** The results of every `tool` call the run logged, in order (blobs read back). */
  toolResults(runId: string, tool: string): Promise<unknown[]>;
  /** Closes the workers and the collector (not the engine fixture it was opened on). */
  stop(): Promise<void>;
}

/**
 * Starts a collector and the parent agents' workers on an engine fixture.
 * The vitest fixture `pfx` of `parentTest` (engine-test.ts).
 */
export async function openParentFixture(fx: EngineFixture): Promise<ParentFixture> {
  const collector = createCollector({
    connection: fx.server.url,
    prefix: fx.prefix,
    blockMs: 100,
    reaper: { intervalMs: 100 },
  });
  await collector.start();
  const workers: ErrandWorker[] = [];
  return {
    fx,
    collector,
    async startWorker(options = {}) {
      const logs = captureLogs();
      const worker = await createWorker({
        connection: fx.server.url,
        prefix: fx.prefix,
        agents: parentTestAgents(),
        logger: logs.logger,
        retry: { baseDelayMs: 10, maxDelayMs: 50 },
        ...options,
      });
      workers.push(worker);
      return { worker, logs };
    },
    async toolResults(runId, tool) {
      const events = await fx.errand.store.readLog(runId);
      const callIds = new Set(
        events.flatMap((event) =>
          event.type === "tool-called" && event.data.name === tool ? [event.data.callId] : [],
        ),
      );
      const results = events.filter(
        (event): event is Extract<RunEvent, { type: "tool-result" }> =>
          event.type === "tool-result" && callIds.has(event.data.callId),
      );
      return Promise.all(
        results.map(async ({ data }) => {
          if (data.ref === undefined) return data.result;
          const blob = await fx.errand.store.getBlob(data.ref);
          return blob === undefined ? undefined : JSON.parse(blob.value);
        }),
      );
    },
    async stop() {
      await Promise.all(workers.map((worker) => worker.close({ graceMs: 1_000 })));
      await collector.stop();
    },
  };
}
