/**
 * The CLI's answer path, on real processes: a run of the fixture worker
 * parks on `ask`; `errand runs waiting` lists its question; `errand runs
 * answer <runId> --json …` answers it (a wrong answer refused first, exit 2),
 * the run resumes with the answer, and a second answer is refused (exit 1).
 */
import { foldRun, type RunEvent } from "@errand/core";
import { waitpointToken } from "@errand/core/ops";
import { createErrand, type Errand } from "@errand/engine";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startErrandProcesses } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const prefix = uniqueKeyPrefix("cli-answer");
let server: RedisServer;
let processes: Awaited<ReturnType<typeof startErrandProcesses>>;
let client: Errand;

function errand(args: readonly string[]) {
  return runErrand([...args, "--prefix", prefix], { env: { REDIS_URL: server.url } });
}

/** The run's events, followed until one matches `until`. */
async function eventsUntil(runId: string, until: (event: RunEvent) => boolean) {
  const events: RunEvent[] = [];
  for await (const event of client.events(runId, { follow: true })) {
    events.push(event);
    if (until(event)) return events;
  }
  throw new Error(`run ${runId} ended first: ${JSON.stringify(events)}`);
}

beforeAll(async () => {
  server = await startRedis({ maxmemoryPolicy: "noeviction" });
  processes = await startErrandProcesses(server.url, prefix);
  client = createErrand({ connection: server.url, prefix });
});

afterAll(async () => {
  await client?.close();
  await processes?.stop();
  await server?.stop();
});

describe("errand runs answer", () => {
  it("answers the waitpoint a run waits on; the run resumes with the answer; a second answer is refused", async () => {
    const script = [{ call: [{ tool: "ask", args: { question: "Which city?" } }] }, { say: "ok" }];
    const fired = await errand([
      "fire",
      "scripted-parent",
      "--input",
      JSON.stringify({ script }),
      "--json",
    ]);
    expect(fired.code, fired.stderr).toBe(0);
    const { runId } = JSON.parse(fired.stdout) as { runId: string };
    const parked = await eventsUntil(runId, (event) => event.type === "run-parked");
    const callId = foldRun(parked).steps[0]?.calls[0]?.callId ?? "";
    const token = waitpointToken({ runId, step: 1, callId });

    const waiting = await errand(["runs", "waiting"]);
    expect(waiting.code, waiting.stderr).toBe(0);
    expect(waiting.stdout).toContain("asks: Which city?");
    expect(waiting.stdout).toContain(`errand runs answer ${token}`);
    const onePage = JSON.parse(
      (await errand(["runs", "waiting", "--limit", "1", "--json"])).stdout,
    );
    expect(onePage).toMatchObject({ count: 1, hasMore: false });
    expect((await errand(["runs", "waiting", "--limit", "0"])).code).toBe(2);

    const notJson = await errand(["runs", "answer", runId, "--json", "{oslo"]);
    expect(notJson.code).toBe(2);

    const answered = await errand(["runs", "answer", runId, "--json", '"Oslo"', "--by", "ada"]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stdout).toContain(`${runId}: answered ${token}`);

    const events = await eventsUntil(runId, (event) => event.type === "finished");
    expect(events.filter((e) => e.type === "tool-result").map((e) => e.data)).toEqual([
      expect.objectContaining({
        result: {
          answered: true,
          answer: "Oslo",
          answeredBy: "ada",
          answeredAt: expect.any(String),
        },
      }),
    ]);

    const again = await errand(["runs", "answer", token, "--json", '"Lima"']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("already answered by ada");
    const none = await errand(["runs", "waiting", "--json"]);
    expect(JSON.parse(none.stdout)).toMatchObject({ items: [], count: 0, hasMore: false });
  });
});
