import { isErrandError } from "@errand/core";
import type { ConnectionInput } from "@errand/engine";
import { describe, expect, it } from "vitest";
import { createDashboard } from "./create-dashboard.js";
import { isLoopbackHost, resolveOptions, TOKEN_ENV, TOKEN_RULE, tokenProblem } from "./options.js";

const connection = "redis://127.0.0.1:1";
const token = "a-long-enough-token-1234";

describe("resolveOptions", () => {
  it("binds to loopback without a token by default", () => {
    const resolved = resolveOptions({ connection }, {});
    expect(resolved).toMatchObject({ host: "127.0.0.1", port: 4040, loopback: true });
    expect(resolved.token).toBeUndefined();
    expect(resolved.readOnly).toBe(false);
  });

  it("refuses to listen beyond loopback without a token, and accepts it with one", () => {
    for (const host of ["0.0.0.0", "::", "192.168.1.20", "dashboard.example"]) {
      expect(() => resolveOptions({ connection, host }, {}), host).toThrow(/beyond loopback/);
    }
    expect(resolveOptions({ connection, host: "0.0.0.0", token }, {}).token).toBe(token);
    expect(resolveOptions({ connection, host: "0.0.0.0" }, { [TOKEN_ENV]: token }).token).toBe(
      token,
    );
  });

  it("refuses a short token and a bad port", () => {
    expect(() => resolveOptions({ connection, token: "short" }, {})).toThrow(/at least 16/);
    expect(() => resolveOptions({ connection, port: 70_000 }, {})).toThrow(/port/);
  });

  it("refuses a token without entropy, saying the rule: one character repeated, whitespace, a few characters", () => {
    for (const [weak, problem] of [
      ["a".repeat(16), "only 1 different characters"],
      [" ".repeat(20), "whitespace"],
      ["abcdabcdabcdabcdabcd", "only 4 different characters"],
      ["0123456789abcdef\n", "whitespace"],
    ] as const) {
      expect(() => resolveOptions({ connection, host: "0.0.0.0", token: weak }, {}), weak).toThrow(
        `${problem}; a token needs ${TOKEN_RULE}`,
      );
      expect(tokenProblem(weak)).toContain(problem);
    }
    expect(tokenProblem("4f9c2a7e1b3d8c60")).toBeUndefined();
  });

  it("refuses counts that are not whole numbers ≥ 1 with core's option check, naming the option", () => {
    for (const name of ["shards", "maxLiveClients", "maxConcurrentSearches"] as const) {
      for (const value of [0, -1, 1.5, Number.NaN]) {
        const refused = (() => {
          try {
            return resolveOptions({ connection, [name]: value }, {});
          } catch (error) {
            return error;
          }
        })();
        expect(isErrandError(refused, "invalid_spec"), `${name} ${value}`).toBe(true);
        expect((refused as Error).message).toBe(`${name} must be a whole number ≥ 1, not ${value}`);
      }
      expect(resolveOptions({ connection, [name]: 3 }, {})[name]).toBe(3);
    }
  });
});

describe("createDashboard", () => {
  it("refuses a connection that names no Redis (an unset REDIS_URL) before it listens", async () => {
    for (const missing of [undefined as unknown as ConnectionInput, ""]) {
      const refused = await createDashboard({ connection: missing, port: 0 }).catch(
        (error: unknown) => error,
      );
      expect(isErrandError(refused, "redis_unavailable"), String(missing)).toBe(true);
      expect((refused as Error).message).toMatch(/^no Redis given: connection is /);
    }
  });
});

describe("isLoopbackHost", () => {
  it("knows loopback names and addresses", () => {
    for (const host of ["localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "LOCALHOST"]) {
      expect(isLoopbackHost(host), host).toBe(true);
    }
    for (const host of ["0.0.0.0", "10.0.0.1", "localhost.evil.example", "", "::"]) {
      expect(isLoopbackHost(host), host).toBe(false);
    }
  });
});
