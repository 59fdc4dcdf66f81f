import { describe, expect, it } from "vitest";
import { listenUrl } from "./listen-url.js";

describe("listenUrl", () => {
  it.each([
    ["0.0.0.0", "http://127.0.0.1:8080/mcp"],
    ["::", "http://[::1]:8080/mcp"],
    ["[::]", "http://[::1]:8080/mcp"],
    ["127.0.0.1", "http://127.0.0.1:8080/mcp"],
    ["::1", "http://[::1]:8080/mcp"],
    ["localhost", "http://localhost:8080/mcp"],
    ["192.168.1.20", "http://192.168.1.20:8080/mcp"],
  ])("a server listening on %s is opened at %s", (host, url) => {
    expect(listenUrl(host, 8080, "/mcp")).toBe(url);
  });

  it("has no path unless given one", () => {
    expect(listenUrl("0.0.0.0", 3000)).toBe("http://127.0.0.1:3000");
  });
});
