/**
 * The deploy path (`infra/`) as its tests read it: the kustomize base's
 * manifests, the example agents the deployments run, the BullMQ keys their
 * KEDA trigger must name, and whether `errand` accepts a container's command.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runCli } from "@errand/cli";
import { engineKeys, shardsOfQueue } from "@errand/engine";
import { queueOfAgents } from "@errand/engine/ops";
import type { Agent } from "@errand/runtime";
import { parseAllDocuments } from "yaml";

/** The repository's root folder. */
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A path under the repository's root. */
export function repoPath(...parts: string[]): string {
  return join(REPO_ROOT, ...parts);
}

/** The kustomize base's folder. */
export const KUBERNETES_DIR = repoPath("infra", "kubernetes");

/** The fields of `kustomization.yaml` the tests read. */
export interface Kustomization {
  resources: string[];
  configMapGenerator: { name: string; literals?: string[]; files?: string[] }[];
}

/** One object of the base, and the file it is in. */
export interface Manifest {
  file: string;
  object: { apiVersion: string; kind: string; metadata: { name: string } } & Record<
    string,
    unknown
  >;
}

/** Every YAML document of `text`; a document that does not parse throws, naming `file`. */
export function parseYamlDocuments(text: string, file: string): unknown[] {
  return parseAllDocuments(text).map((document) => {
    if (document.errors.length > 0) {
      throw new Error(`${file}: ${document.errors.map((error) => error.message).join("; ")}`);
    }
    return document.toJS();
  });
}

/** `kustomization.yaml` and every object of the resources it lists. */
export async function readKustomizeBase(): Promise<{
  kustomization: Kustomization;
  manifests: Manifest[];
}> {
  const [kustomization] = parseYamlDocuments(
    await readFile(join(KUBERNETES_DIR, "kustomization.yaml"), "utf8"),
    "kustomization.yaml",
  ) as [Kustomization];
  const manifests: Manifest[] = [];
  for (const file of kustomization.resources) {
    const text = await readFile(join(KUBERNETES_DIR, file), "utf8");
    for (const object of parseYamlDocuments(text, file)) {
      manifests.push({ file, object: object as Manifest["object"] });
    }
  }
  return { kustomization, manifests };
}

/** The agents `infra/kubernetes/agents.mjs` exports, loaded as a worker loads them. */
export async function exampleAgents(): Promise<Agent[]> {
  const module: Record<string, unknown> = await import(
    pathToFileURL(join(KUBERNETES_DIR, "agents.mjs")).href
  );
  return Object.values(module).filter(
    (value): value is Agent =>
      typeof value === "object" && value !== null && "name" in value && "instructions" in value,
  );
}

/** The names of {@link exampleAgents}. */
export async function exampleAgentNames(): Promise<string[]> {
  return (await exampleAgents()).map((agent) => agent.name);
}

/** The BullMQ keys of the runs a queue's workers have to take or are running. */
export interface BacklogKeys {
  /** LIST: jobs ready to be taken, in order. */
  waiting: string;
  /** ZSET: jobs ready to be taken by priority. */
  prioritized: string;
  /** LIST: jobs a worker holds. */
  active: string;
}

/**
 * The keys of each shard of the queue of the workers that run `agents` under
 * `prefix` with `queueShards` shards, in shard order: KEDA needs a trigger
 * for each, and the formula adds them all up.
 */
export function backlogKeys(
  prefix: string,
  agents: readonly string[],
  queueShards = 1,
): BacklogKeys[] {
  const keys = engineKeys(prefix);
  return shardsOfQueue(keys, queueOfAgents(prefix, agents, queueShards)).map((shard) => {
    const queue = `${shard.prefix}:${shard.name}`;
    return {
      waiting: `${queue}:wait`,
      prioritized: `${queue}:prioritized`,
      active: `${queue}:active`,
    };
  });
}

/** The value after `flag` in a command's arguments, if it is there. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at === -1 ? undefined : args[at + 1];
}

/**
 * How `errand <args> --help` ends, in this process: exit 0 when the command
 * exists and takes every option given (with `--help`, nothing runs), 2 with
 * the reason on stderr otherwise.
 */
export async function errandAccepts(
  args: readonly string[],
): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const code = await runCli([...args, "--help"], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    cwd: REPO_ROOT,
  });
  return { code, stderr };
}
