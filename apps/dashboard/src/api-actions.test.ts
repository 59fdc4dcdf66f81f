/**
 * The actions and the guards over real HTTP: cancel (with and without
 * cascade), replay and answering a waitpoint from the page's session; refused without the token,
 * from another origin or site, without the CSRF header, in read-only mode,
 * and for a foreign Host.
 */
import type { CancelResult, CompletedWaitpoint, FireResult } from "@errand/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSRF_HEADER, SESSION_COOKIE } from "./http/security.js";
import type { RunDetail } from "./reads/run-view.js";
import {
  CITY,
  cityAnswerSchema,
  cityItem,
  LEAD,
  leadScript,
  lookupThenRecord,
  slowChild,
} from "./test-support/agents.js";
import { csrfTokenOf, postAction, rawRequest, requestJson } from "./test-support/http.js";
import { fireRunningRun } from "./test-support/running-run.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

type ErrorAnswer = { error: { code: string; message: string } };

const TOKEN = "test-token-0123456789abcdef";

let w: Workload;
let base: string;

beforeAll(async () => {
  w = await startWorkload("actions");
  base = w.dashboard.url;
});

afterAll(async () => {
  await w?.stop();
});

const fireSlow = () => fireRunningRun(w);

/** Fires a lead that asks `question` and resolves once it parked on it: its runId and the token. */
async function fireAsking(question: string): Promise<{ runId: string; token: string }> {
  const script = [{ call: [{ tool: "ask", args: { question } }] }, { say: "ok" }];
  const { runId } = await w.errand.fire({ agent: LEAD, input: { script } });
  await w.waitForEvent(runId, (event) => event.type === "run-parked");
  const { items } = await w.errand.waitpoints.list({ runId });
  return { runId, token: items[0]!.token };
}

