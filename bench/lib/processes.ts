/**
 * Servers as separate processes and the load that measures them: shared by `run.ts` (the headline
 * rows against a bare route) and `ab.ts` (two commits served alternately).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import autocannon from 'autocannon';

/** A server process and its base URL. */
export interface Proc {
  child: ChildProcess;
  url: string;
}

/** How a row is loaded: autocannon connections (split across nodes), warm-up and measured seconds. */
export interface LoadSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

/** One kind of request a row sends. */
export interface Scenario {
  name: string;
  path: string;
  method?: 'GET' | 'POST';
  body?: string;
  headers?: Record<string, string>;
  /** 200, 201 or 304. */
  expect: number;
  /** A different path for every request (instead of `path` each time). */
  nextPath?: () => string;
  /** Sent with `If-None-Match` set to the ETag the node gives `path` (the row's key asks first). */
  conditional?: boolean;
}

/** A load run's figures, summed over the nodes loaded. */
export interface LoadResult {
  /** Median of the per-second request counts (autocannon `requests.p50`). */
  rps: number;
  rpsMean: number;
  latencyP50: number;
  latencyP99: number;
  total: number;
  ok: number;
  /** Answers other than the row's status (for a 304 row: every 2xx and error). */
  unexpected: number;
  /** Server CPU time per request (user + system of the node processes), µs. */
  cpuUs: number;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`${url} did not come up`);
}

/** Every server started and not yet stopped: ended with the benchmark, also when a row fails or it is interrupted. */
const running = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));

/**
 * Starts a server process in `cwd` on a free port and waits until `probe` answers. Its standard error
 * goes to `<logDir>/<logName>.log`; its standard output (the request log at the default level) too, or
 * to /dev/null with `discardStdout`, so that a run's request logs (every request, as `npm start` writes
 * them) cost what writing them costs without filling the disk.
 */
export async function startProcess(options: {
  args: string[];
  env: Record<string, string>;
  probe: string;
  cwd: string;
  logDir: string;
  logName: string;
  discardStdout?: boolean;
}): Promise<Proc> {
  const port = await freePort();
  mkdirSync(options.logDir, { recursive: true });
  const err = openSync(`${options.logDir}/${options.logName}.log`, 'w');
  const out = options.discardStdout ? openSync('/dev/null', 'w') : err;
  const child = spawn(process.execPath, options.args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', out, err],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  closeSync(err);
  if (out !== err) closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}${options.probe}`);
  return { child, url };
}

/** Stops a server (SIGTERM) and waits for it to exit. */
export async function stop(p: Proc): Promise<void> {
  const done = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  await done;
}

/** CPU seconds a process has used so far (user + system). */
function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Peak resident set of a process (VmHWM), in bytes. */
export function peakRss(p: Proc): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${p.child.pid}/status`, 'utf8'));
  return m ? Number(m[1]) * 1024 : 0;
}

function headersOf(s: Scenario): Record<string, string> {
  return { ...(s.body === undefined ? {} : { 'content-type': 'application/json' }), ...s.headers };
}

async function cannon(urls: string[], s: Scenario, seconds: number, connections: number) {
  const per = Math.max(1, Math.round(connections / urls.length));
  return Promise.all(
    urls.map((url) =>
      autocannon({
        url: `${url}${s.path}`,
        method: s.method ?? 'GET',
        body: s.body,
        headers: headersOf(s),
        connections: per,
        pipelining: 1,
        duration: seconds,
        ...(s.nextPath === undefined
          ? {}
          : { requests: [{ setupRequest: (req) => ({ ...req, path: s.nextPath!() }) }] }),
      }),
    ),
  );
}

/** Loads `nodes` with scenario `s`: a warm-up run, then a measured run with the nodes' CPU time read around it. */
export async function load(nodes: Proc[], s: Scenario, settings: LoadSettings): Promise<LoadResult> {
  const urls = nodes.map((t) => t.url);
  await cannon(urls, s, settings.warmupSeconds, settings.connections);
  const c0 = nodes.map((t) => cpuSeconds(t.child.pid));
  const results = await cannon(urls, s, settings.durationSeconds, settings.connections);
  const cpu = nodes.reduce((n, t, i) => n + cpuSeconds(t.child.pid) - c0[i]!, 0);
  const total = results.reduce((n, r) => n + r.requests.total, 0);
  const non = results.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0);
  return {
    rps: results.reduce((n, r) => n + r.requests.p50, 0),
    rpsMean: results.reduce((n, r) => n + r.requests.average, 0),
    latencyP50: Math.max(...results.map((r) => r.latency.p50)),
    latencyP99: Math.max(...results.map((r) => r.latency.p99)),
    total,
    ok: results.reduce((n, r) => n + r['2xx'], 0),
    unexpected: s.expect === 304 ? results.reduce((n, r) => n + r['2xx'] + r.errors, 0) : non,
    cpuUs: (cpu * 1e6) / total,
  };
}

/** A scenario with `key` as its bearer and, for a conditional one, the ETag the node gives its path. */
export async function withKey(s: Scenario, node: Proc, key: string): Promise<Scenario> {
  const headers: Record<string, string> = { ...s.headers, authorization: `Bearer ${key}` };
  if (s.conditional) {
    const r = await fetch(`${node.url}${s.path}`, { headers });
    await r.arrayBuffer();
    headers['if-none-match'] = r.headers.get('etag')!;
  }
  return { ...s, headers };
}

/** Fetches the scenario's request once (its next path, if it has one) and checks the status. */
export async function fetchOnce(
  url: string,
  s: Scenario,
  path = s.nextPath?.() ?? s.path,
): Promise<Response> {
  const r = await fetch(`${url}${path}`, { method: s.method ?? 'GET', body: s.body, headers: headersOf(s) });
  if (r.status !== s.expect) throw new Error(`${s.name}: status ${r.status}, expected ${s.expect}`);
  return r;
}

/** The path of page `pages` of `GET /v1/recalls`, following `next_cursor` (cursors are signed per database). */
export async function walkTo(url: string, key: string, pages: number): Promise<string> {
  let path = '/v1/recalls';
  for (let i = 1; i < pages; i++) {
    const r = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await r.json()) as { meta: { next_cursor: string | null } };
    if (body.meta.next_cursor === null) throw new Error(`the walk ended at page ${i}`);
    path = `/v1/recalls?cursor=${encodeURIComponent(body.meta.next_cursor)}`;
  }
  return path;
}
