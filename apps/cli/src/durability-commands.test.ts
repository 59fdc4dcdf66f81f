/**
 * The commands that fire or settle runs take `--durability` (else
 * `ERRAND_DURABILITY`) through the one shared parser: a durability errand
 * does not know is a usage error (exit code 2) before any Redis is asked
 * for.
 */
import { describe, expect, it } from "vitest";
import { runErrand } from "./test-support/run-errand.js";

const FLEET_EVAL = ["eval", "run", "--fleet", "--agent", "greeter", "--set", "greetings"];
const REFUSAL = '--durability (or ERRAND_DURABILITY) is acknowledged or replicated, not "fsync"';

describe("--durability on the commands that fire or settle runs", () => {
  it.each([
    ["api", ["api", "--durability", "fsync"], {}],
    ["mcp", ["mcp", "--durability", "fsync"], {}],
    ["fire", ["fire", "greeter", "--input", "{}", "--durability", "fsync"], {}],
    [
      "runs rerun",
      ["runs", "rerun", "--run", "R01M94RNPH4083B3YZGN9GMWQ82NS", "--durability", "fsync"],
      {},
    ],
    [
      "runs rerun, from the environment",
      ["runs", "rerun", "--status", "failed"],
      { ERRAND_DURABILITY: "fsync" },
    ],
    ["api, from the environment", ["api"], { ERRAND_DURABILITY: "fsync" }],
    ["mcp, from the environment", ["mcp"], { ERRAND_DURABILITY: "fsync" }],
    ["up", ["up", "--durability", "fsync"], {}],
    ["up, from the environment", ["up"], { ERRAND_DURABILITY: "fsync" }],
    ["eval run --fleet", [...FLEET_EVAL, "--durability", "fsync"], {}],
    ["eval run --fleet, from the environment", FLEET_EVAL, { ERRAND_DURABILITY: "fsync" }],
  ])("%s: an unknown durability is exit code 2", async (_name, args, env) => {
    const outcome = await runErrand(args, { env });
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr).toContain(REFUSAL);
  });

  it("up: replicated without a given Redis is exit code 2, before a private one is started", async () => {
    const outcome = await runErrand(["up", "--durability", "replicated"]);
    expect(outcome.code, outcome.stderr).toBe(2);
    expect(outcome.stderr).toContain("up: --durability replicated needs a Redis with a replica");
  });
});
