/**
 * The kustomize base (`infra/kubernetes/`): every object valid against the
 * Kubernetes and KEDA schemas (`kubernetes-models`), and consistent with
 * errand — commands errand takes, probes on the health endpoints, a grace
 * period longer than the worker's drain, budgets and a scaler aimed at the
 * worker, and the KEDA trigger on the keys of the workers' real queue.
 */
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { ScaledObject } from "@kubernetes-models/keda/keda.sh/v1alpha1/ScaledObject";
import { Deployment } from "kubernetes-models/apps/v1/Deployment";
import { PodDisruptionBudget } from "kubernetes-models/policy/v1/PodDisruptionBudget";
import type { IContainer } from "kubernetes-models/v1/Container";
import { Service } from "kubernetes-models/v1/Service";
import { beforeAll, describe, expect, it } from "vitest";
import {
  backlogKeys,
  errandAccepts,
  exampleAgentNames,
  flagValue,
  KUBERNETES_DIR,
  type Kustomization,
  type Manifest,
  readKustomizeBase,
} from "./infra-files.js";

/** The model of each kind the base may hold: its `validate()` checks the object against the schema. */
const MODELS = {
  "apps/v1 Deployment": Deployment,
  "v1 Service": Service,
  "policy/v1 PodDisruptionBudget": PodDisruptionBudget,
  "keda.sh/v1alpha1 ScaledObject": ScaledObject,
} as const;

type ModelKey = keyof typeof MODELS;

function modelOf(manifest: Manifest) {
  const key = `${manifest.object.apiVersion} ${manifest.object.kind}`;
  const model = MODELS[key as ModelKey];
  if (model === undefined) {
    throw new Error(`${manifest.file}: no schema to check ${key} against: add its model to MODELS`);
  }
  return model;
}

let kustomization: Kustomization;
let manifests: Manifest[];

beforeAll(async () => {
  ({ kustomization, manifests } = await readKustomizeBase());
});

function only<T>(kind: string, name: string, make: (object: never) => T): T {
  const found = manifests.filter(
    (manifest) => manifest.object.kind === kind && manifest.object.metadata.name === name,
  );
  expect(found, `one ${kind} ${name}`).toHaveLength(1);
  return make(found[0]?.object as never);
}

const deployment = (name: string) => only("Deployment", name, (o) => new Deployment(o));

function containerOf(name: string): IContainer {
  const containers = deployment(name).spec?.template.spec?.containers ?? [];
  expect(containers, `${name} has one container`).toHaveLength(1);
  return containers[0] as IContainer;
}

/** The container port a probe names (by name or number). */
function probedPort(container: IContainer, port: number | string | undefined): number | undefined {
  if (typeof port === "number") return port;
  return container.ports?.find((declared) => declared.name === port)?.containerPort;
}

