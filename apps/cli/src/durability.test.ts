import { isErrandError } from "@errand/core";
import { describe, expect, it } from "vitest";
import { parseCommandArgs } from "./args.js";
import { workerCommand } from "./commands/worker.js";
import {
  CALL_ARGS_VARIABLE,
  callArgsOption,
  DURABILITY_VARIABLE,
  durabilityOption,
  LOG_ENTRIES_VARIABLE,
  logEntriesOption,
  RUN_KEY_EXPIRY_VARIABLE,
  runKeyExpiryOption,
} from "./durability.js";
import type { CliIO } from "./io.js";

function ioWith(env: Record<string, string>): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env, cwd: process.cwd() };
}

const parse = (...argv: string[]) => parseCommandArgs("worker", workerCommand, argv);

describe("durabilityOption", () => {
  it("takes --durability, else the environment, else leaves the engine's default", () => {
    expect(durabilityOption(parse("--durability", "replicated"), ioWith({}))).toEqual({
      durability: "replicated",
    });
    expect(durabilityOption(parse(), ioWith({ [DURABILITY_VARIABLE]: "replicated" }))).toEqual({
      durability: "replicated",
    });
    expect(
      durabilityOption(
        parse("--durability", "acknowledged"),
        ioWith({ [DURABILITY_VARIABLE]: "replicated" }),
      ),
    ).toEqual({ durability: "acknowledged" });
    expect(durabilityOption(parse(), ioWith({}))).toEqual({});
  });

  it("refuses anything else as a usage error naming both ways to set it", () => {
    const error = (() => {
      try {
        return durabilityOption(parse("--durability", "fsync"), ioWith({}));
      } catch (caught) {
        return caught;
      }
    })();
    expect(isErrandError(error, "invalid_spec")).toBe(true);
    expect(String(error)).toMatch(
      /--durability \(or ERRAND_DURABILITY\) is acknowledged or replicated, not "fsync"/,
    );
  });
});

describe("logEntriesOption", () => {
  it("takes --log-entries, else the environment, else leaves the engine's default", () => {
    expect(logEntriesOption(parse("--log-entries", "per-event"), ioWith({}))).toEqual({
      logEntries: "per-event",
    });
    expect(logEntriesOption(parse(), ioWith({ [LOG_ENTRIES_VARIABLE]: "per-event" }))).toEqual({
      logEntries: "per-event",
    });
    expect(logEntriesOption(parse(), ioWith({}))).toEqual({});
    expect(() => logEntriesOption(parse("--log-entries", "batched"), ioWith({}))).toThrow(
      /--log-entries \(or ERRAND_LOG_ENTRIES\) is per-append or per-event, not "batched"/,
    );
  });
});

describe("runKeyExpiryOption", () => {
  it("takes --run-key-expiry, else the environment, else leaves the engine's default", () => {
    expect(runKeyExpiryOption(parse("--run-key-expiry", "all"), ioWith({}))).toEqual({
      runKeyExpiry: "all",
    });
    expect(runKeyExpiryOption(parse(), ioWith({ [RUN_KEY_EXPIRY_VARIABLE]: "all" }))).toEqual({
      runKeyExpiry: "all",
    });
    expect(runKeyExpiryOption(parse(), ioWith({}))).toEqual({});
    expect(() => runKeyExpiryOption(parse("--run-key-expiry", "some"), ioWith({}))).toThrow(
      /--run-key-expiry \(or ERRAND_RUN_KEY_EXPIRY\) is flagged or all, not "some"/,
    );
  });
});

describe("callArgsOption", () => {
  it("takes --call-args, else the environment, else leaves the engine's default", () => {
    expect(callArgsOption(parse("--call-args", "whole"), ioWith({}))).toEqual({
      cutLargeCallArgs: false,
    });
    expect(callArgsOption(parse(), ioWith({ [CALL_ARGS_VARIABLE]: "whole" }))).toEqual({
      cutLargeCallArgs: false,
    });
    expect(callArgsOption(parse("--call-args", "cut"), ioWith({}))).toEqual({
      cutLargeCallArgs: true,
    });
    expect(callArgsOption(parse(), ioWith({}))).toEqual({});
    expect(() => callArgsOption(parse("--call-args", "some"), ioWith({}))).toThrow(
      /--call-args \(or ERRAND_CALL_ARGS\) is cut or whole, not "some"/,
    );
  });
});
