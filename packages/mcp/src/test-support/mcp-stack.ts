/**
 * errand and its MCP server in this process, for the package's tests: a
 * private Redis, a worker running the test agents, a collector, a client, and
 * an MCP server over those, reached by the official SDK `Client` through the
 * SDK's in-memory transport (the same JSON-RPC messages stdio or HTTP would
 * carry). `call` sends one tool call and parses its answer. Test-only.
 *
 * The agents: `echo` plays the script of its input (`input.script`);
 * `flaky` fails its first run of each `input.failOnce` key with a retryable
 * model error (the provider asks to come back in an hour, so the run fails
 * at once) and plays its script on any later run; `approver` asks a person
 * for `{ approve: boolean }` and says what it was told.
 */
import {
  createCollector,
  createErrand,
  createWorker,
  type Durability,
  type Errand,
  LOOPBACK_GRANT,
  openConnection,
  type RedisConnection,
} from "@errand/engine";
import { createLogger } from "@errand/engine/ops";
import { askTool, defineAgent, type Model, ModelError, scriptedModel } from "@errand/runtime";
import { type RedisServer, startRedis, uniqueKeyPrefix } from "@errand/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { createErrandMcpServer } from "../server/create-server.js";
import type { ErrandMcpServices } from "../server/errand-services.js";
import { grantedServices, type SharedServices } from "../server/granted-services.js";

/** The dashboard URL the client links runs to. */
export const TEST_DASHBOARD_URL = "http://dashboard.test";

/** The answer schema `approver` asks with. */
export const APPROVAL_SCHEMA = {
  type: "object",
  properties: { approve: { type: "boolean" } },
  required: ["approve"],
  additionalProperties: false,
};

/** A model that fails the first run of each `input.failOnce` key, retryably, and plays scripts otherwise. */
function failOnceModel(): Model {
  const scripted = scriptedModel();
  const failed = new Set<string>();
  return {
    name: "fail-once",
    supportsTools: true,
    async respond(request, signal) {
      const key = (request.input as { failOnce?: string } | null)?.failOnce;
      if (key !== undefined && !failed.has(key)) {
        failed.add(key);
        throw new ModelError("the provider is overloaded", {
          retryable: true,
          status: 503,
          retryAfterMs: 3_600_000,
        });
      }
      return scripted.respond(request, signal);
    },
  };
}

const AGENTS = [
  defineAgent({
    name: "echo",
    description: "Plays the script it is given.",
    instructions: "Play your script.",
    model: scriptedModel(),
    scriptFromInput: true,
  }),
  defineAgent({
    name: "flaky",
    description: "Fails its first run of each failOnce key, then plays its script.",
    instructions: "Play your script.",
    model: failOnceModel(),
    scriptFromInput: true,
  }),
  defineAgent({
    name: "approver",
    description: "Asks a person to approve, then says what it was told.",
    instructions: "Ask for approval.",
    model: scriptedModel(),
    tools: [askTool({ answerSchema: APPROVAL_SCHEMA })],
    scriptFromInput: true,
  }),
];

/** One tool call's answer: its parsed JSON, whether it is an error, and its size as a JSON-RPC message. */
export interface ToolAnswer {
  // biome-ignore lint/suspicious/noExplicitAny: tests read answers by their documented fields.
  value: any;
  isError: boolean;
  /** The bytes of the answer as a JSON-RPC response. */
  bytes: number;
}

/** A running stack. */
export interface McpStack {
  client: Client;
  /** The services of the loopback grant, which `client` is served through. */
  services: ErrandMcpServices;
  /** What every grant's services share: the full client and the registry's connection. */
  shared: SharedServices;
  errand: Errand;
  /** The private Redis (to give it a replica, say). */
  redis: RedisServer;
  redisUrl: string;
  prefix: string;
  /** Errors the tools reported as unexpected. */
  unexpected: unknown[];
  call(
    name: string,
    args: Record<string, unknown>,
    onprogress?: (progress: Progress) => void,
  ): Promise<ToolAnswer>;
  stop(): Promise<void>;
}

/** The parsed answer of a tool call. */
export function parseAnswer(result: CallToolResult): ToolAnswer {
  const [block] = result.content;
  if (block?.type !== "text") throw new Error(`not one text block: ${JSON.stringify(result)}`);
  const envelope = { result, jsonrpc: "2.0", id: 1 };
  return {
    value: JSON.parse(block.text),
    isError: result.isError === true,
    bytes: Buffer.byteLength(JSON.stringify(envelope)),
  };
}

/**
 * Starts Redis, the worker, the collector, the client (its fires of
 * `durability`, the engine's default unless told) and the MCP server, and
 * connects an SDK client.
 */
export async function startMcpStack(options: { durability?: Durability } = {}): Promise<McpStack> {
  const redis: RedisServer = await startRedis({ maxmemoryPolicy: "noeviction" });
  const prefix = uniqueKeyPrefix("mcp");
  const logger = createLogger({ level: "silent" });
  const engine = { connection: redis.url, prefix, logger, jobOptions: { attempts: 1 } };
  const worker = await createWorker({ ...engine, agents: AGENTS, concurrency: 16 });
  const collector = createCollector(engine);
  await collector.start();
  const errand = createErrand({ ...engine, ...options, dashboardUrl: TEST_DASHBOARD_URL });
  const registry: RedisConnection = openConnection(redis.url, {
    logger,
    name: "test agent registry",
  });
  const unexpected: unknown[] = [];
  const shared: SharedServices = {
    errand,
    registry,
    logger,
    reportUnexpected: (error) => unexpected.push(error),
  };
  const services = grantedServices(shared, LOOPBACK_GRANT);
  const server = createErrandMcpServer(services, { name: "errand", version: "test" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "errand-test", version: "1.0.0" });
  await client.connect(clientSide);
  return {
    client,
    services,
    shared,
    errand,
    redis,
    redisUrl: redis.url,
    prefix,
    unexpected,
    async call(name, args, onprogress) {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        timeout: 90_000,
        ...(onprogress === undefined ? {} : { onprogress }),
      });
      return parseAnswer(result as CallToolResult);
    },
    async stop() {
      await client.close();
      await server.close();
      await worker.close();
      await collector.stop();
      registry.disconnect();
      await errand.close();
      await redis.stop();
    },
  };
}
