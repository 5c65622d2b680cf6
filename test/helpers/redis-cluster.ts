import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { alive, freePort } from "./redis-server.js";

const run = promisify(execFile);
const REDIS_SERVER = process.env.REDIS_SERVER_PATH ?? "redis-server";
const REDIS_CLI = process.env.REDIS_CLI_PATH ?? "redis-cli";

/** A throwaway Redis Cluster of three masters (no replicas) on loopback ports, each stopped by its PID (S17.2). */
export interface RedisCluster {
  /** The masters' client ports, in the order they were created. */
  readonly ports: readonly number[];
  /** As REDIS_CLUSTER_URLS takes them: `redis://127.0.0.1:port`, comma-separated. */
  readonly urls: string;
  /** As `storage.redis.cluster` takes them. */
  readonly endpoints: readonly { host: string; port: number }[];
  /** Stops master `i` by PID (SIGTERM) and waits until its port is closed; its slots stay its own. */
  stop(i: number): Promise<void>;
  /** Starts master `i` again from its cluster config file, empty, and waits until the cluster is ok. */
  start(i: number): Promise<void>;
  /** Freezes master `i` (SIGSTOP): connected, never answering. */
  pause(i: number): void;
  resume(i: number): void;
  /** The keys master `i` holds that match `pattern`, asked of that master alone. */
  keysOn(i: number, pattern?: string): Promise<string[]>;
  /** Runs redis-cli against master `i`. */
  cli(i: number, ...args: string[]): Promise<string>;
  /** Stops every master and removes their directories. */
  dispose(): Promise<void>;
}

interface Node {
  readonly port: number;
  readonly busPort: number;
  readonly dir: string;
  pid: number | undefined;
}

export async function startRedisCluster(): Promise<RedisCluster> {
  const root = mkdtempSync(join(tmpdir(), "result-handles-cluster-"));
  const nodes: Node[] = [];
  for (let i = 0; i < 3; i++) {
    const dir = join(root, `node-${i}`);
    mkdirSync(dir);
    // The cluster bus port is given, not port + 10000, which can run past 65535 from an ephemeral port.
    nodes.push({ port: await freePort(), busPort: await freePort(), dir, pid: undefined });
  }
  const killAll = () => {
    for (const node of nodes)
      if (node.pid !== undefined)
        try {
          process.kill(node.pid, "SIGKILL");
        } catch {}
  };
  process.once("exit", killAll);

  const cli = async (i: number, ...args: string[]) =>
    (await run(REDIS_CLI, ["-h", "127.0.0.1", "-p", String(nodes[i]!.port), ...args], { timeout: 5000 })).stdout.trim();
  const ping = (i: number) => cli(i, "ping").catch(() => "");

  async function launch(i: number): Promise<void> {
    const node = nodes[i]!;
    if (node.pid !== undefined) return;
    const pidfile = join(node.dir, "redis.pid");
    rmSync(pidfile, { force: true });
    execFileSync(REDIS_SERVER, [
      "--bind",
      "127.0.0.1",
      "--port",
      String(node.port),
      "--cluster-enabled",
      "yes",
      "--cluster-port",
      String(node.busPort),
      "--cluster-config-file",
      join(node.dir, "nodes.conf"),
      "--cluster-node-timeout",
      "2000",
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "yes",
      "--pidfile",
      pidfile,
      "--logfile",
      join(node.dir, "redis.log"),
      "--dir",
      node.dir,
    ]);
    await waitFor(async () => (await ping(i)) === "PONG", `cluster node on port ${node.port} did not answer PING`);
    node.pid = Number(readFileSync(pidfile, "utf8").trim());
  }

  /** Every running master sees the cluster as ok (S17.2: with full coverage off, also while one is down). */
  const clusterOk = async () => {
    for (let i = 0; i < nodes.length; i++) {
      if (nodes[i]!.pid === undefined) continue;
      if (!(await cli(i, "cluster", "info").catch(() => "")).includes("cluster_state:ok")) return false;
    }
    return true;
  };

  await Promise.all(nodes.map((_, i) => launch(i)));
  await run(REDIS_CLI, ["--cluster", "create", ...nodes.map((node) => `127.0.0.1:${node.port}`), "--cluster-yes"], {
    timeout: 30_000,
  });
  // A master down must not stop the others from serving their own slots (S17.2).
  for (let i = 0; i < nodes.length; i++) await cli(i, "config", "set", "cluster-require-full-coverage", "no");
  await waitFor(clusterOk, "the cluster did not reach cluster_state:ok", 30_000);

  const cluster: RedisCluster = {
    ports: nodes.map((node) => node.port),
    urls: nodes.map((node) => `redis://127.0.0.1:${node.port}`).join(","),
    endpoints: nodes.map((node) => ({ host: "127.0.0.1", port: node.port })),
    async stop(i) {
      const node = nodes[i]!;
      if (node.pid === undefined) return;
      const pid = node.pid;
      node.pid = undefined;
      try {
        process.kill(pid, "SIGTERM");
        process.kill(pid, "SIGCONT"); // a paused server handles SIGTERM only once it runs
      } catch {}
      await waitFor(async () => !alive(pid) && (await ping(i)) === "", `cluster node ${pid} did not stop`);
    },
    async start(i) {
      await launch(i);
      await cli(i, "config", "set", "cluster-require-full-coverage", "no");
      await waitFor(clusterOk, "the cluster did not return to cluster_state:ok", 30_000);
    },
    pause(i) {
      const pid = nodes[i]!.pid;
      if (pid !== undefined) process.kill(pid, "SIGSTOP");
    },
    resume(i) {
      const pid = nodes[i]!.pid;
      if (pid !== undefined) process.kill(pid, "SIGCONT");
    },
    async keysOn(i, pattern = "*") {
      const out = await cli(i, "--scan", "--pattern", pattern);
      return out ? out.split("\n") : [];
    },
    cli,
    async dispose() {
      for (let i = 0; i < nodes.length; i++) await cluster.stop(i);
      process.off("exit", killAll);
      rmSync(root, { recursive: true, force: true });
    },
  };
  return cluster;
}

async function waitFor(check: () => Promise<boolean>, message: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(message);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
