/**
 * errand used from outside its repository, the way README.md's "Use errand in
 * your app" shows: `@errand/cli` and the packages it runs are built and
 * packed with pnpm, installed with npm into an app in a temporary folder
 * (never the workspace), and the app's own agents file runs on
 * `npx errand worker` beside `npx errand collector` — real child processes on
 * a private Redis — while the app's script fires runs and collects them.
 * The guide's runnable blocks run there too, each as a module of the app on
 * a Redis of its own, from the installed packages alone.
 * The app's commands (npm's included) run on Node 24, the newest LTS line
 * errand supports, installed from npm into a folder of its own; the test run
 * itself is on the pinned Node 22.
 */
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { delimiter, join, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { type RedisServer, startRedis } from "@errand/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runnableBlocksOf } from "../support/markdown.js";
import { runCommand, runCommandToEnd, type StartedCommand, startCommand } from "./shell.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The app's own files, shown verbatim in README.md. */
const APP_SOURCE = fileURLToPath(new URL("./app/", import.meta.url));
const APP_FILES = ["agents.mjs", "fire-and-collect.mjs"];

/** The command lines of README.md, run as they are written there. */
const COMMANDS = {
  build: "npx pnpm@12.4.2 turbo run build --filter=@errand/cli...",
  pack: 'npx pnpm@12.4.2 -r --filter-prod "@errand/cli..." pack --pack-destination "$APP/errand-packages"',
  init: "npm init -y",
  install: "npm install ./errand-packages/*.tgz zod@^4",
  worker: "npx errand worker --agents ./agents.mjs",
  collector: "npx errand collector",
  fireAndCollect: "node fire-and-collect.mjs",
};

/** The Node the app runs on: the newest LTS line errand's engines accept. */
const APP_NODE = "24.21.0";

/**
 * Packages only errand's tests and bench use, which an app's install must not
 * pull: the test kit, the bench (an optional peer of the CLI), and Docker's
 * client with its native SSH (an optional peer of `@errand/local-redis`).
 */
const NOT_FOR_APPS = [
  "@errand/testing",
  "@errand/bench",
  "@dwmkerr/mock-llm",
  "testcontainers",
  "dockerode",
  "ssh2",
];

/**
 * A zod 4 other than the one errand pins, for the app to install instead of
 * its first: npm then gives the app this copy and each errand package its
 * own copy of errand's pin, and errand must still read the app's schemas.
 */
const OTHER_ZOD = "4.5.4";

/** What `fire-and-collect.mjs` prints when both runs settle as designed. */
const COLLECTED_AS_DESIGNED = {
  total: 2,
  succeeded: 2,
  failed: 0,
  cancelled: 0,
  pending: 0,
  results: [
    { ok: true, status: "succeeded", text: "Hello, Ada!" },
    { ok: true, status: "succeeded", output: { city: "Lyon", population: 522250 } },
  ],
};

/** Environment variables set for the script npm or pnpm is running, which a user's shell does not have. */
const SCRIPT_ONLY_VARIABLE = /^(npm_package_|npm_lifecycle_|npm_config_local_prefix$|INIT_CWD$)/i;

/**
 * The environment of a user's shell outside the repository: no variable of
 * the running script, no NODE_OPTIONS, and no `node_modules/.bin` on PATH
 * (the repository's own `errand` must not stand in for the app's). npx may
 * not fetch a command the app lacks; npm skips audit and funding and uses
 * its cache first.
 */
function outsideEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !SCRIPT_ONLY_VARIABLE.test(name) && name !== "NODE_OPTIONS",
    ),
  );
  env.PATH = (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => !dir.split(sep).includes("node_modules"))
    .join(delimiter);
  return {
    ...env,
    npm_config_yes: "false",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_prefer_offline: "true",
    npm_config_update_notifier: "false",
    ...extra,
  };
}

