/**
 * Redis in a Docker container through testcontainers, for machines without
 * `redis-server` on PATH. testcontainers is imported lazily, so this package
 * loads (and the other flavours work) where Docker is absent.
 */
import { type RedisServer, unsupported } from "./redis-server.js";

const IMAGE = "redis:7.0";
const REDIS_PORT = 6379;

/** True when a container runtime (Docker, Podman, …) answers. */
export async function isContainerRuntimeAvailable(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import("testcontainers");
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
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
