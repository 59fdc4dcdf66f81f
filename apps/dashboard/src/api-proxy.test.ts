/**
 * The dashboard behind a reverse proxy that terminates TLS, over real HTTP
 * with the headers such a proxy sends (`Host` the public name,
 * `X-Forwarded-Proto: https`, `X-Forwarded-For`) and the `Origin` the
 * browser sends: with `publicUrl`, actions from the public origin are
 * accepted, the session cookie is `Secure`, foreign origins and hosts are
 * still refused; and the redirect that drops `?token=` never leaves the site.
 */
import type { CancelResult, FireResult } from "@errand/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CSRF_HEADER, SESSION_COOKIE } from "./http/security.js";
import { resolveOptions } from "./options.js";
import { type RawAnswer, rawRequest } from "./test-support/http.js";
import { fireRunningRun } from "./test-support/running-run.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

const TOKEN = "proxy-token-0123456789abcdef";
const PUBLIC_HOST = "errand.example.com";
const PUBLIC_URL = `https://${PUBLIC_HOST}`;

let w: Workload;
/** The dashboard as the proxy reaches it: on loopback, with the public URL. */
let behindProxy: string;
/** A dashboard with a token and no public URL. */
let direct: string;

beforeAll(async () => {
  w = await startWorkload("proxy");
  behindProxy = (await w.startDashboard({ token: TOKEN, publicUrl: PUBLIC_URL })).url;
  direct = (await w.startDashboard({ token: TOKEN })).url;
});

afterAll(async () => {
  await w?.stop();
});

/** The headers a TLS-terminating proxy adds to what the browser sent. */
const proxied = (browser: Record<string, string> = {}): Record<string, string> => ({
  host: PUBLIC_HOST,
  "x-forwarded-proto": "https",
  "x-forwarded-host": PUBLIC_HOST,
  "x-forwarded-for": "203.0.113.7",
  ...browser,
});

const json = (answer: RawAnswer) => JSON.parse(answer.body);

const fireSlow = () => fireRunningRun(w);

/** Opens the page once with `?token=` through the proxy: the session cookie. */
async function openSession(): Promise<{ setCookie: string; cookie: string }> {
  const opened = await rawRequest(behindProxy, `/?token=${TOKEN}`, { headers: proxied() });
  expect(opened.status).toBe(303);
  const setCookie = opened.headers["set-cookie"]?.[0] ?? "";
  return { setCookie, cookie: setCookie.split(";")[0]! };
}

/** POSTs an action as the page does through the proxy, from `origin`. */
async function action(path: string, cookie: string, origin = PUBLIC_URL): Promise<RawAnswer> {
  const session = await rawRequest(behindProxy, "/api/session", { headers: proxied({ cookie }) });
  const csrf = json(session).csrfToken as string;
  return rawRequest(behindProxy, path, {
    method: "POST",
    headers: proxied({
      cookie,
      origin,
      "sec-fetch-site": "same-origin",
      "content-type": "application/json",
      [CSRF_HEADER]: csrf,
    }),
    body: "{}",
  });
}

