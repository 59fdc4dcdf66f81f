/**
 * The mistakes a first call with curl makes — a body sent with `-d` alone
 * (a form's content type), a URL without `/v1`, a key without `Bearer` —
 * each refused with a message and a fix that say what to send instead.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { type ApiOnly, startApiOnly } from "./test-support/api-only.js";

interface Refusal {
  error: { code: string; message: string; retryable: boolean; fix?: string };
}

let api: ApiOnly;
beforeAll(async () => {
  api = await startApiOnly();
});
afterAll(async () => api?.stop());

it("refuses a JSON body sent as a form with 415, naming the content type to send", async () => {
  const response = await fetch(`${api.url}/v1/runs`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: JSON.stringify({ agent: "greeter", input: "Ada" }),
  });
  expect(response.status).toBe(415);
  const refusal = (await response.json()) as Refusal;
  expect(refusal.error).toMatchObject({ code: "invalid_request", retryable: false });
  expect(refusal.error.message).toContain("content-type: application/json");
  expect(refusal.error.message).toContain('not "application/x-www-form-urlencoded"');
  expect(refusal.error.fix).toContain("content-type: application/json");
});

it("answers a route that does not exist with the way to the document that lists them", async () => {
  for (const path of ["/", "/runs"]) {
    const response = await fetch(`${api.url}${path}`);
    expect(response.status).toBe(404);
    const refusal = (await response.json()) as Refusal;
    expect(refusal.error.code).toBe("not_found");
    expect(refusal.error.message).toBe(`no such route: GET ${path}`);
    expect(refusal.error.fix).toContain("GET /v1/openapi.json");
  }
});

it("refuses a key sent without the Bearer scheme saying how the header is written", async () => {
  const response = await fetch(`${api.url}/v1/agents`, {
    headers: { authorization: "errk_0123456789abcdef_notAKey" },
  });
  expect(response.status).toBe(401);
  expect(response.headers.get("www-authenticate")).toBe('Bearer realm="errand"');
  const refusal = (await response.json()) as Refusal;
  expect(refusal.error.code).toBe("unauthorized");
  expect(refusal.error.message).toBe(
    "the Authorization header is not `Bearer <key>`: write the word Bearer, a space, then the key",
  );
});
