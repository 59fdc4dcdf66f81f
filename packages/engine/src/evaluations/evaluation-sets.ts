/**
 * Saved run sets (docs/architecture/evaluations.md#saved-run-sets): a named
 * selection of recorded runs, resolved to its runIds once, when it is saved,
 * so that every evaluation of the set takes the same runs, however the runs
 * a filter matches move on. One HASH holds them all, field the set's name.
 */
import { ErrandError } from "@errand/core";
import type { EventStore } from "@errand/store";
import type { EngineKeys } from "../engine-keys.js";
import type { RedisConnection } from "../redis/connection.js";
import {
  EvaluationSet,
  EvaluationSetName,
  ResolvableSelection,
  type RunFilter,
} from "./evaluation-record.js";
import { type ListRuns, resolveRuns } from "./select-runs.js";

/** What `errand.evaluations.sets.save` takes. */
export interface SaveSetOptions {
  /** The set's name: 1 to 128 of letters, digits, `.`, `_`, `-`, `:`. */
  name: string;
  /** The runs: their ids, or a filter resolved to the settled runs it matches now. */
  runs: readonly string[] | RunFilter;
  /** Replace a set of that name; without it, saving over a set is refused (`invalid_spec`). */
  replace?: boolean;
}

/** The saved run sets. */
export interface EvaluationSets {
  /** Resolves `runs` and saves the set; refuses a set that matches no run (`invalid_spec`). */
  save(options: SaveSetOptions): Promise<EvaluationSet>;
  /** The set `name`; `undefined` when there is none. */
  get(name: string): Promise<EvaluationSet | undefined>;
  /** Every set, by name. */
  list(): Promise<EvaluationSet[]>;
}

/** What saving a set reads the runs with. */
export interface SetSources {
  redis: RedisConnection;
  keys: EngineKeys;
  store: EventStore;
  listRuns: ListRuns;
  now: () => Date;
}

function invalid(message: string): never {
  throw new ErrandError("invalid_spec", `invalid run set: ${message}`);
}

function parsedSelection(runs: SaveSetOptions["runs"]): ResolvableSelection {
  const parsed = ResolvableSelection.safeParse(
    Array.isArray(runs) ? { runIds: runs } : { filter: runs },
  );
  if (parsed.success) return parsed.data;
  invalid(parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; "));
}

/** The saved run sets on `sources.redis`. */
export function evaluationSets(sources: SetSources): EvaluationSets {
  const { redis, keys } = sources;
  const parse = (text: string) => EvaluationSet.parse(JSON.parse(text));
  return {
    async save({ name, runs, replace = false }) {
      if (!EvaluationSetName.safeParse(name).success) {
        invalid(`${JSON.stringify(name)} is not a set name (1 to 128 of letters, digits, . _ - :)`);
      }
      const selection = parsedSelection(runs);
      const runIds = await resolveRuns(sources.listRuns, sources.store, selection);
      if (runIds.length === 0) invalid(`no settled run matches the runs of set ${name}`);
      const set: EvaluationSet = {
        name,
        createdAt: sources.now().toISOString(),
        runs: selection,
        runIds,
      };
      const text = JSON.stringify(set);
      const written = replace
        ? await redis.hset(keys.evaluationSets, name, text)
        : await redis.hsetnx(keys.evaluationSets, name, text);
      if (!replace && written === 0) {
        invalid(`a set named ${name} is saved already: pass replace to save over it`);
      }
      return set;
    },
    async get(name) {
      const text = await redis.hget(keys.evaluationSets, name);
      return text == null ? undefined : parse(text);
    },
    async list() {
      const all = await redis.hgetall(keys.evaluationSets);
      return Object.values(all)
        .map(parse)
        .sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}
