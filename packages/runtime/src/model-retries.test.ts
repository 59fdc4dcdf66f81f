import { ErrandError, isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { abortableSleep } from "./abort.js";
import { ModelError } from "./errors.js";
import type { Model, ModelRequest, ModelResponse } from "./model.js";
import {
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  respondWithRetries,
  retryDelayMs,
} from "./model-retries.js";

const answer: ModelResponse = {
  text: "ok",
  calls: [],
  usage: { inputTokens: 1, outputTokens: 1 },
  finish: "stop",
};

/** A model that fails with each given error in turn, then answers. */
function flakyModel(failures: unknown[]): Model & { requests: number } {
  const model = {
    name: "flaky",
    supportsTools: true,
    requests: 0,
    async respond(): Promise<ModelResponse> {
      const failure = failures[model.requests++];
      if (failure !== undefined) throw failure;
      return answer;
    },
  };
  return model;
}

const request = { runId: "r", step: 1 } as ModelRequest;

/** A policy whose waits are recorded and skipped. */
function recordedPolicy(overrides: Partial<RetryPolicy> = {}): RetryPolicy & { waits: number[] } {
  const waits: number[] = [];
  return {
    ...DEFAULT_RETRY_POLICY,
    ...overrides,
    waits,
    sleep: async (ms) => {
      waits.push(ms);
    },
  };
}

const busy = (retryAfterMs?: number) =>
  new ModelError("busy", {
    retryable: true,
    status: 429,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });

describe("respondWithRetries", () => {
  it("retries retryable errors and waits exactly the retry-after the provider asked for", async () => {
    const model = flakyModel([busy(1500), busy(250)]);
    const policy = recordedPolicy();
    const response = await respondWithRetries(model, request, new AbortController().signal, policy);
    expect(response).toEqual(answer);
    expect(model.requests).toBe(3);
    expect(policy.waits).toEqual([1500, 250]);
  });

  it("backs off exponentially with jitter when no retry-after is given", async () => {
    const model = flakyModel([busy(), busy(), busy()]);
    const policy = recordedPolicy({ baseDelayMs: 100, maxDelayMs: 300 });
    await respondWithRetries(model, request, new AbortController().signal, policy);
    const ceilings = [100, 200, 300];
    policy.waits.forEach((wait, i) => {
      expect(wait).toBeLessThanOrEqual(ceilings[i]!);
      expect(wait).toBeGreaterThanOrEqual(ceilings[i]! * 0.75);
    });
    expect(policy.waits).toHaveLength(3);
  });

  it("does not retry a non-retryable error", async () => {
    const model = flakyModel([new ModelError("bad request", { status: 400 })]);
    const policy = recordedPolicy();
    const error = await respondWithRetries(model, request, new AbortController().signal, policy)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).message).toBe("bad request");
    expect(model.requests).toBe(1);
    expect(policy.waits).toEqual([]);
  });

  it("gives up with the last error after maxRetries retries", async () => {
    const model = flakyModel([busy(), busy(), busy()]);
    const policy = recordedPolicy({ maxRetries: 2 });
    const error = await respondWithRetries(model, request, new AbortController().signal, policy)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "model_error", retryable: true, status: 429 });
    expect(model.requests).toBe(3);
  });

  it("fails at once, still retryable, when retry-after is longer than the policy allows", async () => {
    const model = flakyModel([busy(120_000)]);
    const policy = recordedPolicy({ maxRetryAfterMs: 60_000 });
    const error = await respondWithRetries(model, request, new AbortController().signal, policy)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "model_error", retryable: true });
    expect(model.requests).toBe(1);
    expect(policy.waits).toEqual([]);
  });

  it("stops waiting when the signal fires and makes no further request", async () => {
    const model = flakyModel([busy(60_000)]);
    const controller = new AbortController();
    const policy: RetryPolicy = {
      ...DEFAULT_RETRY_POLICY,
      sleep: (ms, signal) => {
        const wait = abortableSleep(ms, signal);
        controller.abort("stop");
        return wait;
      },
    };
    const error = await respondWithRetries(model, request, controller.signal, policy)
      .then(() => undefined)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe("stop");
    expect(model.requests).toBe(1);
  });

  it("turns anything else a model throws into a non-retryable ModelError, but passes ErrandErrors through", async () => {
    const thrown = await respondWithRetries(
      flakyModel([new TypeError("boom")]),
      request,
      new AbortController().signal,
      recordedPolicy(),
    ).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(ModelError);
    expect(thrown).toMatchObject({ retryable: false, message: "model flaky failed: boom" });
    const own = new ErrandError("invalid_spec", "no such model");
    const passed = await respondWithRetries(
      flakyModel([own]),
      request,
      new AbortController().signal,
      recordedPolicy(),
    ).catch((e: unknown) => e);
    expect(isErrandError(passed, "invalid_spec")).toBe(true);
  });
});

describe("retryDelayMs", () => {
  const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 500, maxDelayMs: 8_000 };

  it("doubles from the base delay up to the maximum, minus up to a quarter of jitter", () => {
    const error = busy();
    expect([0, 1, 2, 3, 4, 5].map((n) => retryDelayMs(error, n, policy, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000,
    ]);
    expect(retryDelayMs(error, 1, policy, () => 1)).toBe(750);
  });
});
