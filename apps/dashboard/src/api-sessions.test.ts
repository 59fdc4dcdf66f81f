/**
 * The page's session, over real HTTP: opening `/?token=` sets a cookie that
 * expires ({@link SESSION_LIFETIME_SECONDS}, as `Max-Age` and as the
 * server's own check, on the dashboard's clock), that a dashboard with
 * another token refuses (changing the token ends every session) and one
 * restarted with the same token honours; a cookie whose issue time was
 * changed is refused. A weak token is refused before anything listens.
 */
import { isErrandError } from "@errand/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SESSION_COOKIE } from "./http/security.js";
import { SESSION_LIFETIME_SECONDS } from "./http/sessions.js";
import { TOKEN_RULE } from "./options.js";
import { rawRequest } from "./test-support/http.js";
import { startWorkload, type Workload } from "./test-support/workload.js";

const TOKEN = "session-token-0123456789abcdef";
const OTHER_TOKEN = "another-token-0123456789abcdef";
const LIFETIME_MS = SESSION_LIFETIME_SECONDS * 1000;

let w: Workload;
/** The dashboards' clock, moved by the tests. */
let clock = Date.parse("2026-12-06T00:00:00.000Z");
const now = () => new Date(clock);

beforeAll(async () => {
  w = await startWorkload("sessions");
});

afterAll(async () => {
  await w?.stop();
});

/** Opens `url` with `?token=`: the `Set-Cookie` header and the cookie to send back. */
async function openSession(
  url: string,
  token = TOKEN,
): Promise<{ setCookie: string; cookie: string }> {
  const opened = await rawRequest(url, `/?token=${token}`);
  expect(opened.status).toBe(303);
  const setCookie = opened.headers["set-cookie"]?.[0] ?? "";
  return { setCookie, cookie: setCookie.split(";")[0]! };
}

async function statusWith(url: string, cookie: string): Promise<number> {
  return (await rawRequest(url, "/api/runs", { headers: { cookie } })).status;
}

describe("the session cookie", () => {
  it("lasts its lifetime and no longer, on the dashboard's clock", async () => {
    const { url } = await w.startDashboard({ token: TOKEN, now });
    const { setCookie, cookie } = await openSession(url);
    expect(setCookie).toMatch(new RegExp(`^${SESSION_COOKIE}=`));
    expect(setCookie).toContain(`Max-Age=${SESSION_LIFETIME_SECONDS}`);
    expect(setCookie).not.toContain(TOKEN);
    expect(await statusWith(url, cookie)).toBe(200);
    clock += LIFETIME_MS - 60_000;
    expect(await statusWith(url, cookie)).toBe(200);
    clock += 61_000;
    const expired = await rawRequest(url, "/api/runs", { headers: { cookie } });
    expect(expired.status).toBe(401);
    expect(JSON.parse(expired.body)).toMatchObject({ error: { code: "unauthorized" } });
    const renewed = await openSession(url);
    expect(await statusWith(url, renewed.cookie)).toBe(200);
  });

  it("ends when the token changes, and survives a restart with the same token", async () => {
    const first = await w.startDashboard({ token: TOKEN, now });
    const { cookie } = await openSession(first.url);
    const changed = await w.startDashboard({ token: OTHER_TOKEN, now });
    expect(await statusWith(changed.url, cookie)).toBe(401);
    const restarted = await w.startDashboard({ token: TOKEN, now });
    expect(await statusWith(restarted.url, cookie)).toBe(200);
  });

  it("is refused when its issue time is changed or it is not one", async () => {
    const { url } = await w.startDashboard({ token: TOKEN, now });
    const { cookie } = await openSession(url);
    const [name, value = ""] = cookie.split("=");
    const [issuedAt = "", signature = ""] = value.split(".");
    const later = `${name}=${Number(issuedAt) + LIFETIME_MS}.${signature}`;
    expect(await statusWith(url, later)).toBe(401);
    expect(await statusWith(url, `${name}=${signature}`)).toBe(401);
    expect(await statusWith(url, `${name}=${issuedAt}.`)).toBe(401);
  });
});

describe("a weak token", () => {
  it("is refused before the dashboard listens, with the rule in the message", async () => {
    for (const token of ["a".repeat(16), " ".repeat(20)]) {
      const refused = await w.startDashboard({ token, host: "0.0.0.0" }).catch((error) => error);
      expect(isErrandError(refused) && refused.code, JSON.stringify(token)).toBe("invalid_spec");
      expect((refused as Error).message).toContain(TOKEN_RULE);
    }
  });
});
