/** A logger that keeps every line, with its bindings, for tests to read. Test-only: not exported. */
import type { Logger } from "@errand/runtime";

/** One logged line. */
interface LogRecord {
  level: "debug" | "info" | "warn" | "error";
  message: string | undefined;
  fields: Record<string, unknown>;
}

/** A logger and the lines it kept. */
export interface RecordingLogger extends Logger {
  records: LogRecord[];
}

/** A new recording logger. */
export function recordingLogger(): RecordingLogger {
  const records: LogRecord[] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const at = (level: LogRecord["level"]) => (fields: Record<string, unknown>, message?: string) =>
      records.push({ level, message, fields: { ...bindings, ...fields } });
    return {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: (more) => make({ ...bindings, ...more }),
    };
  };
  return Object.assign(make({}), { records });
}
