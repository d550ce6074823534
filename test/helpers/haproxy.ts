import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';

/** Debian's HAProxy, when installed (/usr/sbin is not always on PATH). */
export const HAPROXY = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p)) ?? null;

const answers = (port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });

export interface Proxy {
  url: string;
  socket: string;
  map: string;
  stop: () => void;
}

/**
 * HAProxy on 127.0.0.1:`port` routing by the first label of Host through `dir/hourbook.map` (lines
 * given in `routes`), default the first node, with its admin socket in `dir`: the shape of
 * deploy/haproxy/haproxy.cfg without TLS.
 */
export async function startHaproxy(dir: string, port: number, nodes: Record<string, number>, routes = ''): Promise<Proxy> {
  if (!HAPROXY) throw new Error('HAProxy is not installed');
  const socket = join(dir, 'haproxy.sock');
  const map = join(dir, 'hourbook.map');
  writeFileSync(map, `# subdomain node\n${routes}`);
  const config = `global
  stats socket ${socket} mode 600 level admin
  maxconn 512

defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s

frontend hourbook
  bind 127.0.0.1:${port}
  use_backend %[req.hdr(host),lower,field(1,:),field(1,.),map(${map},${Object.keys(nodes)[0]})]

${Object.entries(nodes)
  .map(([name, p]) => `backend ${name}\n  server ${name} 127.0.0.1:${p}\n`)
  .join('\n')}`;
  writeFileSync(join(dir, 'haproxy.cfg'), config);
  const child = spawn(HAPROXY, ['-f', join(dir, 'haproxy.cfg'), '-db'], { stdio: 'ignore' });
  for (let i = 0; i < 400 && !(await answers(port)); i++) await new Promise((r) => setTimeout(r, 25));
  return { url: `http://127.0.0.1:${port}`, socket, map, stop: () => child.kill('SIGKILL') };
}
