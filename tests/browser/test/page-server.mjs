// The test's own web server on 127.0.0.1: the page (index.html and its
// esbuild bundle), the execution model it posts, and /tsp/api/* proxied to
// sextant so that the page reaches the server from its own origin. The
// proxy sends the Host sextant listens on and no Origin or Referer: to
// sextant the requests are a local client's, as the viewer's extension host's are.
import { createServer, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const PAGE = join(dirname(fileURLToPath(import.meta.url)), '../page');

/** The page's script: page/main.js and its npm dependencies in one file. */
export async function bundle() {
    const out = await build({
        entryPoints: [join(PAGE, 'main.js')],
        bundle: true,
        write: false,
        platform: 'browser',
        format: 'iife',
        target: 'chrome120',
        logLevel: 'warning',
    });
    return out.outputFiles[0].contents;
}

/** Starts the server; resolves to `{url, close}`. `sextant` is its base URL (http://127.0.0.1:P/tsp/api). */
export async function startPageServer({ sextant, script, model }) {
    const upstream = new URL(sextant);
    const files = {
        '/': ['text/html', readFileSync(join(PAGE, 'index.html'))],
        '/bundle.js': ['text/javascript', script],
        '/model.json': ['application/json', readFileSync(model)],
    };
    const server = createServer((req, res) => {
        const path = req.url.split('?')[0];
        if (path.startsWith('/tsp/api/')) {
            const headers = { ...req.headers, host: upstream.host };
            delete headers.origin;
            delete headers.referer;
            const proxied = request({
                host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers,
            }, answer => {
                res.writeHead(answer.statusCode, answer.headers);
                answer.pipe(res);
            });
            proxied.on('error', e => {
                res.writeHead(502, { 'content-type': 'text/plain' });
                res.end(`proxy to sextant: ${e.message}`);
            });
            req.pipe(proxied);
            return;
        }
        if (path === '/favicon.ico') {
            res.writeHead(204);
            res.end();
            return;
        }
        const file = files[path];
        if (!file) {
            res.writeHead(404, { 'content-type': 'text/plain' });
            res.end(`not here: ${path}`);
            return;
        }
        res.writeHead(200, { 'content-type': file[0] });
        res.end(file[1]);
    });
    await new Promise(ok => server.listen(0, '127.0.0.1', ok));
    return {
        url: `http://127.0.0.1:${server.address().port}/`,
        close: () => new Promise(ok => { server.closeAllConnections(); server.close(ok); }),
    };
}
