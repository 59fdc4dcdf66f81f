import { describe, expect, it } from "vitest";
import { type Logger, type LogLevel, lazyChild } from "./logger.js";

/** A logger that records its children and lines, writing `levels` only. */
function recordingLogger(levels: readonly LogLevel[]) {
  const children: Record<string, unknown>[] = [];
  const lines: { level: LogLevel; bindings: Record<string, unknown>; fields: unknown }[] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const method = (level: LogLevel) => (fields: Record<string, unknown>) => {
      lines.push({ level, bindings, fields });
    };
    return {
      debug: method("debug"),
      info: method("info"),
      warn: method("warn"),
      error: method("error"),
      child(more) {
        children.push(more);
        return make({ ...bindings, ...more });
      },
      isLevelEnabled: (level) => levels.includes(level),
    };
  };
  return { root: make({}), children, lines };
}

describe("lazyChild", () => {
  it("makes no child while nothing is logged at a level the logger writes", () => {
    const { root, children, lines } = recordingLogger(["warn", "error"]);
    const run = lazyChild(root, { runId: "run-1" });
    run.info({ seq: 1 }, "run started");
    run.child({ step: 1 }).debug({}, "calling");
    expect(children).toEqual([]);
    expect(lines).toEqual([]);
  });

  it("makes the child once, at the first line written, with its bindings and its children's", () => {
    const { root, children, lines } = recordingLogger(["info", "warn", "error"]);
    const run = lazyChild(root, { runId: "run-1" });
    run.info({ seq: 1 }, "run started");
    run.warn({ seq: 2 }, "slow");
    run.child({ step: 1 }).error({ code: "x" }, "failed");
    expect(children).toEqual([{ runId: "run-1" }, { step: 1 }]);
    expect(lines).toEqual([
      { level: "info", bindings: { runId: "run-1" }, fields: { seq: 1 } },
      { level: "warn", bindings: { runId: "run-1" }, fields: { seq: 2 } },
      { level: "error", bindings: { runId: "run-1", step: 1 }, fields: { code: "x" } },
    ]);
  });
});
