/**
 * Hosts made of Linux network namespaces: a switch (a namespace holding a
 * bridge) and one namespace per host, each joined to the switch by a veth
 * pair and given an address in {@link HOST_SUBNET}. Nothing else is wired to
 * them: traffic flows only between these namespaces (and on each one's own
 * loopback). Cutting a host pulls its cable at the switch (the switch's end
 * of its veth goes down): the host's processes are not told, their packets
 * just stop arriving, as on a real network partition.
 *
 * Namespace names carry a tag unique to the run, so runs side by side never
 * meet; `destroy` (synchronous, so it also runs from an exit hook) kills what
 * still runs in them and deletes them, which deletes their veths too.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { ErrandError } from "@errand/core";

/** The /24 the hosts' addresses are taken from (private, used only inside these namespaces). */
const HOST_SUBNET = "10.77.0";

/** The first host's last address byte; each next host takes the next one. */
const FIRST_HOST_BYTE = 10;

/** The bridge in the switch namespace and the interface name each host sees. */
const BRIDGE = "br0";
const HOST_INTERFACE = "eth0";

/**
 * The longest time between two TCP retransmissions in every namespace, in
 * ms (the kernel's least; its default is 120 s). A host whose cable is back
 * sends what it queued within a second, rather than after TCP's exponential
 * backoff: this only shortens the test. Set where the kernel has the
 * setting (Linux 6.15 and later).
 */
const TCP_RTO_MAX_MS = 1_000;
const TCP_RTO_MAX_SETTING = "/proc/sys/net/ipv4/tcp_rto_max_ms";

/** One host: its namespace and address. */
export interface Host {
  readonly name: string;
  readonly namespace: string;
  readonly address: string;
}

/** The hosts and their switch. */
export interface HostNetwork {
  readonly hosts: readonly Host[];
  /** The host called `name`; throws `invalid_spec` when there is none. */
  host(name: string): Host;
  /** `command` run inside `host`'s namespace (`ip netns exec …`), ready for a spawn. */
  commandOn(host: Host, command: readonly string[]): [string, ...string[]];
  /** Pulls `host`'s cable at the switch. */
  cut(host: Host): void;
  /** Plugs `host`'s cable back in. */
  restore(host: Host): void;
  /** Kills every process still in the namespaces and deletes them. Idempotent. */
  destroy(): void;
}

/** Runs `ip` with `args`; throws with its stderr when it fails. */
function ip(...args: string[]): string {
  return execFileSync("ip", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** Why this machine cannot make network namespaces, or undefined when it can. */
export function namespacesUnavailable(tag: string): string | undefined {
  const probe = `${tag}-probe`;
  try {
    ip("netns", "add", probe);
  } catch (error) {
    const { code, stderr } = error as { code?: string; stderr?: string };
    if (code === "ENOENT") return "the `ip` command (iproute2) is not installed";
    return `\`ip netns add\` failed (${String(stderr ?? error).trim()}): network namespaces need root (CAP_SYS_ADMIN and CAP_NET_ADMIN)`;
  }
  ip("netns", "delete", probe);
  return undefined;
}

/** Kills every process still running in `namespace` (all of them started by this run). */
function killProcessesIn(namespace: string): void {
  for (const pid of ip("netns", "pids", namespace).split(/\s+/).filter(Boolean)) {
    try {
      process.kill(Number(pid), "SIGKILL");
    } catch {
      // it exited meanwhile
    }
  }
}

/** The switch's end of `host`'s cable. */
function switchPort(host: Host): string {
  return `to-${host.name}`;
}

/**
 * Makes the switch and one host per name in `hostNames` (their namespaces
 * named `<tag>-<name>`); on a failure half-way, deletes what it made and throws.
 */
export function createHostNetwork(tag: string, hostNames: readonly string[]): HostNetwork {
  const switchNamespace = `${tag}-switch`;
  const hosts = hostNames.map(
    (name, i): Host => ({
      name,
      namespace: `${tag}-${name}`,
      address: `${HOST_SUBNET}.${FIRST_HOST_BYTE + i}`,
    }),
  );
  const made: string[] = [];
  let destroyed = false;
  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    for (const namespace of made) {
      try {
        killProcessesIn(namespace);
        ip("netns", "delete", namespace);
      } catch (error) {
        process.stderr.write(`could not delete network namespace ${namespace}: ${error}\n`);
      }
    }
  };
  const addNamespace = (namespace: string) => {
    ip("netns", "add", namespace);
    made.push(namespace);
    ip("-n", namespace, "link", "set", "lo", "up");
    if (existsSync(TCP_RTO_MAX_SETTING)) {
      ip("netns", "exec", namespace, "sh", "-c", `echo ${TCP_RTO_MAX_MS} > ${TCP_RTO_MAX_SETTING}`);
    }
  };
  try {
    addNamespace(switchNamespace);
    ip("-n", switchNamespace, "link", "add", BRIDGE, "type", "bridge");
    ip("-n", switchNamespace, "link", "set", BRIDGE, "up");
    for (const host of hosts) {
      addNamespace(host.namespace);
      const port = switchPort(host);
      ip(
        "-n",
        switchNamespace,
        "link",
        "add",
        port,
        "type",
        "veth",
        "peer",
        "name",
        HOST_INTERFACE,
        "netns",
        host.namespace,
      );
      ip("-n", switchNamespace, "link", "set", port, "master", BRIDGE, "up");
      ip("-n", host.namespace, "addr", "add", `${host.address}/24`, "dev", HOST_INTERFACE);
      ip("-n", host.namespace, "link", "set", HOST_INTERFACE, "up");
    }
  } catch (error) {
    destroy();
    throw error;
  }
  return {
    hosts,
    host(name) {
      const host = hosts.find((candidate) => candidate.name === name);
      if (host === undefined) throw new ErrandError("invalid_spec", `no host called ${name}`);
      return host;
    },
    commandOn: (host, command) => ["ip", "netns", "exec", host.namespace, ...command],
    cut: (host) => void ip("-n", switchNamespace, "link", "set", switchPort(host), "down"),
    restore: (host) => void ip("-n", switchNamespace, "link", "set", switchPort(host), "up"),
    destroy,
  };
}
