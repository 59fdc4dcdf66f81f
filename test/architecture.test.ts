/**
 * The dependency direction of docs/architecture/packages.md (`core ← runtime ← engine ← apps`,
 * `core ← store ← engine`), checked on the real workspace, and proof that the
 * detectors fail when the rules are broken.
 */

import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  type DependencyRule,
  findCycles,
  findTestKitUses,
  findViolations,
  importSpecifiers,
  testFilesIn,
  type UseScope,
  type WorkspacePackage,
  workspaceGraph,
} from "./support/dependency-graph.js";
import { readWorkspace } from "./support/workspace-reader.js";

const REPO_ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The package of helpers that only tests may use. */
const TEST_KIT = "@errand/testing";

/** Every file below `dir`, relative to it; none when it does not exist (a package not built yet). */
function filesBelow(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory()
      ? filesBelow(path).map((inner) => `${name}/${inner}`)
      : [name];
  });
}

/** The layering of errand. Test files of core may use test tools; nothing else is exempt. */
const ERRAND_RULES: DependencyRule[] = [
  {
    from: "@errand/core",
    allowOnly: ["zod", "re2js"],
    why: "core is the pure domain: zod, the pure-JavaScript regex engine re2js, and no I/O",
  },
  {
    from: "@errand/runtime",
    forbid: ["ioredis", "bullmq", "@errand/store", "@errand/engine"],
    why: "the runtime talks to the world only through an EventSink and a Model",
  },
  {
    from: "@errand/store",
    forbid: ["bullmq", "@errand/engine", "@errand/runtime"],
    why: "the store is the log on Redis, without BullMQ or the agent loop",
  },
];

/**
 * The OpenTelemetry packages a library may use: the API alone, whose spans
 * are no-ops until the application installs an SDK (docs/operations/observability.md#traces).
 */
const OTEL_API = "@opentelemetry/api";

/** Every use of an OpenTelemetry package other than the API by a library, in any scope. */
function findOpenTelemetrySdkUses(packages: readonly WorkspacePackage[]): string[] {
  return packages
    .filter((p) => p.kind === "package")
    .flatMap((p) =>
      p.uses
        .filter((use) => use.target.startsWith("@opentelemetry/") && use.target !== OTEL_API)
        .map((use) => `${p.name} ${use.site}: ${use.target}`),
    );
}

describe("the workspace", () => {
  const workspace = readWorkspace(REPO_ROOT);

  it("is found: every package of docs/architecture/packages.md is read, with core's imports", () => {
    const names = workspace.map((p) => p.name);
    for (const name of ["core", "runtime", "store", "engine", "testing"]) {
      expect(names).toContain(`@errand/${name}`);
    }
    const core = workspace.find((p) => p.name === "@errand/core");
    expect(core?.uses).toContainEqual({
      target: "zod",
      site: "src/events.ts",
      scope: "production",
    });
  });

  it("keeps every package in its layer", () => {
    expect(findViolations(workspace, ERRAND_RULES)).toEqual([]);
  });

  it("has no cycle among the workspace packages, declared or imported", () => {
    expect(findCycles(workspaceGraph(workspace))).toEqual([]);
  });

  it("keeps libraries on the OpenTelemetry API alone: no SDK, exporter or resources", () => {
    expect(findOpenTelemetrySdkUses(workspace)).toEqual([]);
    const engine = workspace.find((p) => p.name === "@errand/engine");
    expect(engine?.uses.map((use) => use.target)).toContain(OTEL_API);
  });

  it("keeps the test kit out of production code and runtime dependencies", () => {
    expect(findTestKitUses(workspace, TEST_KIT)).toEqual([]);
  });

  it("builds no test or test support into any package's dist", () => {
    const built = workspace.flatMap((pkg) => {
      const dist = join(REPO_ROOT, pkg.dir, "dist");
      return filesBelow(dist).map((path) => `${pkg.dir}/dist/${path}`);
    });
    expect(testFilesIn(built)).toEqual([]);
  });
});

