/**
 * The walk-through every transport of `errand mcp` is held to, through the
 * official SDK `Client` (docs/guide/mcp.md): list the agents; start 5 runs
 * of which one is invalid (it fails alone, the 4 others start); wait with
 * progress notifications until they settle; read a results page by the
 * rules (counts, `hasMore: false`, `viewUrl`); start a run that asks a
 * person, find it waiting with its answer schema, answer it; cancel a
 * running run.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { expect } from "vitest";

/** The dashboard URL the spawned `errand mcp` links runs to. */
export const WALK_THROUGH_DASHBOARD = "http://dashboard.test";

/** A tool's answer, read by its documented fields. */
// biome-ignore lint/suspicious/noExplicitAny: answers are JSON read field by field.
type Answer = any;

/** Calls `name` and parses its one JSON text block. */
async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  onprogress?: (p: Progress) => void,
): Promise<Answer> {
  const result = (await client.callTool({ name, arguments: args }, undefined, {
    timeout: 90_000,
    ...(onprogress === undefined ? {} : { onprogress }),
  })) as CallToolResult;
  const [block] = result.content;
  if (block?.type !== "text") throw new Error(`${name}: not one text block`);
  const value = JSON.parse(block.text);
  expect(result.isError ?? false, `${name}: ${block.text}`).toBe(false);
  return value;
}

/** Calls `name` until `done` holds of its answer (bounded). */
async function callUntil(
  client: Client,
  name: string,
  args: Record<string, unknown>,
  done: (value: Answer) => boolean,
) {
  for (let attempt = 0; attempt < 300; attempt += 1) {
    const value = await call(client, name, args);
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${name} never answered as awaited`);
}

/** Runs the walk-through on `client`. */
export async function walkThrough(client: Client): Promise<void> {
  const agents = await call(client, "list_agents", {});
  expect(agents.items.map((agent: { name: string }) => agent.name)).toEqual([
    "approver",
    "echo",
    "summarizer",
  ]);
  const summarizer = agents.items.find((agent: { name: string }) => agent.name === "summarizer");
  expect(summarizer).toMatchObject({ description: "Summarises one document.", liveWorkers: 1 });
  expect(summarizer.inputSchema.required).toEqual(["document"]);

  const started = await call(client, "start_runs", {
    runs: [
      ...[300, 600, 2_500].map((sleepMs) => ({
        agent: "echo",
        input: { script: [{ say: `after ${sleepMs}`, sleepMs }] },
      })),
      { agent: "summarizer", input: { document: "errand runs agents in the background." } },
      { agent: "summarizer", input: { text: "not a document" } },
    ],
  });
  expect(started).toMatchObject({ total: 5, succeeded: 4, failed: 1 });
  expect(started.results[4]).toMatchObject({
    ok: false,
    error: { code: "invalid_input" },
    retryable: false,
  });
  const runIds = started.results.slice(0, 4).map((result: { runId: string }) => result.runId);
  expect(started.nextAction).toEqual({ tool: "wait_runs", args: { runIds } });

  const progress: Progress[] = [];
  const settled = await call(client, "wait_runs", started.nextAction.args, (p) => progress.push(p));
  expect(settled).toMatchObject({
    total: 4,
    succeeded: 4,
    failed: 0,
    pending: 0,
    count: 4,
    hasMore: false,
  });
  expect(settled.nextAction).toBeUndefined();
  // The slowest run outlasts a progress interval, so progress came while the wait went on.
  // The last notification, sent just before the answer, may be dropped: the SDK client hands a
  // notification to its handler a microtask late, and an answer read in the same chunk ends the
  // call first. So the notifications are checked as far as they came.
  expect(progress.length).toBeGreaterThanOrEqual(1);
  expect(progress.every((p) => p.total === 4 && p.progress <= 4)).toBe(true);
  const values = progress.map((p) => p.progress);
  expect(values).toEqual([...values].sort((a, b) => a - b));
  for (const run of settled.results) {
    expect(run.viewUrl).toBe(`${WALK_THROUGH_DASHBOARD}/#/runs/${run.runId}`);
  }
  expect(settled.results[3]).toMatchObject({
    ok: true,
    status: "succeeded",
    text: "A short summary.",
  });

  const asking = await call(client, "start_runs", {
    runs: [
      {
        agent: "approver",
        input: {
          script: [{ call: [{ tool: "ask", args: { question: "Ship it?" } }] }, { say: "shipped" }],
        },
      },
    ],
  });
  const askingId = asking.results[0].runId;
  const waiting = await callUntil(
    client,
    "list_waiting",
    { runId: askingId },
    (value) => value.count === 1,
  );
  expect(waiting.items[0]).toMatchObject({ runId: askingId, question: "Ship it?" });
  expect(waiting.items[0].answerSchema.required).toEqual(["approve"]);
  const answered = await call(client, "answer_waiting", {
    token: waiting.items[0].token,
    answer: { approve: true },
  });
  const resumed = await call(client, answered.nextAction.tool, answered.nextAction.args);
  expect(resumed.results[0]).toMatchObject({
    runId: askingId,
    status: "succeeded",
    text: "shipped",
  });

  const running = await call(client, "start_runs", {
    runs: [{ agent: "echo", input: { script: [{ say: "never", sleepMs: 60_000 }] } }],
  });
  const runningId = running.results[0].runId;
  await callUntil(client, "get_run", { runId: runningId, detail: "events" }, (value) =>
    value.items.some((event: { type: string }) => event.type === "run-started"),
  );
  const cancelled = await call(client, "cancel_runs", { runIds: [runningId] });
  expect(cancelled).toMatchObject({
    total: 1,
    succeeded: 1,
    results: [{ runId: runningId, ok: true, requested: true }],
  });
  const ended = await call(client, cancelled.nextAction.tool, cancelled.nextAction.args);
  expect(ended.results[0]).toMatchObject({ runId: runningId, status: "cancelled" });
}
