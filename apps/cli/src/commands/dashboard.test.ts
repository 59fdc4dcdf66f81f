import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { type AddressInfo, createServer } from "node:net";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnErrand } from "../test-support/processes.js";
import { runErrand } from "../test-support/run-errand.js";

const TOKEN = "a-token-of-twenty-four-c";

/** The URL `errand dashboard` printed. */
function printedUrl(output: string): string {
  const url = /errand dashboard: (http:\/\/\S+)/.exec(output)?.[1];
  if (url === undefined) throw new Error(`no URL printed:\n${output}`);
  return url;
}

/** The one line a refused command printed on stderr. */
function onlyLine(stderr: string): string {
  const lines = stderr.trimEnd().split("\n");
  expect(lines).toHaveLength(1);
  return lines[0] ?? "";
}

describe("errand dashboard", () => {
  let server: RedisServer;
  const prefix = uniqueKeyPrefix("cli-dashboard");
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("serves the page and the API alone on a free loopback port, and exits 0 on SIGTERM", async () => {
    const dashboard = await spawnErrand(
      ["dashboard", "--port", "0", "--prefix", prefix],
      { REDIS_URL: server.url, ERRAND_DASHBOARD_TOKEN: "" },
      "Ctrl-C to stop.",
    );
    try {
      const url = printedUrl(dashboard.output());
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(url).not.toBe("http://127.0.0.1:0");
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toContain("text/html");
      const session = await fetch(`${url}/api/session`);
      expect(await session.json()).toMatchObject({ prefix, tokenRequired: false });
      const overview = await fetch(`${url}/api/overview`);
      expect(overview.status).toBe(200);
      expect(await overview.json()).toMatchObject({ workers: [] });
      expect(await dashboard.stop("SIGTERM")).toBe(0);
    } finally {
      await dashboard.stop();
    }
  });

  it("beyond loopback, asks every request for ERRAND_DASHBOARD_TOKEN, and exits 0 on SIGINT", async () => {
    const dashboard = await spawnErrand(
      ["dashboard", "--host", "0.0.0.0", "--port", "0", "--prefix", prefix],
      { REDIS_URL: server.url, ERRAND_DASHBOARD_TOKEN: TOKEN },
      "Ctrl-C to stop.",
    );
    try {
      // Listening on every interface, it prints a URL that opens: loopback's, and says where it listens.
      const url = printedUrl(dashboard.output());
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(dashboard.output()).toContain("listening on every interface (0.0.0.0)");
      const api = `${url}/api/overview`;
      expect((await fetch(api)).status).toBe(401);
      const allowed = await fetch(api, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(allowed.status).toBe(200);
      expect(await dashboard.stop("SIGINT")).toBe(0);
    } finally {
      await dashboard.stop();
    }
  });

  it("behind a TLS-terminating proxy (--public-url), answers the public host with a Secure cookie", async () => {
    const dashboard = await spawnErrand(
      ["dashboard", "--port", "0", "--prefix", prefix, "--public-url", "https://errand.example"],
      { REDIS_URL: server.url, ERRAND_DASHBOARD_TOKEN: TOKEN },
      "Ctrl-C to stop.",
    );
    try {
      const output = dashboard.output();
      expect(output).toContain("served at https://errand.example");
      expect(output).toContain("open https://errand.example/?token=<it> once");
      const { port } = new URL(printedUrl(output));
      const opened = await new Promise<IncomingMessage>((resolve, reject) => {
        const request = httpRequest(
          {
            host: "127.0.0.1",
            port,
            path: `/?token=${TOKEN}`,
            headers: { host: "errand.example", "x-forwarded-proto": "https" },
          },
          resolve,
        );
        request.on("error", reject);
        request.end();
      });
      opened.resume();
      expect(opened.statusCode).toBe(303);
      expect(opened.headers["set-cookie"]?.[0]).toMatch(/; Secure/);
      expect(await dashboard.stop("SIGTERM")).toBe(0);
    } finally {
      await dashboard.stop();
    }
  });

  it("refuses a host beyond loopback without a token in one line, with exit code 2", async () => {
    const refused = await runErrand(["dashboard", "--host", "0.0.0.0", "--port", "0"], {
      env: { REDIS_URL: server.url, ERRAND_DASHBOARD_TOKEN: undefined },
    });
    expect(refused.code).toBe(2);
    expect(onlyLine(refused.stderr)).toMatch(/^errand: .*0\.0\.0\.0.*ERRAND_DASHBOARD_TOKEN/);
    expect(refused.stdout).toBe("");
    const proxied = await runErrand(["dashboard", "--port", "0"], {
      env: {
        REDIS_URL: server.url,
        ERRAND_DASHBOARD_TOKEN: undefined,
        ERRAND_DASHBOARD_PUBLIC_URL: "https://errand.example",
      },
    });
    expect(proxied.code).toBe(2);
    expect(onlyLine(proxied.stderr)).toMatch(/^errand: .*errand\.example.*ERRAND_DASHBOARD_TOKEN/);
  });

  it("refuses a port another process holds in one line naming --port, with exit code 3", async () => {
    const holder = createServer();
    holder.listen(0, "127.0.0.1");
    await once(holder, "listening");
    const { port } = holder.address() as AddressInfo;
    try {
      const refused = await runErrand(["dashboard", "--port", String(port)], {
        env: { REDIS_URL: server.url },
      });
      expect(refused.code).toBe(3);
      expect(onlyLine(refused.stderr)).toMatch(
        new RegExp(`^errand: .*127\\.0\\.0\\.1:${port}.*--port`),
      );
    } finally {
      holder.close();
    }
  });

  it("refuses to start without a Redis that answers, with exit code 3", async () => {
    const refused = await runErrand(["dashboard", "--port", "0", "--redis", "redis://127.0.0.1:1"]);
    expect(refused.code).toBe(3);
    expect(onlyLine(refused.stderr)).toMatch(
      /^errand: cannot reach Redis at redis:\/\/127\.0\.0\.1:1/,
    );
  });
});
