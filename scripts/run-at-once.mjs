/**
 * Runs npm scripts at the same time and waits for every one:
 * `node scripts/run-at-once.mjs check chaos:ci` (what `npm test` does, since
 * the check keeps the processor busy while the chaos run mostly waits on its
 * faults, locks and spells). Each script's output is held and printed whole
 * once every script ended, under a line with its name, exit code and seconds,
 * so the lines of two scripts never interleave; the failed come last, then a
 * line naming them (CI shows the tail of the log), and the exit code is 1.
 */
import { spawn } from "node:child_process";

/**
 * @typedef {object} Finished
 * @property {string} name the npm script
 * @property {number | null} code its exit code (null when a signal ended it)
 * @property {string | null} signal the signal that ended it, if one did
 * @property {number} seconds how long it ran
 * @property {Buffer} output its stdout and stderr, in the order they came
 */

/** Runs `npm run <name>`, its output held; resolves once it ended. @returns {Promise<Finished>} */
function runScript(name) {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const chunks = [];
    const child = spawn("npm", ["run", name], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    const finish = (code, signal) =>
      resolve({
        name,
        code,
        signal,
        seconds: Math.round((Date.now() - startedAt) / 1000),
        output: Buffer.concat(chunks),
      });
    child.on("error", (error) => {
      chunks.push(Buffer.from(`${error.message}\n`));
      finish(null, null);
    });
    child.on("close", finish);
  });
}

/** The line above a finished script's output. @param {Finished} finished */
function heading({ name, code, signal, seconds }) {
  const end = signal === null ? `exit ${code ?? "unknown"}` : `ended by ${signal}`;
  return `\n==> npm run ${name}: ${end}, ${seconds} s\n`;
}

async function main() {
  const names = process.argv.slice(2);
  if (names.length === 0) {
    console.error("usage: node scripts/run-at-once.mjs <npm script>...");
    process.exit(2);
  }
  const finished = await Promise.all(names.map(runScript));
  // The failed last: CI shows the tail of the log.
  const failed = finished.filter(({ code }) => code !== 0);
  for (const script of [...finished.filter(({ code }) => code === 0), ...failed]) {
    process.stdout.write(heading(script));
    process.stdout.write(script.output);
  }
  if (failed.length > 0) {
    console.log(`\nrun-at-once: failed: ${failed.map(({ name }) => name).join(", ")}`);
    process.exitCode = 1;
  }
}

await main();
