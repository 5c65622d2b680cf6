/** `npm start`: the demo MCP server on 127.0.0.1:${PORT:-3000}/mcp, until SIGINT or SIGTERM. */
import { startDemoServer } from "./demo-server.js";

const port = Number(process.env.PORT ?? 3000);
const demo = await startDemoServer({ port });
// S11.1: the start line names the storage in use (storage `auto`, S9.2: Redis when REDIS_URL is set, …).
console.log(`result-handles demo MCP server on ${demo.url} (storage: ${demo.reports.config.storage.type}; tokens: demo-alice, demo-bob, or none)`);

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
