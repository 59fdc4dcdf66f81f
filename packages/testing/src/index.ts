/**
 * `@errand/testing` — what tests need to exercise errand against real parts.
 *
 * ## A Redis of your own
 *
 * Every test file starts its own Redis and never touches the one on 6379:
 *
 * ```ts
 * import { Redis } from "ioredis";
 * import { startRedis, uniqueKeyPrefix } from "@errand/testing";
 *
 * const server = await startRedis();            // free loopback port, temp dir
 * const redis = new Redis(server.url);
 * const prefix = uniqueKeyPrefix("append");     // "t-append-3f9a…"
 * // … test …
 * redis.disconnect();
 * await server.stop();                          // shuts down, removes the temp dir
 * ```
 *
 * `startRedis` (from `@errand/local-redis`, the production package that
 * `errand demo` and `errand up` start their private Redis with) takes the first Redis it can get: `REDIS_URL` when set (then
 * `stop` does nothing and `kill`/`restart` refuse), else `redis-server` from
 * PATH, else `redis:7.0` in Docker through testcontainers; with none of these
 * it throws an `ErrandError` (`redis_unavailable`) saying how to get one.
 * `server.source` tells which one you got.
 *
 * A local server never outlives the process that started it: one it forgot
 * to stop is killed, and its directory removed, when the process exits; and
 * when the process is killed (SIGKILL, or a signal it does not handle) a
 * watchdog — a small `sh` process of its own session, woken by the end of a
 * pipe from its owner — does the same.
 *
 * ## Crashing Redis on purpose
 *
 * A local server can be killed and brought back, to prove what survives:
 *
 * ```ts
 * const server = await startRedis({ appendonly: true, appendfsync: "always" });
 * await redis.set("k", "v");
 * await server.kill();      // SIGKILL, resolves once the process is gone
 * await server.restart();   // same port, same dir: the AOF is replayed
 * ```
 *
 * ## Redis Cluster
 *
 * `startRedisCluster({ masters: 3 })` starts three cluster-enabled servers,
 * assigns every slot and resolves once each node reports `cluster_state:ok`;
 * connect with `new Cluster(cluster.nodes)`.
 *
 * ## A replica
 *
 * `startReplicaOf(server)` starts another Redis as a replica of `server` and
 * resolves once its link is up: a master without a replica first, then with
 * one, for `durability: "replicated"`.
 *
 * ## Redis over TLS
 *
 * `startTlsRedis()` starts a `redis-server` with a TLS port beside its plain
 * one, its certificate self-signed for 127.0.0.1 by `openssl`:
 * `server.tlsUrl` (`rediss://…`) works for a client that trusts
 * `server.caFile` (`NODE_EXTRA_CA_CERTS`, or ioredis' `tls.ca`), and
 * `server.otherCaFile` is a CA that did not sign it.
 *
 * ## A fake OpenAI that plays scripts
 *
 * `startFakeOpenAI` is a real HTTP server speaking the Chat Completions API
 * and the Responses API (`POST /v1/chat/completions`, `POST /v1/responses`,
 * `GET /v1/models`; with `stream: true`, answers stream as server-sent events
 * in each API's format, `streamDelayMs` apart), so the real `openai` client —
 * retries, error classes and all — runs against it. It plays the same
 * `Script` turns (from `@errand/core`) as the in-process scripted model:
 *
 * ```ts
 * import OpenAI from "openai";
 * import { startFakeOpenAI } from "@errand/testing";
 *
 * const fake = await startFakeOpenAI({
 *   scripts: {
 *     "scripted-researcher": [
 *       { fail: "busy", status: 429, retryAfterSeconds: 0 },  // the client retries…
 *       { call: [{ tool: "search", args: { q: "errand" } }] }, // …and gets this
 *       { say: "Done.", sleepMs: 50 },
 *     ],
 *   },
 * });
 * const client = new OpenAI({ apiKey: "test", baseURL: fake.baseURL });
 * // … run an agent with model "scripted-researcher" …
 * fake.requests.map((r) => r.body?.messages);  // what the model was sent
 * await fake.close();
 * ```
 *
 * Which script: `scriptFor(request)` when given and it returns one, else
 * `scripts[request.model]`; an unknown model gets a 404 like the real API.
 * Which turn: the number of assistant messages in the request plus the fail
 * turns already served to that conversation (the model and the messages up to
 * the first user message). No server-side cursor, so concurrent runs and runs
 * resumed after a crash each get their own turns, and a fail turn uses up its
 * slot: the retry gets the next turn. When the script runs out the answer is
 * empty text with `finish_reason: "stop"`. Tool-call `args` are sent as JSON;
 * a string is sent verbatim, to test malformed arguments. Every answer
 * reports usage with its cached tokens (the conversation up to its last
 * answer) and, when the request asks for reasoning, reasoning tokens.
 *
 * A Responses request is read as its conversation in chat form
 * (instructions as the system message, each run of output items as one
 * assistant message, function-call outputs as tool messages): `scriptFor`
 * gets that, and its turns are counted the same way. It answers as a
 * reasoning model does when the request sets `reasoning`: a reasoning item
 * first, with a summary when asked and encrypted content when `include`
 * asks for `reasoning.encrypted_content`. It remembers what the real API
 * would, and refuses the same: a `previous_response_id` it did not store
 * (`store: false`), encrypted content it never issued, a reasoning item sent
 * back without its encrypted content when its response was not stored.
 * `intercept(request)` answers a request yourself (a malformed body, …);
 * each recorded request keeps the `answer` the server sent.
 * `readSentRequest(path, body)` reads a request of either shape the same way
 * (the conversation as chat messages, the tools by name), so one assertion
 * covers both.
 *
 * ## Fake Anthropic and Gemini servers
 *
 * `startFakeAnthropic({ turnsFor })` speaks Anthropic's Messages API (JSON
 * and server-sent events) and `startFakeGemini({ turnsFor })` the Gemini
 * API (`generateContent`, `streamGenerateContent?alt=sse`), so the real
 * `@ai-sdk/anthropic` and `@ai-sdk/google` parse their answers. Both play
 * `ProviderTurn`s by model (`say`, `call`, `think`, `redact`, `fail`,
 * `malformed`, `sleepMs`), report cache and reasoning usage, record each
 * request's raw body, and refuse a thinking block or thought signature sent
 * back other than as issued, as the real APIs do.
 *
 * ## An independent mock: @dwmkerr/mock-llm
 *
 * `startMockLlm()` runs the registry's `@dwmkerr/mock-llm` in a child process
 * on a free port; `configure(rules)` tells it which exact body (and status)
 * each path and model gets, in order when rules carry a `sequence`. It
 * serves `/v1/chat/completions` and `/v1/responses` alike, but cannot send
 * headers (no `retry-after`).
 *
 * @packageDocumentation
 */