describe("POST /api/runs/:runId/answer", () => {
  it("refuses a wrong answer with its issues, answers a right one once, and guards like cancel", async () => {
    const { runId, token } = await fireAsking("Refund 80 EUR?");
    const path = `/api/runs/${runId}/answer`;
    const forged = await requestJson<ErrorAnswer>(base, path, {
      method: "POST",
      headers: { "content-type": "application/json", [CSRF_HEADER]: "forged" },
      body: JSON.stringify({ token, answer: { approve: true, note: "x" } }),
    });
    expect(forged.status).toBe(403);
    const foreign = await postAction<ErrorAnswer>(
      base,
      path,
      { token, answer: { approve: true, note: "x" } },
      { origin: "http://evil.example" },
    );
    expect(foreign.status).toBe(403);

    const wrong = await postAction<ErrorAnswer>(base, path, { token, answer: { approve: 1 } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.code).toBe("invalid_answer");
    expect(wrong.body.error.message).toContain("note");
    const other = await fireAsking("Refund 5 EUR?");
    const misplaced = await postAction<ErrorAnswer>(base, path, { token: other.token, answer: {} });
    expect(misplaced.body.error.code).toBe("invalid_spec");
    expect(
      (await w.errand.store.readLog(runId)).some((e) => e.type === "waitpoint-completed"),
    ).toBe(false);

    const answer = { approve: true, note: "fine" };
    const answered = await postAction<CompletedWaitpoint>(base, path, {
      token,
      answer,
      answeredBy: "ada",
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({ runId, token });
    const events = await w.waitForEvent(runId);
    expect(events.at(-1)?.type).toBe("finished");
    const again = await postAction<ErrorAnswer>(base, path, { token, answer });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe("waitpoint_answered");
    await w.errand.cancel(other.runId);
  });
});

describe("POST /api/runs/:runId/cancel", () => {
  it("cancels a running run: the worker aborts it and it settles cancelled", async () => {
    const runId = await fireSlow();
    const { status, body } = await postAction<CancelResult>(base, `/api/runs/${runId}/cancel`, {
      reason: "checked from a test",
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({ runId, requested: true });
    const events = await w.waitForEvent(runId);
    expect(events.at(-1)?.type).toBe("cancelled");
    const requested = events.find((event) => event.type === "cancel-requested");
    expect(requested?.data).toEqual({ reason: "checked from a test", by: "dashboard" });
    const again = await postAction<CancelResult>(base, `/api/runs/${runId}/cancel`);
    expect(again.body).toEqual({ runId, status: "cancelled", requested: false });
  });

  it("cascades to the descendants when asked", async () => {
    const { runId: lead } = await w.errand.fire({
      agent: LEAD,
      input: { script: leadScript([cityItem(slowChild()), cityItem(slowChild())]) },
    });
    await w.waitForEvent(
      lead,
      (event) => event.type === "tool-called" && event.data.name === "collect_agents",
    );
    const { body } = await postAction<CancelResult>(base, `/api/runs/${lead}/cancel`, {
      cascade: true,
    });
    expect(body.descendants).toHaveLength(2);
    const ends = await Promise.all(
      [lead, ...body.descendants!.map((child) => child.runId)].map(async (runId) => {
        const events = await w.waitForEvent(runId);
        return events.at(-1)?.type;
      }),
    );
    expect(ends).toEqual(["cancelled", "cancelled", "cancelled"]);
  });

  it("refuses a body that is not a cancel request", async () => {
    const csrf = await csrfTokenOf(base);
    const runId = (await w.errand.list({ limit: 1 })).items[0]!.runId;
    const path = `/api/runs/${runId}/cancel`;
    const headers = { origin: new URL(base).origin, [CSRF_HEADER]: csrf };
    const notJson = await requestJson<ErrorAnswer>(base, path, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain" },
      body: "cascade",
    });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe("invalid_request");
    const unknownField = await postAction<ErrorAnswer>(base, path, { cascade: "yes", extra: 1 });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body.error.message).toMatch(/cascade/);
  });
});

describe("POST /api/runs/:runId/replay", () => {
  it("fires the same agent with the same input, schema and metadata, marked as a replay", async () => {
    const { runId: original } = await w.errand.fire({
      agent: CITY,
      input: { script: lookupThenRecord("Turin") },
      outputSchema: cityAnswerSchema,
      metadata: { ticket: "T-7" },
      deadlineMs: 120_000,
    });
    await w.waitForEvent(original);
    const { status, body } = await postAction<FireResult>(base, `/api/runs/${original}/replay`);
    expect(status).toBe(201);
    expect(body.runId).not.toBe(original);
    const events = await w.waitForEvent(body.runId);
    const [first] = await w.errand.store.readLog(original);
    const queued = events[0]!;
    if (queued.type !== "run-queued" || first?.type !== "run-queued")
      throw new Error("no run-queued");
    expect(queued.data.agent).toBe(CITY);
    expect(queued.data.input).toEqual(first.data.input);
    expect(queued.data.outputSchema).toEqual(first.data.outputSchema);
    expect(queued.data.metadata).toEqual({ ticket: "T-7", rerunOf: original });
    expect(queued.data.parentRunId).toBeUndefined();
    const allowance = Date.parse(queued.data.limits.deadlineAt!) - Date.parse(queued.at);
    expect(allowance).toBe(120_000);
    await w.waitForResult(body.runId);
    const detail = await requestJson<RunDetail>(base, `/api/runs/${body.runId}`);
    expect(detail.body.run.output).toEqual({ city: "Turin", population: 5_000 });
  });
});

describe("guards of actions", () => {
  let runId: string;
  let path: string;

  beforeAll(async () => {
    runId = await fireSlow();
    path = `/api/runs/${runId}/cancel`;
  });

  afterAll(async () => {
    await w.errand.cancel(runId);
  });

  async function expectRunning() {
    const head = await w.errand.store.readHead(runId);
    expect(head?.cancelRequested).toBe(false);
  }

  it("refuses an action without the CSRF header, or with a wrong one", async () => {
    for (const csrf of [undefined, "forged"]) {
      const { status, body } = await requestJson<ErrorAnswer>(base, path, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          ...(csrf === undefined ? {} : { [CSRF_HEADER]: csrf }),
        },
        body: "{}",
      });
      expect(status).toBe(403);
      expect(body.error.code).toBe("csrf_refused");
    }
    await expectRunning();
  });

  it("refuses an action from another origin or a cross-site request, even with the CSRF token", async () => {
    const cases: Record<string, string>[] = [
      { origin: "http://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of cases) {
      const { status, body } = await postAction<ErrorAnswer>(base, path, {}, headers);
      expect(status, JSON.stringify(headers)).toBe(403);
      expect(body.error.code).toBe("csrf_refused");
    }
    await expectRunning();
  });

  it("refuses every action in read-only mode, and still reads", async () => {
    const readOnly = await w.startDashboard({ readOnly: true });
    for (const action of ["cancel", "replay", "answer"]) {
      const { status, body } = await postAction<ErrorAnswer>(
        readOnly.url,
        `/api/runs/${runId}/${action}`,
      );
      expect(status, action).toBe(403);
      expect(body.error.code).toBe("read_only");
      expect(body.error.message).toMatch(/read-only/);
    }
    const session = await requestJson<{ readOnly: boolean }>(readOnly.url, "/api/session");
    expect(session.body.readOnly).toBe(true);
    const detail = await requestJson<RunDetail>(readOnly.url, `/api/runs/${runId}`);
    expect(detail.body.run.status).toBe("running");
    await expectRunning();
  });

  it("refuses requests for a host name that is not loopback", async () => {
    const { port } = new URL(base);
    const answer = await rawRequest(base, "/api/overview", {
      headers: { host: `rebound.example:${port}` },
    });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error.code).toBe("forbidden_host");
  });
});

describe("a dashboard with a token", () => {
  let url: string;

  beforeAll(async () => {
    url = (await w.startDashboard({ token: TOKEN })).url;
  });

  it("refuses every request without the token, API and page alike", async () => {
    for (const path of ["/api/overview", "/api/runs", "/api/session", "/api/live"]) {
      const { status, body } = await requestJson<ErrorAnswer>(url, path);
      expect(status, path).toBe(401);
      expect(body.error.code).toBe("unauthorized");
    }
    const page = await fetch(new URL("/", url));
    expect(page.status).toBe(401);
    const wrong = await requestJson<ErrorAnswer>(url, "/api/runs", {
      headers: { authorization: "Bearer not-the-token-at-all" },
    });
    expect(wrong.status).toBe(401);
    const action = await postAction<ErrorAnswer>(
      url,
      "/api/runs/R0000000000000000000000000000/cancel",
    );
    expect(action.status).toBe(401);
  });

  it("answers with the bearer token", async () => {
    const { status } = await requestJson(url, "/api/runs", {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(status).toBe(200);
  });

  it("turns ?token= into a session cookie that holds no token, then answers with the cookie", async () => {
    const wrong = await fetch(new URL("/?token=wrong-token-wrong-token", url), {
      redirect: "manual",
    });
    expect(wrong.status).toBe(401);
    const opened = await fetch(new URL(`/?token=${TOKEN}`, url), { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toBe("/");
    const setCookie = opened.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(";")[0]!;
    const { status } = await requestJson(url, "/api/runs", { headers: { cookie } });
    expect(status).toBe(200);
    const runId = await fireSlow();
    const cancelled = await postAction<CancelResult>(
      url,
      `/api/runs/${runId}/cancel`,
      {},
      { cookie },
    );
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.requested).toBe(true);
    await w.waitForEvent(runId);
  });
});
