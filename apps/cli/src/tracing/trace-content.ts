/**
 * Whether the CLI's workers put message contents on their spans:
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`, the variable
 * OpenTelemetry's GenAI instrumentations read. Off by default; when on, the
 * contents are redacted like the logs.
 */

/** The variable that turns message contents on spans on. */
export const TRACE_CONTENT_VARIABLE = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** `{ traceContent: true }` when the environment turns contents on, else `{}`: spread it into worker options. */
export function traceContentOption(env: Readonly<Record<string, string | undefined>>): {
  traceContent?: boolean;
} {
  return env[TRACE_CONTENT_VARIABLE]?.trim().toLowerCase() === "true" ? { traceContent: true } : {};
}