describe("findTestKitUses and testFilesIn", () => {
  it("fail production code, or a runtime dependency, that uses the test kit; tests and the kit itself may", () => {
    const cli = pkg("@errand/cli", [TEST_KIT, ["@errand/engine", "production"]], "app");
    const engine = pkg("@errand/engine", [
      [TEST_KIT, "test"],
      [TEST_KIT, "dev"],
    ]);
    const kit = pkg(TEST_KIT, ["@errand/core", "@errand/local-redis"]);

    expect(findTestKitUses([cli, engine, kit], TEST_KIT)).toEqual([
      {
        package: "@errand/cli",
        site: "src/index.ts",
        target: TEST_KIT,
        rule: `${TEST_KIT} is for tests only`,
      },
    ]);
  });

  it("find compiled tests and test support among a build's files", () => {
    expect(
      testFilesIn([
        "index.js",
        "index.d.ts",
        "test-support/engine-fixture.js",
        "worker/test-support/worker-process.d.ts.map",
        "fire.test.js",
        "fire.test.d.ts",
        "latest.js",
      ]),
    ).toEqual([
      "test-support/engine-fixture.js",
      "worker/test-support/worker-process.d.ts.map",
      "fire.test.js",
      "fire.test.d.ts",
    ]);
  });
});

describe("importSpecifiers", () => {
  it("finds static, type-only, re-exported, side-effect and dynamic imports across lines", () => {
    const source = [
      'import { z } from "zod";',
      'import type { Redis } from "ioredis";',
      "import {",
      "  a,",
      "  type B,",
      '} from "./local.js";',
      'export * from "@errand/core";',
      'export { Queue as Q } from "bullmq/dist/queue";',
      'import "node:process";',
      'const later = await import("@errand/store");',
    ].join("\n");

    expect(importSpecifiers(source)).toEqual([
      "zod",
      "ioredis",
      "./local.js",
      "@errand/core",
      "bullmq/dist/queue",
      "node:process",
      "@errand/store",
    ]);
  });

  it("ignores imports shown in comments and text that only looks like one", () => {
    const source = [
      "/**",
      " * ```ts",
      ' * import { foldRun } from "@errand/engine";',
      " * ```",
      ' * or import("bullmq") at will',
      " */",
      '// import { Worker } from "bullmq";',
      "export const hint = \"copy from 'ioredis'\";",
      'const url = "https://example.org"; // import("pino")',
    ].join("\n");

    expect(importSpecifiers(source)).toEqual([]);
  });
});

/** A use in production code, or `[target, scope]`. */
type UseSpec = string | [target: string, scope: UseScope];

/** A synthetic workspace package; every use sits in `src/index.ts`. */
function pkg(name: string, uses: UseSpec[], kind: "package" | "app" = "package"): WorkspacePackage {
  return {
    name,
    dir: `packages/${name}`,
    kind,
    uses: uses.map((spec) => {
      const [target, scope] = typeof spec === "string" ? [spec, "production" as const] : spec;
      return { target, site: "src/index.ts", scope };
    }),
  };
}

describe("findOpenTelemetrySdkUses", () => {
  it("fails a library on an SDK package in any scope, never an app or the API", () => {
    const engine = pkg("@errand/engine", [OTEL_API, ["@opentelemetry/sdk-trace-node", "test"]]);
    const runtime = pkg("@errand/runtime", [OTEL_API]);
    const cli = pkg("@errand/cli", ["@opentelemetry/sdk-trace-node"], "app");

    expect(findOpenTelemetrySdkUses([engine, runtime, cli])).toEqual([
      "@errand/engine src/index.ts: @opentelemetry/sdk-trace-node",
    ]);
  });
});

