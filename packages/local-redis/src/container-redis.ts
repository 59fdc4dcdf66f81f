/**
 * Redis in a Docker container through testcontainers, for machines without
 * `redis-server` on PATH. testcontainers is an optional peer dependency
 * (with dockerode and ssh2 under it, it is most of an install's weight) and
 * imported lazily: this package loads, and the other flavours work, where it
 * is not installed or Docker is absent.
 */
import { type RedisServer, unsupported } from "./redis-server.js";

const IMAGE = "redis:7.0";
const REDIS_PORT = 6379;

/**
 * Whether Docker can give a Redis: `ready` when a container runtime (Docker,
 * Podman, …) answers, `no-runtime` when none does, `no-testcontainers` when
 * the package that drives it is not installed.
 */
export type ContainerRuntimeState = "ready" | "no-runtime" | "no-testcontainers";

/** See {@link ContainerRuntimeState}. */
export async function containerRuntimeState(): Promise<ContainerRuntimeState> {
  let testcontainers: typeof import("testcontainers");
  try {
    testcontainers = await import("testcontainers");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_MODULE_NOT_FOUND") {
      return "no-testcontainers";
    }
    throw error;
  }
  try {
    await testcontainers.getContainerRuntimeClient();
    return "ready";
  } catch {
    return "no-runtime";
  }
}

/** Starts `redis:7.0` with `configArgs`; `kill` and `restart` are not supported there. */
export async function startContainerRedis(configArgs: string[]): Promise<RedisServer> {
  const { GenericContainer, Wait } = await import("testcontainers");
  const container = await new GenericContainer(IMAGE)
    .withExposedPorts(REDIS_PORT)
    .withCommand(["redis-server", ...configArgs])
    .withWaitStrategy(Wait.forLogMessage("Ready to accept connections"))
    .start();
  const host = container.getHost();
  const port = container.getMappedPort(REDIS_PORT);
  let stopped = false;
  const why = "for a Redis in a container: install redis-server to test crashes";
  return {
    url: `redis://${host}:${port}`,
    host,
    port,
    source: "container",
    async stop() {
      if (stopped) return;
      stopped = true;
      await container.stop();
    },
    kill: unsupported("kill", why),
    restart: unsupported("restart", why),
  };
}
