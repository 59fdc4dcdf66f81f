import { spawn } from "node:child_process";
import { once } from "node:events";
import { RunResult, type Script } from "@errand/core";
import { PLACEHOLDER_API_KEY } from "@errand/runtime";
import { type ChatCompletionRequest, startFakeOpenAI } from "@errand/testing";
import { Redis } from "ioredis";
import { describe, expect, it } from "vitest";
import { ERRAND_BIN, runErrand } from "../test-support/run-errand.js";

/** True once nothing answers at `url` any more. */
async function isGone(url: string): Promise<boolean> {
  const redis = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
  });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return false;
  } catch {
    return true;
  } finally {
    redis.disconnect();
  }
}

function privateRedisUrl(stderr: string): string {
  const url = /a private Redis at (redis:\/\/\S+)/.exec(stderr)?.[1];
  expect(url).toBeDefined();
  return url!;
}

// What the plan of 12 children is designed to do, reasoned from the scenarios:
// the first five play each scenario once, the rest alternate at once / corrected.
const DESIGNED: [string, string, string | undefined][] = [
  ["Tokyo", "succeeded", undefined],
  ["Lagos", "succeeded", undefined],
  ["São Paulo", "failed", "no_structured_output"],
  ["Mumbai", "cancelled", "cancelled"],
  ["Cairo", "failed", "model_error"],
  ["Jakarta", "succeeded", undefined],
  ["Mexico City", "succeeded", undefined],
  ["Istanbul", "succeeded", undefined],
  ["Seoul", "succeeded", undefined],
  ["Lima", "succeeded", undefined],
  ["London", "succeeded", undefined],
  ["Bogotá", "succeeded", undefined],
];

/** The script a run carries in its input: the run's user message is its input as JSON. */
function scriptOfInput(request: ChatCompletionRequest): Script | undefined {
  const user = request.messages.find((message) => message.role === "user");
  if (typeof user?.content !== "string") return undefined;
  return (JSON.parse(user.content) as { script?: Script }).script;
}

describe("errand demo", () => {
  it("--json settles every run as designed, on a private Redis and the scripted model", async () => {
    const outcome = await runErrand(["demo", "--json"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { parent, children } = JSON.parse(outcome.stdout);
    const parentResult = RunResult.parse(parent);
    const childResults = RunResult.array().parse(children);
    expect(parentResult).toMatchObject({
      agent: "demo-parent",
      status: "succeeded",
      output: { total: 12, succeeded: 9, failed: 2, cancelled: 1 },
    });
    expect(childResults.map((child) => [child.status, child.error?.code])).toEqual(
      DESIGNED.map(([, status, code]) => [status, code]),
    );
    for (const [i, child] of childResults.entries()) {
      expect(child.parentRunId).toBe(parentResult.runId);
      if (child.status === "succeeded") {
        expect((child.output as { city: string }).city).toBe(DESIGNED[i]?.[0]);
      }
    }
    expect(childResults[1]?.steps).toBe(2); // invalid, then corrected
    expect(outcome.stdout.trimEnd().split("\n")).toHaveLength(1);
    expect(outcome.stderr).toBe("");
  });

  it("shows the table and the counts to people, and removes its private Redis", async () => {
    const outcome = await runErrand(["demo", "--runs", "5"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const lines = outcome.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^child +status +output or error +steps$/);
    expect(lines[1]).toMatch(
      /^#1 Tokyo \(recorded-at-once\) +succeeded +\{"city":"Tokyo","population":13960000\} +1$/,
    );
    expect(lines).toContain("5 runs: 2 succeeded, 2 failed, 1 cancelled");
    expect(lines.at(-1)).toBe("Every run settled as designed.");
    // Not a terminal: one progress line per settled child on stderr.
    expect(outcome.stderr.match(/^\d\/5 #\d /gm)).toHaveLength(5);
    expect(await isGone(privateRedisUrl(outcome.stderr))).toBe(true);
  });

  it("settles the most children it allows (--runs 250) as designed", async () => {
    const outcome = await runErrand(["demo", "--runs", "250", "--json"]);
    expect(outcome.code, outcome.stderr).toBe(0);
    const { parent, children } = JSON.parse(outcome.stdout);
    expect(RunResult.parse(parent).output).toEqual({
      total: 250,
      succeeded: 247,
      failed: 2,
      cancelled: 1,
    });
    expect(children).toHaveLength(250);
  });

  it("refuses more children than it allows with exit 2, naming the range, before starting anything", async () => {
    const outcome = await runErrand(["demo", "--runs", "251"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toBe(
      'errand: demo: --runs must be a whole number from 1 to 250, not "251"\n',
    );
  });

  it.for<[string, Record<string, string>, string]>([
    ["OPENAI_API_KEY and OPENAI_BASE_URL", { OPENAI_API_KEY: "test-key" }, "Bearer test-key"],
    // A local server (Ollama, vLLM, …) needs no key: a placeholder is sent.
    ["OPENAI_BASE_URL alone", { OPENAI_API_KEY: "" }, `Bearer ${PLACEHOLDER_API_KEY}`],
  ])(
    "runs the same agents on an OpenAI-compatible server given %s",
    async ([, env, authorization]) => {
      // The fake server plays each run's own script over HTTP, through the real openai client.
      const fake = await startFakeOpenAI({ scriptFor: scriptOfInput });
      try {
        const outcome = await runErrand(["demo", "--runs", "5", "--json"], {
          env: { ...env, OPENAI_BASE_URL: fake.baseURL, ERRAND_MODEL: "fake-model" },
        });
        expect(outcome.code, outcome.stderr).toBe(0);
        const { parent, children } = JSON.parse(outcome.stdout);
        expect(RunResult.parse(parent).output).toEqual({
          total: 5,
          succeeded: 2,
          failed: 2,
          cancelled: 1,
        });
        expect(
          RunResult.array()
            .parse(children)
            .map((child) => [child.status, child.error?.code]),
        ).toEqual(DESIGNED.slice(0, 5).map(([, status, code]) => [status, code]));
        expect(fake.requests.every((request) => request.body?.model === "fake-model")).toBe(true);
        expect(
          fake.requests.every((request) => request.headers.authorization === authorization),
        ).toBe(true);
        expect(fake.requests.length).toBeGreaterThanOrEqual(1 + 5);
      } finally {
        await fake.close();
      }
    },
  );

  it("removes its private Redis when interrupted with Ctrl-C", async () => {
    const child = spawn(process.execPath, [ERRAND_BIN, "demo"], {
      env: { ...process.env, REDIS_URL: "", OPENAI_API_KEY: "", OPENAI_BASE_URL: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    const exited = once(child, "exit");
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (stderr.includes("(removed afterwards)")) resolve();
      });
    });
    child.kill("SIGINT");
    const [code] = await exited;
    expect(code).toBe(1);
    expect(stderr).toMatch(/interrupted/);
    expect(await isGone(privateRedisUrl(stderr))).toBe(true);
  });
});
