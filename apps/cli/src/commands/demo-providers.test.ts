/**
 * `errand demo` on Claude and on Gemini, picked by `ERRAND_MODEL`: the same
 * agents and the same designed outcomes as on the scripted model, through
 * the real `@ai-sdk/anthropic` and `@ai-sdk/google` packages against the
 * fake servers of `@errand/testing` (each run's turns carried in its input,
 * as the scripted model plays them); and a provider picked without its key
 * is refused with exit 2, naming the variable, before anything starts.
 */
import { RunResult } from "@errand/core";
import {
  type ProviderRequest,
  type ProviderTurn,
  startFakeAnthropic,
  startFakeGemini,
} from "@errand/testing";
import { describe, expect, it } from "vitest";
import { runErrand } from "../test-support/run-errand.js";

/** The turns a run carries in its input: the first user message is the input as JSON. */
function turnsOfInput(_model: string, firstUserText: string | undefined) {
  if (firstUserText === undefined) return undefined;
  return (JSON.parse(firstUserText) as { script?: ProviderTurn[] }).script;
}

const PROVIDERS = [
  {
    name: "anthropic",
    start: () => startFakeAnthropic({ turnsFor: turnsOfInput }),
    env: (baseURL: string) => ({
      ERRAND_MODEL: "anthropic/claude-fake",
      ANTHROPIC_API_KEY: "test-key",
      ANTHROPIC_BASE_URL: baseURL,
    }),
    sentKey: (request: ProviderRequest) => request.headers["x-api-key"],
  },
  {
    name: "google",
    start: () => startFakeGemini({ turnsFor: turnsOfInput }),
    env: (baseURL: string) => ({
      ERRAND_MODEL: "google/gemini-fake",
      GOOGLE_GENERATIVE_AI_API_KEY: "test-key",
      GOOGLE_GENERATIVE_AI_BASE_URL: baseURL,
    }),
    sentKey: (request: ProviderRequest) => request.headers["x-goog-api-key"],
  },
];

describe("errand demo on another provider", () => {
  it.for(PROVIDERS)("runs the demo's agents on $name, as designed", async (provider) => {
    const fake = await provider.start();
    try {
      const outcome = await runErrand(["demo", "--runs", "5", "--json"], {
        env: provider.env(fake.baseURL),
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
          .map((child) => child.status),
      ).toEqual(["succeeded", "succeeded", "failed", "cancelled", "failed"]);
      expect(fake.requests.length).toBeGreaterThanOrEqual(1 + 5);
      expect(fake.requests.every((request) => provider.sentKey(request) === "test-key")).toBe(true);
    } finally {
      await fake.close();
    }
  });

  it.for([
    ["anthropic/claude-fake", "ANTHROPIC_API_KEY"],
    ["google/gemini-fake", "GOOGLE_GENERATIVE_AI_API_KEY"],
  ])("refuses %s without %s with exit 2, naming it", async ([model, variable]) => {
    const outcome = await runErrand(["demo", "--runs", "1"], { env: { ERRAND_MODEL: model } });
    expect(outcome.code).toBe(2);
    expect(outcome.stdout).toBe("");
    expect(outcome.stderr).toContain(`${variable} is not set`);
  });
});