/** The file a package resolves `zod` to from `dir`: one per copy of zod. */
function zodCopyFrom(dir: string): string {
  return createRequire(join(dir, "package.json")).resolve("zod/package.json");
}

/** A package's files, as paths relative to its folder, without its own node_modules. */
async function packageFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .filter((file) => !file.split(sep).includes("node_modules"));
}

interface Manifest {
  version: string;
  dependencies?: Record<string, string>;
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, "utf8")) as T;
}

describe("README.md's Use errand in your app", () => {
  it("shows every command line and app file the consumer test uses, verbatim", async () => {
    const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
    for (const command of Object.values(COMMANDS)) expect(readme).toContain(command);
    for (const file of APP_FILES) {
      expect(readme).toContain(await readFile(join(APP_SOURCE, file), "utf8"));
    }
  });
});

describe("errand installed from its packed packages into an app outside the repository", () => {
  let root: string | undefined;
  let app: string;
  let redis: RedisServer | undefined;
  let started: StartedCommand[] = [];
  let appEnv: NodeJS.ProcessEnv;
  /** Everything `npm install` of the tarballs printed. */
  let installOutput: string;

  /** Starts the app's collector and worker, each once it says it is ready. */
  async function startCollectorAndWorker(): Promise<void> {
    const inApp = { cwd: app, env: appEnv };
    started.push(await startCommand(COMMANDS.collector, inApp, "collector ready"));
    started.push(await startCommand(COMMANDS.worker, inApp, "worker ready"));
  }

  async function stopStarted(): Promise<void> {
    await Promise.all(started.map((command) => command.stop()));
    started = [];
  }

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "errand-consumer-"));
    app = join(root, "my-app");
    await mkdir(app);
    redis = await startRedis({ maxmemoryPolicy: "noeviction" });
    const shellEnv = outsideEnv({ REDIS_URL: redis.url, ERRAND_LOG_LEVEL: "info" });
    const nodeDir = join(root, `node-${APP_NODE}`);
    await runCommand(`npm install --prefix "${nodeDir}" node@${APP_NODE}`, {
      cwd: root,
      env: shellEnv,
    });
    appEnv = {
      ...shellEnv,
      PATH: [join(nodeDir, "node_modules", ".bin"), shellEnv.PATH].join(delimiter),
    };

    const inRepo = { cwd: REPO_ROOT, env: { ...process.env, APP: app } };
    await runCommand(COMMANDS.build, inRepo);
    await runCommand(COMMANDS.pack, inRepo);
    const inApp = { cwd: app, env: appEnv };
    await runCommand(COMMANDS.init, inApp);
    installOutput = (await runCommand(COMMANDS.install, inApp)).output;
    for (const file of APP_FILES) {
      await writeFile(join(app, file), await readFile(join(APP_SOURCE, file), "utf8"));
    }
    await startCollectorAndWorker();
  }, 300_000);

  afterAll(async () => {
    await stopStarted();
    await redis?.stop();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  }, 60_000);

  it("runs the app's commands on Node 24", async () => {
    const printed = await runCommand("node --version", { cwd: app, env: appEnv });
    expect(printed.stdout.trim()).toBe(`v${APP_NODE}`);
  });

  it("installs only what the app runs, with no engine warning", async () => {
    expect(installOutput).not.toMatch(/EBADENGINE|Unsupported engine/);
    const lock = await readJson<{ packages: Record<string, unknown> }>(
      join(app, "package-lock.json"),
    );
    const installed = Object.keys(lock.packages).map((path) =>
      path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length),
    );
    expect(installed).toContain("@errand/cli");
    expect(installed.filter((name) => NOT_FOR_APPS.includes(name))).toEqual([]);
  });

  it("says how to add @errand/bench when errand bench runs without it", async () => {
    const bench = await runCommandToEnd("npx errand bench --quick", { cwd: app, env: appEnv });
    expect(bench.code).toBe(2);
    expect(bench.output).toContain(
      "errand bench needs the package @errand/bench, which is not installed beside @errand/cli",
    );
  });

  it("installs @errand/cli and every errand package it needs from the packed tarballs", async () => {
    const lock = await readJson<{ packages: Record<string, { resolved?: string }> }>(
      join(app, "package-lock.json"),
    );
    const names = await readdir(join(app, "node_modules", "@errand"));
    expect(names).toContain("cli");
    for (const name of names) {
      const dir = join(app, "node_modules", "@errand", name);
      const manifest = await readJson<Manifest>(join(dir, "package.json"));
      expect(lock.packages[`node_modules/@errand/${name}`]?.resolved).toBe(
        `file:errand-packages/errand-${name}-${manifest.version}.tgz`,
      );
      for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
        if (!dependency.startsWith("@errand/")) continue;
        expect(names).toContain(dependency.slice("@errand/".length));
        const installed = await readJson<Manifest>(
          join(app, "node_modules", dependency, "package.json"),
        );
        expect(range).toBe(installed.version);
      }
    }
  });

  it("packs each package with its dist and types, README and LICENSE, and no tests", async () => {
    for (const name of await readdir(join(app, "node_modules", "@errand"))) {
      const files = await packageFiles(join(app, "node_modules", "@errand", name));
      expect(files).toEqual(
        expect.arrayContaining([
          "package.json",
          "README.md",
          "LICENSE",
          join("dist", "index.js"),
          join("dist", "index.d.ts"),
        ]),
      );
      expect(files.filter((file) => /\.test\.ts$|(^|[\\/])test-support[\\/]/.test(file))).toEqual(
        [],
      );
    }
  });

  it("links the errand command to the CLI's main, a node script", async () => {
    const main = join(app, "node_modules", "@errand", "cli", "dist", "main.js");
    expect(await realpath(join(app, "node_modules", ".bin", "errand"))).toBe(await realpath(main));
    expect((await readFile(main, "utf8")).startsWith("#!/usr/bin/env node\n")).toBe(true);
  });

  it("runs the app's agents on its worker: the text and the structured output are collected", async () => {
    const printed = await runCommand(COMMANDS.fireAndCollect, { cwd: app, env: appEnv });
    expect(JSON.parse(printed.stdout)).toMatchObject(COLLECTED_AS_DESIGNED);
  }, 60_000);

  it("runs every runnable block of the docs as a module of the app, on a Redis of its own", async () => {
    const blocks = await runnableBlocksOf(REPO_ROOT);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    for (const { file, block, output } of blocks) {
      const own = await startRedis({ maxmemoryPolicy: "noeviction" });
      try {
        const module = join(app, `runnable-${file.replace(/[^a-z0-9]+/gi, "-")}-${block.line}.mjs`);
        await writeFile(module, block.code);
        const printed = await runCommand(`node "${module}"`, {
          cwd: app,
          env: { ...appEnv, REDIS_URL: own.url, ERRAND_LOG_LEVEL: "silent" },
        });
        if (output !== undefined) expect(printed.stdout, `${file}:${block.line}`).toBe(output);
        else expect(printed.stdout, `${file}:${block.line}`).not.toBe("");
      } finally {
        await own.stop();
      }
    }
  }, 180_000);

  it("works when the app's zod is another copy than errand's", async () => {
    await stopStarted();
    await runCommand(`npm install zod@${OTHER_ZOD}`, { cwd: app, env: appEnv });
    const errandCore = join(app, "node_modules", "@errand", "core");
    expect(zodCopyFrom(app)).not.toBe(zodCopyFrom(errandCore));

    await startCollectorAndWorker();
    const printed = await runCommand(COMMANDS.fireAndCollect, { cwd: app, env: appEnv });
    expect(JSON.parse(printed.stdout)).toMatchObject(COLLECTED_AS_DESIGNED);
  }, 180_000);
});
