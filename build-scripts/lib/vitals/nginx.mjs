// A static host for the vitals benchmark, as GitHub Pages or Netlify serve: Debian's nginx with gzip
// and a 10-minute cache. Each named folder is served under its own sub-path of one origin.
// nginx's workers read files as another user, so the folders are copied into one readable by all.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, chmodSync, cpSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';

const NGINX = '/usr/sbin/nginx';

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

function config({ dir, port, roots }) {
  const locations = Object.keys(roots)
    .map((name) => `    location /${name}/ { alias ${join(dir, 'www', name)}/; }`)
    .join('\n');
  return `daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
worker_processes 1;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  client_body_temp_path ${dir}/tmp-body;
  proxy_temp_path ${dir}/tmp-proxy;
  fastcgi_temp_path ${dir}/tmp-fastcgi;
  uwsgi_temp_path ${dir}/tmp-uwsgi;
  scgi_temp_path ${dir}/tmp-scgi;
  sendfile on;
  gzip on;
  gzip_comp_level 6;
  gzip_min_length 256;
  gzip_types text/css application/javascript text/javascript application/json image/svg+xml application/wasm;
  expires 10m;
  server {
    listen 127.0.0.1:${port};
${locations}
  }
}
`;
}

/**
 * startNginx({ name: folder, … }) → { origin, url(name, path), close() }.
 * The folders are copied, so a later build does not change what is being measured.
 */
export async function startNginx(roots) {
  const dir = mkdtempSync(join(tmpdir(), 'attnscale-vitals-'));
  chmodSync(dir, 0o755);
  mkdirSync(join(dir, 'www'), { mode: 0o755 });
  for (const [name, src] of Object.entries(roots)) cpSync(src, join(dir, 'www', name), { recursive: true });
  execFileSync('chmod', ['-R', 'a+rX', join(dir, 'www')]);
  const port = await freePort();
  const file = join(dir, 'nginx.conf');
  writeFileSync(file, config({ dir, port, roots }));
  const proc = spawn(NGINX, ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const origin = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ok = await fetch(`${origin}/`).then(
      () => true,
      () => false,
    );
    if (ok) break;
    if (proc.exitCode !== null || i > 100) throw new Error(`nginx did not start: ${stderr}`);
    await new Promise((r) => {
      setTimeout(r, 50);
    });
  }
  return {
    origin,
    dir,
    url: (name, path = '') => `${origin}/${name}/${path}`,
    close: () =>
      new Promise((resolve) => {
        proc.once('exit', resolve);
        proc.kill('SIGQUIT');
      }),
  };
}