export {
  findFreePort,
  type MasterFailover,
  NO_REDIS_MESSAGE,
  type RedisClusterServer,
  type RedisServer,
  type RedisSource,
  type StartRedisClusterOptions,
  type StartRedisOptions,
  startRedis,
  startRedisCluster,
  type WaitUntilOptions,
  waitUntil,
} from "@errand/local-redis";
export {
  readSentRequest,
  type SentRequest,
  type SentTool,
} from "./fake-openai/sent-request.js";
export {
  type FakeOpenAI,
  type FakeOpenAIOptions,
  type InterceptedAnswer,
  type RecordedRequest,
  startFakeOpenAI,
} from "./fake-openai/server.js";
export type {
  ChatCompletionRequest,
  ResponseObject,
  ResponsesInputItem,
  ResponsesRequest,
  WireMessage,
} from "./fake-openai/wire-types.js";
export { uniqueKeyPrefix } from "./key-prefix.js";
export { type MockLlm, type MockLlmRule, startMockLlm } from "./mock-llm/start-mock-llm.js";
export { startFakeAnthropic } from "./provider-fakes/fake-anthropic.js";
export { startFakeGemini } from "./provider-fakes/fake-gemini.js";
export type { ProviderTurn, TurnCall } from "./provider-fakes/provider-turn.js";
export type {
  FakeProvider,
  FakeProviderOptions,
  ProviderRequest,
} from "./provider-fakes/wire-server.js";
export { startReplicaOf } from "./redis/replica.js";
export { startTlsRedis, type TlsRedisServer } from "./redis/tls-redis.js";
export { SECRET_KEY_SAMPLES } from "./secret-keys.js";
