/** `npm start`: the demo MCP server on 127.0.0.1:${PORT:-3000}/mcp, until SIGINT or SIGTERM. */
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_SECONDS, startDemoServer } from "./demo-server.js";

const port = Number(process.env.PORT ?? 3000);
const sessionIdleSeconds = Number(process.env.SESSION_IDLE_SECONDS ?? DEFAULT_SESSION_IDLE_SECONDS);
if (!(sessionIdleSeconds > 0))
  exitWith(`SESSION_IDLE_SECONDS must be a number of seconds above 0, not "${process.env.SESSION_IDLE_SECONDS}"`);

const maxSessions = Number(process.env.MAX_SESSIONS ?? DEFAULT_MAX_SESSIONS);
if (!Number.isInteger(maxSessions) || maxSessions < 1)
  exitWith(`MAX_SESSIONS must be a whole number of sessions, 1 or more, not "${process.env.MAX_SESSIONS}"`);

// The result viewer (S19) for MCP Apps hosts; clients that say they render none see the demo as before.
const demo = await startDemoServer({ port, sessionIdleSeconds, maxSessions, viewer: true }).catch(
  (error: NodeJS.ErrnoException) =>
    error.code === "EADDRINUSE"
      ? exitWith(
          `Port ${port} is already in use: stop what runs there, or start ` +
            `on another port with PORT=${port + 1} npm start`,
        )
      : exitWith(`The demo server could not start on port ${port}: ${error.message}`),
);
// S11.1: the start line names the storage in use (storage `auto`, S9.2: Redis when REDIS_URL is set, …).
console.log(
  `result-handles demo MCP server on ${demo.url} (storage: ` +
    `${demo.reports.config.storage.type}; tokens: demo-alice, demo-bob, or none)`,
);

let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    demo.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  });
}

/** One line and exit code 1: a person reads this, not a stack trace (S11.1). */
function exitWith(line: string): never {
  console.error(line);
  process.exit(1);
}
