import { ErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { isClusterUrl, openRedisUrl, parseClusterUrl } from "./redis-url.js";

function refusal(url: string): string {
  try {
    parseClusterUrl(url);
  } catch (error) {
    expect(error).toBeInstanceOf(ErrandError);
    expect((error as ErrandError).code).toBe("invalid_spec");
    return (error as ErrandError).message;
  }
  throw new Error(`${url} was accepted`);
}

describe("isClusterUrl", () => {
  it("tells a cluster URL from a one-server URL", () => {
    expect(isClusterUrl("redis+cluster://a:7000")).toBe(true);
    expect(isClusterUrl("REDISS+CLUSTER://a:7000")).toBe(true);
    expect(isClusterUrl("redis://a:7000")).toBe(false);
    expect(isClusterUrl("rediss://a:7000")).toBe(false);
    expect(isClusterUrl("a:7000,b:7001")).toBe(false);
  });
});

describe("parseClusterUrl", () => {
  it("reads the nodes, a default port, credentials for every node, and TLS", () => {
    expect(parseClusterUrl("redis+cluster://10.0.0.1:7000,redis-b,[::1]:7002/")).toEqual({
      nodes: [
        { host: "10.0.0.1", port: 7000 },
        { host: "redis-b", port: 6379 },
        { host: "::1", port: 7002 },
      ],
      nodeOptions: {},
    });
    expect(parseClusterUrl("rediss+cluster://errand:p%40ss%3Aword@a:7000,b:7001/0")).toEqual({
      nodes: [
        { host: "a", port: 7000 },
        { host: "b", port: 7001 },
      ],
      nodeOptions: { username: "errand", password: "p@ss:word", tls: {} },
    });
    expect(parseClusterUrl("redis+cluster://:secret@a:7000").nodeOptions).toEqual({
      password: "secret",
    });
  });

  it("refuses a URL written wrong, saying what is wrong and how it is written", () => {
    const form =
      "; write redis+cluster://[<user>:<password>@]host1:port1,host2:port2 (rediss+cluster:// for TLS)";
    expect(refusal("redis://a:7000")).toBe(
      `invalid Redis Cluster URL: it does not start with redis+cluster:// or rediss+cluster://${form}`,
    );
    expect(refusal("redis+cluster://")).toBe(`invalid Redis Cluster URL: it names no node${form}`);
    expect(refusal("redis+cluster://a:7000,,b:7001")).toBe(
      `invalid Redis Cluster URL: it has an empty node${form}`,
    );
    expect(refusal("redis+cluster://a:7000,b:port")).toBe(
      `invalid Redis Cluster URL: "b:port" is not host:port${form}`,
    );
    expect(refusal("redis+cluster://a:70000")).toBe(
      `invalid Redis Cluster URL: port 70000 of a is not 1 to 65535${form}`,
    );
    expect(refusal("redis+cluster://a:7000/2")).toBe(
      `invalid Redis Cluster URL: a Redis Cluster has only database 0, not "2"${form}`,
    );
    expect(refusal("redis+cluster://a:7000?tls=true")).toBe(
      `invalid Redis Cluster URL: it takes no ?options or #fragment${form}`,
    );
    expect(refusal("redis+cluster://u:%zz@a:7000")).toBe(
      `invalid Redis Cluster URL: its password is not percent-encoded correctly${form}`,
    );
  });
});

describe("openRedisUrl", () => {
  it("refuses a URL of a scheme ioredis does not read, naming the scheme and never the password", () => {
    for (const url of ["http://localhost:6379", "HTTPS://errand:hunter2@redis.example:6380/0"]) {
      let refused: unknown;
      try {
        openRedisUrl(url, { redisOptions: { lazyConnect: true } }).disconnect();
      } catch (error) {
        refused = error;
      }
      expect(refused, url).toBeInstanceOf(ErrandError);
      expect((refused as ErrandError).code).toBe("invalid_spec");
      const scheme = url.slice(0, url.indexOf(":")).toLowerCase();
      expect((refused as ErrandError).message).toBe(
        `invalid Redis URL: it starts with ${scheme}://; write redis://[<user>:<password>@]host:port (rediss:// for TLS, redis+cluster://host1:port1,host2:port2 for a Redis Cluster)`,
      );
      expect((refused as ErrandError).message).not.toContain("hunter2");
    }
  });

  it("opens redis://, rediss://, unix:// and host:port without a scheme", () => {
    for (const url of ["redis://a:7000", "rediss://a:7000", "unix:///tmp/r.sock", "a:7000"]) {
      const client = openRedisUrl(url, { redisOptions: { lazyConnect: true } });
      expect(client.status, url).toBe("wait");
      client.disconnect();
    }
  });
});