describe("the kustomize base", () => {
  it("lists every manifest of its folder, and the files its generators read exist", async () => {
    const files = (await readdir(KUBERNETES_DIR)).filter(
      (file) => file.endsWith(".yaml") && file !== "kustomization.yaml",
    );
    expect([...kustomization.resources].sort()).toEqual(files.sort());
    for (const generator of kustomization.configMapGenerator) {
      for (const file of generator.files ?? []) {
        expect(existsSync(join(KUBERNETES_DIR, file)), file).toBe(true);
      }
    }
  });

  it("holds objects that pass the Kubernetes and KEDA schemas", () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) {
      const Model = modelOf(manifest);
      expect(() => new Model(manifest.object as never).validate(), manifest.file).not.toThrow();
    }
  });

  it("checks with validators that refuse a broken object (they are not a formality)", () => {
    const worker = manifests.find((m) => m.object.metadata.name === "errand-worker")?.object;
    const broken = structuredClone(worker) as unknown as { spec: Record<string, unknown> };
    broken.spec.replicas = "two";
    expect(() => new Deployment(broken as never).validate()).toThrow(/replicas must be integer/);
    const scaler = new ScaledObject({
      metadata: { name: "no-triggers" },
      spec: { scaleTargetRef: { name: "errand-worker" } },
    } as never);
    expect(() => scaler.validate()).toThrow(/triggers/);
  });

  it("runs errand's worker, collector and dashboard with commands errand takes", async () => {
    for (const [name, command] of [
      ["errand-worker", "worker"],
      ["errand-collector", "collector"],
      ["errand-dashboard", "dashboard"],
    ] as const) {
      const args = containerOf(name).args ?? [];
      expect(args[0], name).toBe(command);
      expect(await errandAccepts(args), `errand ${args.join(" ")}`).toEqual({
        code: 0,
        stderr: "",
      });
    }
  });

  it("probes /livez and /readyz on the port each process serves them on", () => {
    for (const name of ["errand-worker", "errand-collector", "errand-dashboard"]) {
      const container = containerOf(name);
      const args = container.args ?? [];
      const served = Number(flagValue(args, "--health-port") ?? flagValue(args, "--port"));
      const live = container.livenessProbe?.httpGet;
      const ready = container.readinessProbe?.httpGet;
      expect([live?.path, ready?.path], name).toEqual(["/livez", "/readyz"]);
      expect(probedPort(container, live?.port), name).toBe(served);
      expect(probedPort(container, ready?.port), name).toBe(served);
    }
  });

  it("gives a worker longer than its drain (--grace) before SIGKILL, and leaves its replicas to KEDA", () => {
    const worker = deployment("errand-worker");
    const grace = Number(flagValue(containerOf("errand-worker").args ?? [], "--grace"));
    expect(grace).toBeGreaterThan(0);
    expect(worker.spec?.template.spec?.terminationGracePeriodSeconds).toBeGreaterThan(grace);
    expect(worker.spec?.replicas).toBeUndefined();
    expect(deployment("errand-collector").spec?.replicas).toBe(2);
  });

  it("mounts the example agents where the worker loads them, and runs every pod as a user", () => {
    const worker = deployment("errand-worker").spec?.template.spec;
    const agentsPath = flagValue(containerOf("errand-worker").args ?? [], "--agents") ?? "";
    const mount = containerOf("errand-worker").volumeMounts?.find((m) =>
      agentsPath.startsWith(`${m.mountPath}/`),
    );
    const volume = worker?.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.configMap?.name).toBe("errand-agents");
    const generated = kustomization.configMapGenerator.find((g) => g.name === "errand-agents");
    expect(generated?.files).toContain(agentsPath.slice(`${mount?.mountPath}/`.length));
    for (const name of ["errand-worker", "errand-collector", "errand-dashboard"]) {
      const pod = deployment(name).spec?.template.spec;
      expect(pod?.securityContext?.runAsNonRoot, name).toBe(true);
      expect(pod?.securityContext?.runAsUser, name).not.toBe(0);
    }
  });

  it("has disruption budgets that select the worker's and the collector's pods", () => {
    for (const name of ["errand-worker", "errand-collector"]) {
      const budget = only("PodDisruptionBudget", name, (o) => new PodDisruptionBudget(o));
      const labels = deployment(name).spec?.template.metadata?.labels ?? {};
      const selector = budget.spec?.selector?.matchLabels ?? {};
      expect(Object.keys(selector).length, name).toBeGreaterThan(0);
      for (const [key, value] of Object.entries(selector)) expect(labels[key], key).toBe(value);
    }
  });

  it("scales the workers on the keys of their queue: waiting + prioritized + active over --concurrency", async () => {
    const scaler = only("ScaledObject", "errand-worker", (o) => new ScaledObject(o)).spec;
    expect(scaler?.scaleTargetRef.name).toBe("errand-worker");
    expect(scaler?.minReplicaCount).toBeGreaterThanOrEqual(1);
    // One trio of triggers for each shard of the worker's queue (--queue-shards, default 1).
    const queueShards = Number(
      flagValue(containerOf("errand-worker").args ?? [], "--queue-shards") ?? "1",
    );
    const shards = backlogKeys("errand", await exampleAgentNames(), queueShards);
    const triggers = scaler?.triggers ?? [];
    const named = (name: string, shard: number) => (shards.length === 1 ? name : `${name}${shard}`);
    expect(triggers.map((t) => [t.type, t.name, t.metadata.listName])).toEqual(
      shards.flatMap((keys, shard) => [
        ["redis", named("waiting", shard), keys.waiting],
        ["redis", named("prioritized", shard), keys.prioritized],
        ["redis", named("active", shard), keys.active],
      ]),
    );
    const modifiers = scaler?.advanced?.scalingModifiers;
    expect(modifiers?.formula?.split("+").map((term) => term.trim())).toEqual(
      triggers.map((t) => t.name),
    );
    expect(modifiers?.target).toBe(
      flagValue(containerOf("errand-worker").args ?? [], "--concurrency"),
    );
    const config = kustomization.configMapGenerator.find((g) => g.name === "errand-config");
    const variables = (config?.literals ?? []).map((literal) => literal.split("=")[0]);
    for (const trigger of triggers) expect(variables).toContain(trigger.metadata.addressFromEnv);
  });
});
