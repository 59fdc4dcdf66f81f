/**
 * The `run-queued` preflight builds is marked checked: the append writes it
 * without validating it again. So for every spec preflight accepts it must
 * already be what the append's validation would have let through: valid by
 * core's schema of `run-queued` (nothing dropped), at a valid `at`, and data
 * Redis' JSON reader takes. These specs carry every field a `run-queued`
 * can hold, from the spec, the registration and the parent's head.
 */
import { EventAt, EventData, newRunId } from "@errand/core";
import { findLosslessJsonProblem, RUN_ID_RANDOM_BYTES } from "@errand/core/ops";
import type { RunHead } from "@errand/store";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentRegistration } from "../queues/registry.js";
import { type PreflightLookups, preflightFire } from "./fire-preflight.js";

const NOW = new Date("2026-12-02T05:00:00.000Z");

function runIdAt(shard: number): string {
  return newRunId({ shard, nowMs: NOW.getTime(), random: new Uint8Array(RUN_ID_RANDOM_BYTES) });
}

const PARENT = runIdAt(3);
const ROOT = runIdAt(4);

const registration: AgentRegistration = {
  name: "writer",
  queue: "errand.writer",
  supportsSchema: true,
  scriptFromInput: false,
  maxSteps: 7,
  timeoutMs: 60_000,
  version: "v2.1",
  startedAt: NOW.toISOString(),
  heartbeatMs: 1_000,
  lastSeenAt: NOW.toISOString(),
};

const parentHead: RunHead = {
  runId: PARENT,
  seq: 4,
  status: "running",
  attempt: 1,
  hasOutput: false,
  hasSchema: false,
  cancelRequested: false,
  hasChildren: false,
  agent: "writer",
  rootRunId: ROOT,
  parentRunId: ROOT,
  depth: 1,
  priority: 5,
  concurrencyKey: "tenant-a",
  createdAt: NOW.toISOString(),
  updatedAt: NOW.toISOString(),
};

const lookups: PreflightLookups = {
  registrations: async (agent) => (agent === registration.name ? [registration] : []),
  registeredAgents: async () => [registration.name],
  head: async (runId) => (runId === PARENT ? parentHead : undefined),
  budgetOf: async () => ({
    treeRunId: ROOT,
    scopes: [{ runId: ROOT, limits: { tokens: 1_000, costUsd: 2 }, onExceeded: "cancel-tree" }],
  }),
  scopeSpend: async () => ({ spent: { tokens: 100, costUsd: 0.5, steps: 1, runs: 2 } }),
};

const trace = { traceparent: `00-${"a".repeat(32)}-${"b".repeat(16)}-01`, tracestate: "k=v" };

describe("the run-queued preflight builds", () => {
  it.for([
    ["the smallest spec", { agent: "writer", input: null }],
    [
      "every field of the spec",
      {
        agent: "writer",
        input: { question: "why?", nested: [[{ deep: true }], "ünïcode 😀"] },
        outputSchema: z.object({ answer: z.string(), score: z.number().nullable() }),
        metadata: { team: "a", clé: "välue" },
        deadlineMs: 60_000,
        priority: 9,
        concurrencyKey: "tenant-b",
        agentVersion: "v2.1",
        budget: { tokens: 500, steps: 3, onExceeded: "finish-in-flight" },
      },
    ],
    [
      "a child taking its parent's priority, key and budget",
      { agent: "writer", input: 1, parentRunId: PARENT },
    ],
    [
      "a child with its own budget, clamped by its parent's",
      { agent: "writer", input: "x", parentRunId: PARENT, budget: { tokens: 5_000, runs: 1 } },
    ],
  ] as const)("is valid as the append would have validated it: %s", async ([_label, spec]) => {
    const prepared = await preflightFire(spec, lookups, { maxInputBytes: 1_024, now: () => NOW });
    for (const traced of [undefined, trace]) {
      const event = prepared.queuedEvent(runIdAt(7), NOW, traced);
      expect(event.type).toBe("run-queued");
      expect(EventAt.safeParse(event.at).success).toBe(true);
      const parsed = EventData["run-queued"].safeParse(event.data);
      expect(parsed.error).toBeUndefined();
      expect(parsed.data).toEqual(event.data);
      expect(findLosslessJsonProblem(event.data, { maxDepth: 1_000 })).toBeUndefined();
    }
  });

  it("refuses a concurrency key holding a lone surrogate, which Redis' JSON reader cannot read", async () => {
    await expect(
      preflightFire({ agent: "writer", input: 1, concurrencyKey: "t\ud800" }, lookups, {
        maxInputBytes: 1_024,
        now: () => NOW,
      }),
    ).rejects.toMatchObject({
      code: "invalid_spec",
      message: expect.stringContaining("concurrencyKey contains a lone surrogate"),
    });
  });
});