describe("behind a TLS-terminating proxy, with publicUrl", () => {
  it("sets a Secure session cookie from ?token=", async () => {
    const { setCookie } = await openSession();
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/HttpOnly/);
  });

  it("cancels and replays from the page at the public origin", async () => {
    const { cookie } = await openSession();
    const runId = await fireSlow();
    const cancelled = await action(`/api/runs/${runId}/cancel`, cookie);
    expect(cancelled.status, cancelled.body).toBe(200);
    expect((json(cancelled) as CancelResult).requested).toBe(true);
    expect((await w.waitForEvent(runId)).at(-1)?.type).toBe("cancelled");
    const replayed = await action(`/api/runs/${runId}/replay`, cookie);
    expect(replayed.status, replayed.body).toBe(201);
    const replay = (json(replayed) as FireResult).runId;
    await w.errand.cancel(replay);
  });

  it("still refuses actions from another origin, or from the public host without TLS", async () => {
    const { cookie } = await openSession();
    const runId = await fireSlow();
    for (const origin of ["https://evil.example", `http://${PUBLIC_HOST}`]) {
      const refused = await action(`/api/runs/${runId}/cancel`, cookie, origin);
      expect(refused.status, origin).toBe(403);
      expect(json(refused).error.code).toBe("csrf_refused");
    }
    expect((await w.errand.store.readHead(runId))?.cancelRequested).toBe(false);
    await w.errand.cancel(runId);
  });

  it("still refuses requests for a host that is neither loopback nor the public one", async () => {
    const { cookie } = await openSession();
    const answer = await rawRequest(behindProxy, "/api/overview", {
      headers: proxied({ host: "rebound.example", cookie }),
    });
    expect(answer.status).toBe(403);
    expect(json(answer).error.code).toBe("forbidden_host");
    const publicHost = await rawRequest(behindProxy, "/api/overview", {
      headers: proxied({ cookie }),
    });
    expect(publicHost.status).toBe(200);
  });
});

describe("behind the same proxy, without publicUrl", () => {
  it("refuses the page's actions: the public origin is not the dashboard's", async () => {
    const { port } = new URL(direct);
    const runId = await fireSlow();
    const headers = { authorization: `Bearer ${TOKEN}`, host: `127.0.0.1:${port}` };
    const session = await rawRequest(direct, "/api/session", { headers });
    const refused = await rawRequest(direct, `/api/runs/${runId}/cancel`, {
      method: "POST",
      headers: {
        ...headers,
        "x-forwarded-proto": "https",
        origin: PUBLIC_URL,
        "content-type": "application/json",
        [CSRF_HEADER]: json(session).csrfToken,
      },
      body: "{}",
    });
    expect(refused.status).toBe(403);
    expect(json(refused).error.code).toBe("csrf_refused");
    await w.errand.cancel(runId);
  });
});

describe("the redirect that drops ?token=", () => {
  it("stays on the dashboard for a path that starts with slashes or encoded backslashes", async () => {
    for (const path of ["//evil.example/", "///evil.example/x", "/%5C%5Cevil.example/"]) {
      const answer = await rawRequest(direct, `${path}?token=${TOKEN}&keep=1`);
      expect(answer.status, path).toBe(303);
      const location = answer.headers.location ?? "";
      expect(location, path).toMatch(/^\/[^/\\]/);
      expect(new URL(location, direct).origin, path).toBe(new URL(direct).origin);
      expect(location, path).toContain("keep=1");
      expect(location, path).not.toContain(TOKEN);
    }
  });
});

describe("the public URL option", () => {
  const connection = "redis://127.0.0.1:1";

  it("needs a token for a public host beyond loopback, and the root of an http(s) origin", () => {
    expect(() => resolveOptions({ connection, publicUrl: PUBLIC_URL }, {})).toThrow(
      /beyond loopback: set a token/,
    );
    for (const publicUrl of ["ftp://x.example", "https://x.example/errand", "not a url"]) {
      expect(() => resolveOptions({ connection, token: TOKEN, publicUrl }, {}), publicUrl).toThrow(
        /public URL/,
      );
    }
    const resolved = resolveOptions({ connection, token: TOKEN, publicUrl: `${PUBLIC_URL}/` }, {});
    expect(resolved.publicUrl?.origin).toBe(PUBLIC_URL);
  });

  it("is read from ERRAND_DASHBOARD_PUBLIC_URL when not given", () => {
    const env = { ERRAND_DASHBOARD_PUBLIC_URL: PUBLIC_URL, ERRAND_DASHBOARD_TOKEN: TOKEN };
    expect(resolveOptions({ connection }, env).publicUrl?.origin).toBe(PUBLIC_URL);
  });
});
