/**
 * An nginx (the Debian package) on loopback, round-robin in front of the given upstreams, for the
 * scale-out test. Started in the foreground in its own temporary prefix, so it needs no root and
 * leaves nothing behind; the test says in one line why it cannot run when there is no nginx.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** The nginx binary: `JUMPERLESS_NGINX`, then PATH, then Debian's /usr/sbin. */
export function findNginx(): string | undefined {
  const named = process.env.JUMPERLESS_NGINX;
  if (named) return existsSync(named) ? named : undefined;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((dir) => join(dir, 'nginx')).find((path) => existsSync(path));
}

const NGINX = findNginx();

export const NGINX_MISSING: string | undefined = NGINX
  ? undefined
  : 'nginx is not installed (apt-get install nginx; CI installs it)';

if (NGINX_MISSING) process.stderr.write(`skipping the scale-out tests: ${NGINX_MISSING}\n`);

export interface Balancer {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * `upstreams` are `host:port`. A replica that refuses the connection is skipped for the next one
 * (nginx retries a request not yet sent, whatever its method); a request already sent is never
 * replayed, since a tool call is not idempotent.
 */
export async function startBalancer(upstreams: readonly string[]): Promise<Balancer> {
  const nginx = NGINX;
  if (!nginx) throw new Error(NGINX_MISSING);
  const prefix = await mkdtemp(join(tmpdir(), 'jl-nginx-'));
  const port = await freePort();
  const servers = upstreams.map((upstream) => `    server ${upstream} max_fails=1 fail_timeout=5s;`);
  const conf = [
    'daemon off;',
    'master_process off;',
    'worker_processes 1;',
    `pid ${join(prefix, 'nginx.pid')};`,
    `error_log ${join(prefix, 'error.log')} warn;`,
    'events { worker_connections 256; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${join(prefix, 'body')};`,
    `  proxy_temp_path ${join(prefix, 'proxy')};`,
    `  fastcgi_temp_path ${join(prefix, 'fastcgi')};`,
    `  uwsgi_temp_path ${join(prefix, 'uwsgi')};`,
    `  scgi_temp_path ${join(prefix, 'scgi')};`,
    '  upstream gateways {',
    ...servers,
    '    keepalive 8;',
    '  }',
    '  server {',
    `    listen 127.0.0.1:${port};`,
    '    location / {',
    '      proxy_pass http://gateways;',
    '      proxy_http_version 1.1;',
    '      proxy_set_header Connection "";',
    '      proxy_set_header Host $http_host;',
    '      proxy_buffering off;',
    '      proxy_next_upstream error timeout;',
    '      add_header X-Upstream $upstream_addr always;',
    '    }',
    '  }',
    '}',
  ].join('\n');
  const confPath = join(prefix, 'nginx.conf');
  await writeFile(confPath, `${conf}\n`);
  const child: ChildProcess = spawn(nginx, ['-p', prefix, '-c', confPath], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr.trim()}`);
    const up = await new Promise<boolean>((resolve) => {
      const probe = connect(port, '127.0.0.1');
      probe.once('connect', () => {
        probe.destroy();
        resolve(true);
      });
      probe.once('error', () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) throw new Error(`nginx did not listen on ${port}: ${stderr.trim()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      await rm(prefix, { recursive: true, force: true });
    },
  };
}
