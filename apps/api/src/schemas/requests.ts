/**
 * The requests of the API, as zod schemas: the one source of truth of what a
 * request may carry. The routes validate with them and the OpenAPI document
 * is generated from them (docs/architecture/http-api.md#the-contract), so the
 * document cannot say something the server does not check.
 */
import { FireSpec, MAX_IDEMPOTENCY_KEY_LENGTH } from "@errand/engine";
import { MAX_FIRE_MANY } from "@errand/engine/ops";
import { z } from "@hono/zod-openapi";

/** The longest `waitMs` a request may ask for: 60 s, under common HTTP clients' and proxies' timeouts. */
const MAX_WAIT_MS = 60_000;

/** The most runIds one collect request takes. */
const MAX_COLLECT_RUN_IDS = 5_000;

const RunId = z
  .string()
  .min(1)
  .max(64)
  .openapi({ description: "A run's id, as fire answered it." });

/** `:runId` of a path. */
export const RunIdParam = z.object({
  runId: RunId.openapi({
    param: { name: "runId", in: "path" },
    description:
      "A run's id, as fire answered it. A path naming no run (never fired, expired, or not a run id) is 404 `not_found`.",
  }),
});

const WaitMs = z.coerce
  .number()
  .int()
  .min(0)
  .max(MAX_WAIT_MS)
  .openapi({
    description: `How long to wait, in ms (0 … ${MAX_WAIT_MS}). Default 0: answer at once.`,
  });

const Limit = z.coerce.number().int().min(1).max(1_000);
const Cursor = z
  .string()
  .min(1)
  .max(4_096)
  .openapi({ description: "The `nextCursor` of the previous page." });

/** One run to fire: `fire`'s spec, its `outputSchema` a JSON Schema object. */
export const FireRequest = z
  .strictObject({
    ...FireSpec.shape,
    outputSchema: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        "The structured answer the run must record: a JSON Schema object within the strict subset.",
    }),
  })
  .openapi("FireRequest", { description: "One run to fire: `errand.fire`'s spec." });
export type FireRequest = z.infer<typeof FireRequest>;

/** `POST /v1/runs/batch`. */
export const FireBatchRequest = z
  .strictObject({ runs: z.array(FireRequest).min(1).max(MAX_FIRE_MANY) })
  .openapi("FireBatchRequest");

/** The `Idempotency-Key` header of the fire routes. */
export const IdempotencyHeader = z.object({
  "idempotency-key": z
    .string()
    .min(1)
    .max(MAX_IDEMPOTENCY_KEY_LENGTH - 8)
    .optional()
    .openapi({
      param: { in: "header" },
      description:
        "Fires at most once per key (24 h): the same request again answers with the run fired first, `deduplicated: true`. In a batch, item i uses `<key>:<i>` unless it has an `idempotencyKey` of its own.",
    }),
});

/** `GET /v1/runs/:runId?waitMs=`. */
export const GetRunQuery = z.object({ waitMs: WaitMs.optional() });

/** `POST /v1/runs/collect`. */
export const CollectRequest = z
  .strictObject({
    runIds: z.array(RunId).min(1).max(MAX_COLLECT_RUN_IDS),
    waitMs: z.number().int().min(0).max(MAX_WAIT_MS).optional(),
    limit: z.number().int().min(1).max(500).optional(),
    cursor: Cursor.optional(),
  })
  .openapi("CollectRequest");

/** `GET /v1/runs?status&agent&parentRunId&limit&cursor`. */
export const ListQuery = z.object({
  status: z.enum(["queued", "running", "succeeded", "failed", "cancelled"]).optional(),
  agent: z.string().min(1).max(256).optional(),
  parentRunId: RunId.optional(),
  tenant: z.string().min(1).max(128).optional(),
  limit: Limit.max(500).optional(),
  cursor: Cursor.optional(),
});

/** `POST /v1/runs/:runId/cancel`. */
export const CancelRequest = z
  .strictObject({
    cascade: z.boolean().optional(),
    reason: z.string().max(500).optional(),
  })
  .openapi("CancelRequest");

/** `GET /v1/runs/:runId/events?cursor&limit`; as a stream, `Last-Event-ID` is a seq. */
export const EventsQuery = z.object({
  limit: Limit.optional(),
  cursor: Cursor.optional(),
});

/** `GET /v1/waitpoints?runId&limit&cursor`. */
export const WaitpointsQuery = z.object({
  runId: RunId.optional(),
  limit: Limit.max(500).optional(),
  cursor: Cursor.optional(),
});

/** `:token` of a waitpoint's path. */
export const TokenParam = z.object({
  token: z
    .string()
    .min(1)
    .max(256)
    .openapi({ param: { name: "token", in: "path" } }),
});

/** `POST /v1/waitpoints/:token/answer`. */
export const AnswerRequest = z
  .strictObject({
    answer: z.unknown().openapi({ description: "Checked against the waitpoint's answer schema." }),
    answeredBy: z.string().min(1).max(256).optional(),
  })
  .openapi("AnswerRequest");