describe("findViolations", () => {
  it("fails core on a runtime dependency or import other than zod and re2js, node built-ins included", () => {
    const core = pkg("@errand/core", ["zod", "re2js", "pino", "node:fs", ["vitest", "test"]]);

    const found = findViolations([core], ERRAND_RULES).map((v) => v.target);

    expect(found).toEqual(["pino", "node:fs"]);
  });

  it("fails the runtime on Redis, BullMQ, the store or the engine, in any scope", () => {
    const runtime = pkg("@errand/runtime", [
      "@errand/core",
      "openai",
      "ioredis",
      ["bullmq", "dev"],
    ]);
    const withStore = pkg("@errand/runtime", [["@errand/store", "test"], "@errand/engine"]);

    expect(findViolations([runtime], ERRAND_RULES).map((v) => v.target)).toEqual([
      "ioredis",
      "bullmq",
    ]);
    expect(findViolations([withStore], ERRAND_RULES).map((v) => v.target)).toEqual([
      "@errand/store",
      "@errand/engine",
    ]);
  });

  it("fails the store on BullMQ, the engine or the runtime", () => {
    const store = pkg("@errand/store", ["ioredis", "bullmq", "@errand/engine", "@errand/runtime"]);

    expect(findViolations([store], ERRAND_RULES).map((v) => v.target)).toEqual([
      "bullmq",
      "@errand/engine",
      "@errand/runtime",
    ]);
  });

  it("fails a package that uses an app, but not an app that uses a package", () => {
    const cli = pkg("@errand/cli", ["@errand/engine"], "app");
    const engine = pkg("@errand/engine", [["@errand/cli", "test"]]);

    const violations = findViolations([cli, engine], []);

    expect(violations).toEqual([
      {
        package: "@errand/engine",
        site: "src/index.ts",
        target: "@errand/cli",
        rule: "@errand/engine is a library and must not use an app",
      },
    ]);
  });

  it("fails a relative import that reaches into another package", () => {
    const engine = pkg("@errand/engine", []);
    engine.uses.push({
      target: "../../store/src/keys.js",
      site: "src/x.ts",
      scope: "production",
      escapes: true,
    });

    expect(findViolations([engine], []).map((v) => v.target)).toEqual(["../../store/src/keys.js"]);
  });

  it("passes a workspace that follows the rules", () => {
    const workspace = [
      pkg("@errand/core", ["zod", ["vitest", "test"], ["fast-check", "dev"]]),
      pkg("@errand/runtime", ["@errand/core", "openai"]),
      pkg("@errand/store", ["@errand/core", "ioredis"]),
      pkg("@errand/engine", ["@errand/runtime", "@errand/store", "bullmq"]),
      pkg("@errand/cli", ["@errand/engine"], "app"),
    ];

    expect(findViolations(workspace, ERRAND_RULES)).toEqual([]);
    expect(findCycles(workspaceGraph(workspace))).toEqual([]);
  });
});

describe("findCycles", () => {
  const graph = (edges: Record<string, string[]>) =>
    new Map(Object.entries(edges).map(([from, to]) => [from, new Set(to)]));

  it("finds a two-package cycle once", () => {
    expect(findCycles(graph({ a: ["b"], b: ["a"] }))).toEqual([["a", "b", "a"]]);
  });

  it("finds a longer cycle behind an acyclic entry, starting at its smallest name", () => {
    expect(
      findCycles(graph({ app: ["engine"], engine: ["store"], store: ["x"], x: ["engine"] })),
    ).toEqual([["engine", "store", "x", "engine"]]);
  });

  it("finds no cycle in a diamond", () => {
    expect(findCycles(graph({ e: ["r", "s"], r: ["c"], s: ["c"], c: [] }))).toEqual([]);
  });

  it("sees a cycle that only an import (not a declared dependency) closes", () => {
    const core = pkg("@errand/core", [["@errand/testing", "test"]]);
    const testing = pkg("@errand/testing", ["@errand/core"]);

    expect(findCycles(workspaceGraph([core, testing]))).toEqual([
      ["@errand/core", "@errand/testing", "@errand/core"],
    ]);
  });
});
