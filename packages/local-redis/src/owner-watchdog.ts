/**
 * The safety net for an owner that dies without cleaning up (SIGKILL, a
 * signal it does not handle, a crash): the exit hook cannot run then, so a
 * tiny `sh` process outlives the owner just long enough to do it.
 *
 * The watchdog reads a pipe whose only writer is the owner. The kernel closes
 * that pipe when the owner's process ends, however it ends, and not before, so
 * end-of-file without a word means "the owner is gone": the watchdog kills the
 * server named by the pidfile (when that pid still runs `redis-server`) and
 * removes the server's directory. An owner that cleaned up itself sends
 * `released` first, and the watchdog exits without touching anything. It runs
 * in a session of its own, so a closed terminal (SIGHUP to the owner's process
 * group) or a Ctrl-C does not stop it before its job.
 */
import { spawn } from "node:child_process";
import type { Socket } from "node:net";

/** What the owner writes when it stopped the server itself. */
const RELEASED = "released";

/**
 * `$1` the server's directory, `$2` its pidfile. Waits for a line or EOF on
 * stdin; unless the line is `released`, SIGKILLs the pid in the pidfile if
 * that process is named `redis-server` (from `/proc`, else `ps`: a stale
 * pidfile never kills another program), waits up to 10 s until it is gone or
 * a zombie, and removes the directory. Needs only `sh`, `cat`, `sed`, `rm`
 * and, without `/proc` (macOS), `ps`.
 */
const WATCHDOG_SCRIPT = `
if read -r word && [ "$word" = ${RELEASED} ]; then exit 0; fi
pid=$(cat "$2" 2>/dev/null)
running() {
  if [ -r "/proc/$pid/stat" ]; then
    state=$(sed 's/.*) \\(.\\).*/\\1/' "/proc/$pid/stat" 2>/dev/null)
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
  else
    kill -0 "$pid" 2>/dev/null && ! ps -p "$pid" -o stat= 2>/dev/null | grep -q '^Z'
  fi
}
if [ -n "$pid" ]; then
  name=$(cat "/proc/$pid/comm" 2>/dev/null || ps -p "$pid" -o comm= 2>/dev/null)
  case "$name" in
    *redis-server*)
      kill -9 "$pid" 2>/dev/null
      tries=0
      while [ "$tries" -lt 100 ] && running; do
        sleep 0.1
        tries=$((tries + 1))
      done
      ;;
  esac
fi
rm -rf "$1"
`;

/** A running watchdog. */
export interface OwnerWatchdog {
  /** Tells the watchdog the server was stopped and its directory removed: it exits doing nothing. */
  release(): void;
}

/**
 * Starts a watchdog for the server living in `dir` with `pidfile`. It neither
 * keeps this process's event loop alive nor fails it: without `sh` (not a
 * Unix) there is simply no watchdog, and the exit hook remains the only net.
 */
export function watchOwner(dir: string, pidfile: string): OwnerWatchdog {
  const watchdog = spawn("sh", ["-c", WATCHDOG_SCRIPT, "errand-redis-watchdog", dir, pidfile], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  watchdog.on("error", () => {});
  const pipe = watchdog.stdin as Socket;
  pipe.on("error", () => {});
  pipe.unref();
  watchdog.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      pipe.end(`${RELEASED}\n`);
    },
  };
}
