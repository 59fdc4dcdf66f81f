/**
 * Makes the machine ready for a command of package.json, before anything is
 * installed (so: Node's standard library only, runnable on any Node that
 * runs npm). `node scripts/prepare-machine.mjs test` checks the system tools
 * `npm test` drives; `… chaos:hosts` those of `npm run chaos:hosts`.
 *
 * Every tool present: one line says so. Some missing, as root on a machine
 * with apt-get (Debian, Ubuntu): `apt-get update` once, then
 * `apt-get install -y --no-install-recommends` of their packages, and a check
 * that each is there now. Otherwise: one line naming each missing tool, what
 * needs it and how to get it, and exit 1, before any install or test runs.
 *
 * Node itself is not a tool here: `npm run setup` installs the pinned Node
 * (the `node` devDependency) into `node_modules/.bin`, which every npm script
 * and every package's bin shim runs on, whatever Node the machine has.
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * @typedef {object} Tool
 * @property {string} name what the tool is called in the messages
 * @property {string} neededBy what needs it
 * @property {string} debianPackage the Debian package that installs it
 * @property {(env: NodeJS.ProcessEnv) => string | undefined} find its executable, or undefined
 * @property {string} [otherwise] another way to provide it, for the stop line
 */

/** The variable naming a Chromium or Chrome for the dashboard's browser tests (as in its `browser.ts`). */
const CHROMIUM_ENV = "ERRAND_CHROMIUM";

/** Where Debian's chromium package installs the browser, used unless {@link CHROMIUM_ENV} is set. */
const DEBIAN_CHROMIUM = "/usr/bin/chromium";

/** `path` when it is an executable file, else undefined. */
function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

/** A finder for `command` on PATH. */
function onPath(command) {
  return (env) =>
    (env.PATH ?? "")
      .split(delimiter)
      .filter((dir) => dir !== "")
      .map((dir) => executable(join(dir, command)))
      .find((path) => path !== undefined);
}

/** @type {Record<string, Tool>} */
const TOOLS = {
  redisServer: {
    name: "redis-server",
    neededBy: "every test that touches Redis, and the chaos run",
    debianPackage: "redis-server",
    find: onPath("redis-server"),
  },
  redisCli: {
    name: "redis-cli",
    neededBy: "the Redis Cluster tests",
    debianPackage: "redis-tools",
    find: onPath("redis-cli"),
  },
  openssl: {
    name: "openssl",
    neededBy: "the TLS Redis tests",
    debianPackage: "openssl",
    find: onPath("openssl"),
  },
  dockerCompose: {
    name: "docker-compose",
    neededBy: "the deploy test of infra/compose.yaml",
    debianPackage: "docker-compose",
    find: onPath("docker-compose"),
  },
  prometheus: {
    name: "prometheus",
    neededBy: "the metrics test",
    debianPackage: "prometheus",
    find: onPath("prometheus"),
  },
  chromium: {
    name: "chromium",
    neededBy: "the dashboard's browser tests",
    debianPackage: "chromium",
    find: (env) => executable(env[CHROMIUM_ENV] || DEBIAN_CHROMIUM),
    otherwise: `or set ${CHROMIUM_ENV} to a Chromium or Chrome`,
  },
  ip: {
    name: "ip",
    neededBy: "the hosts (network namespaces) of chaos:hosts",
    debianPackage: "iproute2",
    find: onPath("ip"),
  },
};

/** The tools each command needs. */
const NEEDS = {
  test: [
    TOOLS.redisServer,
    TOOLS.redisCli,
    TOOLS.openssl,
    TOOLS.dockerCompose,
    TOOLS.prometheus,
    TOOLS.chromium,
  ],
  "chaos:hosts": [TOOLS.ip],
};

/** Runs `command` with its output shown; exits with its code when it fails. */
function run(command, args) {
  const result = spawnSync(command, args, {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
  if (result.status !== 0) {
    console.error(`prepare-machine: \`${command} ${args.join(" ")}\` failed`);
    process.exit(result.status ?? 1);
  }
}

/** How the user typed `command`. */
function npmCommandOf(command) {
  return command === "test" ? "npm test" : `npm run ${command}`;
}

/** The one line that stops the command: each missing tool, what needs it, and how to get it. */
function stopLine(command, missing, why) {
  const tools = missing.map(
    (tool) => `${tool.name} (${tool.neededBy}${tool.otherwise ? `; ${tool.otherwise}` : ""})`,
  );
  const listed =
    tools.length === 1 ? tools[0] : `${tools.slice(0, -1).join(", ")} and ${tools.at(-1)}`;
  const packages = [...new Set(missing.map((tool) => tool.debianPackage))].join(" ");
  const npmCommand = npmCommandOf(command);
  return `${npmCommand} stopped: this machine lacks ${listed}, and ${why}. As root, run \`apt-get install -y --no-install-recommends ${packages}\` (Debian, Ubuntu), then ${npmCommand} again.`;
}

function main() {
  const command = process.argv[2];
  const needed = NEEDS[command];
  if (needed === undefined) {
    console.error(`usage: node scripts/prepare-machine.mjs <${Object.keys(NEEDS).join("|")}>`);
    process.exit(2);
  }
  const namedChromium = process.env[CHROMIUM_ENV];
  if (needed.includes(TOOLS.chromium) && namedChromium && !executable(namedChromium)) {
    // The user's own choice: installing Debian's Chromium would not change it.
    console.error(
      `${npmCommandOf(command)} stopped: ${CHROMIUM_ENV} names ${namedChromium}, which is not an executable: set it to a Chromium or Chrome, or unset it to use Debian's (${DEBIAN_CHROMIUM}).`,
    );
    process.exit(1);
  }
  const missing = needed.filter((tool) => tool.find(process.env) === undefined);
  if (missing.length === 0) {
    console.log(
      `prepare-machine: ${command} has what it needs: ${needed.map((t) => t.name).join(", ")}`,
    );
    return;
  }
  const isRoot = process.getuid?.() === 0;
  const hasAptGet = onPath("apt-get")(process.env) !== undefined;
  const why = !isRoot
    ? "only a run as root installs them"
    : !hasAptGet
      ? "there is no apt-get to install them with"
      : undefined;
  if (why !== undefined) {
    console.error(stopLine(command, missing, why));
    process.exit(1);
  }
  const packages = [...new Set(missing.map((tool) => tool.debianPackage))];
  console.log(
    `prepare-machine: installing ${packages.join(", ")} (Debian packages) for ${command}`,
  );
  run("apt-get", ["update", "-qq"]);
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...packages]);
  const stillMissing = missing.filter((tool) => tool.find(process.env) === undefined);
  if (stillMissing.length > 0) {
    console.error(
      stopLine(command, stillMissing, "their packages are installed, yet they are not there"),
    );
    process.exit(1);
  }
  console.log(`prepare-machine: installed ${missing.map((tool) => tool.name).join(", ")}`);
}

main();
