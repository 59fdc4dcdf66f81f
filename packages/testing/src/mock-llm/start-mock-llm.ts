/**
 * `startMockLlm`: the independent OpenAI-compatible mock server
 * `@dwmkerr/mock-llm` in a child process on a free loopback port, told over
 * its `/config` endpoint how to answer: each rule sends an exact JSON body
 * (and status) to the requests of one path and model, in order when rules
 * carry a `sequence`. Any path can be served this way: `/v1/chat/completions`
 * and `/v1/responses` alike. mock-llm cannot send response headers, so no
 * `retry-after`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { findFreePort } from "@errand/local-redis";

/** One way mock-llm answers. */
export interface MockLlmRule {
  /** The path it answers, e.g. `/v1/chat/completions`. */
  path: string;
  /** The model it answers (its request's `body.model`); any model when absent. */
  model?: string;
  /**
   * Answers only the request number `sequence` (from 0) to `path`, counted
   * over the requests answered by rules with a sequence since the rules were set.
   */
  sequence?: number;
  /** Default 200. */
  status?: number;
  /** Sent exactly, as JSON. */
  body: unknown;
}

/** A running mock-llm. */
export interface MockLlm {
  /** The base URL for the client, ending with `/v1`. */
  baseURL: string;
  /**
   * Replaces the server's rules (and resets its sequence counters). A request
   * no rule answers gets a 404.
   */
  configure(rules: readonly MockLlmRule[]): Promise<void>;
  /** Stops the server process. */
  close(): Promise<void>;
}

const MAIN = createRequire(import.meta.url).resolve("@dwmkerr/mock-llm");
const READY_TEXT = "server running on";
const PORT_TRIES = 5;

/** Resolves once `child` says it listens; rejects with its output if it exits first. */
function listening(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = "";
    const read = (chunk: Buffer) => {
      output += chunk.toString("utf8");
      if (output.includes(READY_TEXT)) resolve();
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`mock-llm exited (${code}): ${output}`)));
    child.once("error", reject);
  });
}

async function spawnOn(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    cwd: dirname(dirname(MAIN)),
    env: { ...process.env, PORT: String(port), HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await listening(child);
  return child;
}

/** A rule in mock-llm's own configuration format. */
function configOf(rule: MockLlmRule) {
  return {
    path: `^${rule.path}$`,
    method: "POST",
    ...(rule.model === undefined ? {} : { match: `body.model == '${rule.model}'` }),
    ...(rule.sequence === undefined ? {} : { sequence: rule.sequence }),
    response: { status: rule.status ?? 200, content: JSON.stringify(rule.body) },
  };
}

/**
 * Starts mock-llm on a free 127.0.0.1 port (another port when the one picked
 * was taken in between).
 */
export async function startMockLlm(): Promise<MockLlm> {
  let child: ChildProcess | undefined;
  let port = 0;
  for (let attempt = 1; child === undefined; attempt++) {
    port = await findFreePort();
    child = await spawnOn(port).catch((error: unknown) => {
      if (attempt >= PORT_TRIES) throw error;
      return undefined;
    });
  }
  const running = child;
  const exited = once(running, "exit");
  const origin = `http://127.0.0.1:${port}`;

  return {
    baseURL: `${origin}/v1`,
    async configure(rules) {
      await fetch(`${origin}/config`, { method: "DELETE" });
      const response = await fetch(`${origin}/config`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ rules: rules.map(configOf) }),
      });
      if (!response.ok) throw new Error(`mock-llm refused its rules: ${await response.text()}`);
    },
    async close() {
      if (running.exitCode === null && running.signalCode === null) running.kill("SIGTERM");
      await exited;
    },
  };
}
