/**
 * Runs lanes of npm scripts at the same time and waits for every one:
 * `node scripts/run-at-once.mjs check,test:files chaos:ci` (what `npm test`
 * does: the chaos run mostly waits on its faults, locks and spells, so the
 * check and then every test file run beside it). A lane is one npm script,
 * or several joined by commas, run one after another while each exits 0.
 *
 * The first lane's output streams as it comes, under a line naming each of
 * its scripts and a line with its exit code and seconds. Each other lane's
 * output is held and printed whole, under such a line, between two lines of
 * the first lane's, so the lines of two lanes never interleave: at once when
 * the lane passed, after every lane ended when it failed. The failed come
 * last (CI shows the tail of the log), then a line naming them, and the exit
 * code is 1.
 */
import { spawn } from "node:child_process";

/**
 * @typedef {object} Finished
 * @property {string} name the npm script
 * @property {number | null} code its exit code (null when a signal ended it)
 * @property {string | null} signal the signal that ended it, if one did
 * @property {number} seconds how long it ran
 * @property {Buffer} output its stdout and stderr, in the order they came (empty when streamed)
 */

/**
 * Runs `npm run <name>`; resolves once it ended. Its stdout and stderr go
 * to `onOutput` as they come when it is given, else they are held.
 * @param {string} name
 * @param {((chunk: Buffer) => void) | undefined} onOutput
 * @returns {Promise<Finished>}
 */
function runScript(name, onOutput) {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const chunks = [];
    const take = onOutput ?? ((chunk) => chunks.push(chunk));
    const child = spawn("npm", ["run", name], { stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.on("data", take);
    child.stderr.on("data", take);
    const finish = (code, signal) =>
      resolve({
        name,
        code,
        signal,
        seconds: Math.round((Date.now() - startedAt) / 1000),
        output: Buffer.concat(chunks),
      });
    child.on("error", (error) => {
      take(Buffer.from(`${error.message}\n`));
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

/** A held script's output under its line. @param {Finished} finished */
function block(finished) {
  return Buffer.concat([Buffer.from(heading(finished)), finished.output]);
}

/**
 * The first lane's output, written whole lines at a time, and blocks of the
 * others', written between two of its lines.
 */
class Output {
  /** The first lane's output since its last newline. */
  #partial = Buffer.alloc(0);

  /** Writes the first lane's `chunk` up to its last newline; holds the rest. @param {Buffer} chunk */
  live(chunk) {
    const joined = Buffer.concat([this.#partial, chunk]);
    const end = joined.lastIndexOf(0x0a) + 1;
    process.stdout.write(joined.subarray(0, end));
    this.#partial = joined.subarray(end);
  }

  /** Writes a block of another lane's. @param {string | Buffer} block */
  block(block) {
    process.stdout.write(block);
  }

  /** Writes what the first lane left without a newline. */
  flush() {
    if (this.#partial.length > 0)
      process.stdout.write(Buffer.concat([this.#partial, Buffer.from("\n")]));
    this.#partial = Buffer.alloc(0);
  }
}

/**
 * Runs the scripts of one lane one after another while each exits 0.
 * @param {string[]} names
 * @param {(name: string) => Promise<Finished>} run
 * @returns {Promise<Finished[]>}
 */
async function runLane(names, run) {
  const finished = [];
  for (const name of names) {
    const script = await run(name);
    finished.push(script);
    if (script.code !== 0) break;
  }
  return finished;
}

async function main() {
  const lanes = process.argv.slice(2).map((lane) => lane.split(",").filter((name) => name !== ""));
  if (lanes.length === 0 || lanes.some((names) => names.length === 0)) {
    console.error("usage: node scripts/run-at-once.mjs <npm script>[,<npm script>...]...");
    process.exit(2);
  }
  const output = new Output();
  const [first, ...others] = lanes;
  const live = runLane(first, async (name) => {
    output.block(`\n==> npm run ${name}\n`);
    const script = await runScript(name, (chunk) => output.live(chunk));
    output.flush();
    output.block(heading(script));
    return script;
  });
  const heldFailed = [];
  const held = others.map((names) =>
    runLane(names, async (name) => {
      const script = await runScript(name, undefined);
      if (script.code === 0) output.block(block(script));
      else heldFailed.push(script);
      return script;
    }),
  );
  const finished = (await Promise.all([live, ...held])).flat();
  // The failed last: CI shows the tail of the log.
  for (const script of heldFailed) output.block(block(script));
  const failed = finished.filter(({ code }) => code !== 0);
  if (failed.length > 0) {
    console.log(`\nrun-at-once: failed: ${failed.map(({ name }) => name).join(", ")}`);
    process.exitCode = 1;
  }
}

await main();
