/**
 * Bad input over real HTTP on a real deployment: a tool call whose
 * arguments the model nested thousands of levels deep is shown cut, never
 * as a failed page; event and blob numbers out of range are refused as
 * bad requests; oversized request bodies are refused before they are read.
 */
import { encodeCursor } from "@errand/core/ops";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_REQUEST_BODY_BYTES } from "./http/body-limit.js";
import { CSRF_HEADER } from "./http/security.js";
import type { TimelineEvent } from "./present/timeline.js";
import type { RunDetail } from "./reads/run-view.js";
import {
  CITY,
  cityAnswerSchema,
  DEEP_CALL_LEVELS,
  deepCallThenRecord,
} from "./test-support/agents.js";
import { answerBeforeBodyEnds, csrfTokenOf, requestJson } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

type ErrorAnswer = { error: { code: string; message: string } };

interface Page<T> {
  items: T[];
  hasMore: boolean;
}

let w: Workload;
let base: string;
let deepRun: string;

const get = <T>(path: string) => requestJson<T>(base, path);

beforeAll(async () => {
  w = await startWorkload("bad-input");
  base = w.dashboard.url;
  const { runId } = await w.errand.fire({
    agent: CITY,
    input: { script: deepCallThenRecord(DEEP_CALL_LEVELS) },
    outputSchema: cityAnswerSchema,
  });
  deepRun = runId;
  await w.waitForResult(deepRun);
});

afterAll(async () => {
  await w?.stop();
});

describe("a tool call nested 1,500 levels deep", () => {
  it("is in the run's timeline, cut with a note, and the run's page answers", async () => {
    const timeline = await get<Page<TimelineEvent>>(`/api/runs/${deepRun}/events`);
    expect(timeline.status).toBe(200);
    const responded = timeline.body.items.find((event) => event.type === "model-responded");
    expect(responded?.truncated).toBe(true);
    const shown = JSON.stringify(responded?.data);
    expect(shown).toContain('"name":"lookup_population"');
    expect(shown).toContain("nested deeper than 24 levels");
    const detail = await get<RunDetail>(`/api/runs/${deepRun}`);
    expect(detail.status).toBe(200);
    expect(detail.body.run.status).toBe("succeeded");
  });

  it("is cut deeper, never failed, when asked for whole", async () => {
    const timeline = await get<Page<TimelineEvent>>(`/api/runs/${deepRun}/events`);
    const seq = timeline.body.items.find((event) => event.type === "model-responded")!.seq;
    const whole = await get<TimelineEvent>(`/api/runs/${deepRun}/events/${seq}`);
    expect(whole.status).toBe(200);
    expect(whole.body.truncated).toBe(true);
    expect(JSON.stringify(whole.body.data)).toContain("nested deeper than 64 levels");
  });

  it("reaches a viewer of the run's live stream", async () => {
    const response = await fetch(new URL(`/api/runs/${deepRun}/live`, base));
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain("event: end");
    expect(text).toContain("nested deeper than 24 levels");
  });
});

describe("numbers out of range", () => {
  it("answer 400 invalid_spec for events, blobs, cursors and afterSeq, never 500", async () => {
    const huge = "99999999999999999999";
    const cursor = encodeCursor([1e20]);
    for (const path of [
      `/api/runs/${deepRun}/events/${huge}`,
      `/api/runs/${deepRun}/events/${Number.MAX_SAFE_INTEGER + 1}`,
      `/api/runs/${deepRun}/blobs/${huge}`,
      `/api/runs/${deepRun}/live?afterSeq=${huge}`,
      `/api/runs/${deepRun}/events?cursor=${cursor}`,
    ]) {
      const { status, body } = await get<ErrorAnswer>(path);
      expect(status, path).toBe(400);
      expect(body.error.code, path).toBe("invalid_spec");
    }
  });

  it("still answer 404 for an event or a blob that is in range but absent", async () => {
    const event = await get<ErrorAnswer>(`/api/runs/${deepRun}/events/${Number.MAX_SAFE_INTEGER}`);
    expect(event.status).toBe(404);
    const blob = await get<ErrorAnswer>(`/api/runs/${deepRun}/blobs/${Number.MAX_SAFE_INTEGER}`);
    expect(blob.status).toBe(404);
  });
});

describe("oversized request bodies", () => {
  const oneHundredMegabytes = 100 * 1024 * 1024;
  const firstChunk = Buffer.alloc(4 * MAX_REQUEST_BODY_BYTES, "{");

  async function actionHeaders(): Promise<Record<string, string>> {
    return {
      "content-type": "application/json",
      origin: new URL(base).origin,
      [CSRF_HEADER]: await csrfTokenOf(base),
    };
  }

  it("are refused with 413 from their Content-Length, before the body is sent", async () => {
    const answer = await answerBeforeBodyEnds(base, `/api/runs/${deepRun}/cancel`, {
      method: "POST",
      headers: { ...(await actionHeaders()), "content-length": String(oneHundredMegabytes) },
      chunk: firstChunk,
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe("close");
    expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
  });

  it("are refused with 413 once a chunked body passes the limit, and the route never runs", async () => {
    const replays = async () =>
      (await w.errand.list({ agent: CITY })).items.filter((run) => run.runId !== deepRun).length;
    const before = await replays();
    const answer = await answerBeforeBodyEnds(base, `/api/runs/${deepRun}/replay`, {
      method: "POST",
      headers: await actionHeaders(),
      chunk: firstChunk,
    });
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
    expect(await replays()).toBe(before);
  });

  it("are refused on any route, whatever the method", async () => {
    const answer = await answerBeforeBodyEnds(base, "/api/overview", {
      method: "GET",
      headers: { "content-length": String(oneHundredMegabytes) },
      chunk: firstChunk,
    });
    expect(answer.status).toBe(413);
  });
});
