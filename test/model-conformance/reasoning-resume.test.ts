/**
 * A reasoning run SIGKILLed between its steps resumes on another worker and
 * asks the model exactly what the killed worker asked it: real worker
 * processes on a real Redis, the real `openai` client against the fake
 * server, which records each request it receives. Worker A runs step 1 of
 * two reasoning runs (one per way the Responses API keeps a conversation)
 * and sends their step-2 requests, which the server holds; A is killed;
 * worker B takes the runs over from their logs and sends step 2 again. The
 * two step-2 requests of each run are byte for byte the same, and carry the
 * reasoning the server issued at step 1 — encrypted content in the input, or
 * the previous response's id.
 */
import type { RunEvent, Script } from "@errand/core";
import type { ResponsesHistory } from "@errand/runtime";
import { STRUCTURED_OUTPUT_TOOL } from "@errand/runtime/ops";
import {
  type FakeOpenAI,
  type RecordedRequest,
  type ResponsesRequest,
  startFakeOpenAI,
} from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Arrivals } from "./arrivals.js";
import { REASONING_AGENTS } from "./reasoning-agents.js";
import { type ResumeFleet, startResumeFleet } from "./resume-fleet.js";

const HISTORIES = Object.keys(REASONING_AGENTS) as ResponsesHistory[];

/** Step 1 notes a finding; step 2 records the answer, held by the server while worker A lives. */
function scriptOf(heldMs: number): Script {
  return [
    { call: [{ tool: "note", args: { finding: "Lyon is larger than Nice." } }] },
    { sleepMs: heldMs, call: [{ tool: STRUCTURED_OUTPUT_TOOL, args: { answer: "Lyon" } }] },
  ];
}

let fake: FakeOpenAI;
let fleet: ResumeFleet;
/** Each run's id and its log once settled, by history. */
const runs = new Map<ResponsesHistory, { runId: string; events: RunEvent[] }>();

function requestsOf(requests: readonly RecordedRequest[], history: ResponsesHistory) {
  return requests.filter((request) => request.body?.model === REASONING_AGENTS[history]);
}

beforeAll(async () => {
  let workerAlive = true;
  const arrivals = new Arrivals(() => fake.requests);
  fake = await startFakeOpenAI({
    scriptFor: () => scriptOf(workerAlive ? 120_000 : 0),
    intercept: () => {
      arrivals.notify();
      return undefined;
    },
  });
  fleet = await startResumeFleet("reasoning-resume", { FAKE_OPENAI_URL: fake.baseURL });
  const workerA = await fleet.startWorker("worker-a");
  for (const history of HISTORIES) {
    const { runId } = await fleet.errand.fire({
      agent: REASONING_AGENTS[history],
      input: "Lyon or Nice?",
    });
    runs.set(history, { runId, events: [] });
  }
  await arrivals.until((requests) =>
    HISTORIES.every((history) => requestsOf(requests, history).length === 2),
  );
  await workerA.signal("SIGKILL");
  workerAlive = false;
  await fleet.startWorker("worker-b");
  for (const run of runs.values()) run.events = await fleet.settledLog(run.runId);
}, 120_000);

afterAll(async () => {
  await fleet?.close();
  await fake?.close();
});

describe.each(HISTORIES)("a reasoning run (history %s) SIGKILLed between its steps", (history) => {
  it("resumes on another worker from its log", () => {
    const { events } = runs.get(history)!;
    const types = events.map((event) => event.type);
    expect(types).toEqual([
      "run-queued",
      "run-started",
      "model-responded",
      "tool-called",
      "tool-result",
      "run-started",
      "model-responded",
      "output-recorded",
      "finished",
    ]);
    expect(events.filter((event) => event.type === "run-started").map((e) => e.data)).toMatchObject(
      [
        { attempt: 1, workerId: "worker-a" },
        { attempt: 2, workerId: "worker-b" },
      ],
    );
    expect(events[2]).toMatchObject({
      data: {
        items: [{ type: "reasoning" }, { type: "function_call" }],
        responseId: expect.any(String),
      },
    });
  });

  it("sends step 2 exactly as the killed worker did, with the reasoning state the server issued at step 1", () => {
    const [step1, killedStep2, resumedStep2] = requestsOf(fake.requests, history);
    expect(requestsOf(fake.requests, history)).toHaveLength(3);
    expect(resumedStep2!.rawBody).toBe(killedStep2!.rawBody);

    const issued = step1!.answer!.body as {
      id: string;
      output: { type: string; id: string; encrypted_content?: string }[];
    };
    const reasoning = issued.output.find((item) => item.type === "reasoning")!;
    const sent = resumedStep2!.body as unknown as ResponsesRequest;
    if (history === "resend") {
      expect(sent).toMatchObject({ store: false, include: ["reasoning.encrypted_content"] });
      expect(sent.input).toContainEqual(
        expect.objectContaining({
          type: "reasoning",
          id: reasoning.id,
          encrypted_content: reasoning.encrypted_content,
        }),
      );
    } else {
      expect(sent).toMatchObject({ store: true, previous_response_id: issued.id });
    }
    expect(resumedStep2!.answer?.status).toBe(200);
  });
});
