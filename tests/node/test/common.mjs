// Helpers shared by the end-to-end tests: where things are, a `sextant serve`
// on a free port, and reading responses the way the viewer does.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { QueryHelper, ResponseStatus } = require('tsp-typescript-client');

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const BIN = process.env.SEXTANT_BIN ?? join(ROOT, 'target/release/sextant');
export const FIXTURE = join(ROOT, 'fixtures/scenario-a/ctf');
export const MODEL = join(ROOT, 'schemas/examples/periodic-rt_high.json');

// Every sextant these tests start stores in a cache directory of its own
// (XDG_CACHE_HOME), neither the user's nor beside the repository's fixtures.
const CACHE = mkdtempSync(join(tmpdir(), 'sextant-node-cache-'));
process.env.XDG_CACHE_HOME = CACHE;
process.on('exit', () => rmSync(CACHE, { recursive: true, force: true }));

export const sleep = ms => new Promise(r => setTimeout(r, ms));

/** `sextant serve --port 0 ARGS`: resolves to [child, base URL] once it listens. */
export function startServer(args = []) {
    const child = spawn(BIN, ['serve', '--port', '0', ...args], {
        cwd: ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
    });
    return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error('sextant serve printed no address in 20 s')), 20000);
        child.on('error', e => { clearTimeout(timer); fail(e); });
        child.on('exit', code => { clearTimeout(timer); fail(new Error(`sextant serve exited (${code})`)); });
        const lines = createInterface({ input: child.stderr });
        lines.on('line', line => {
            const m = /(http:\/\/\S+\/tsp\/api)/.exec(line);
            if (m) {
                clearTimeout(timer);
                ok([child, m[1]]);
            } else {
                process.stderr.write(`sextant serve: ${line}\n`);
            }
        });
    });
}

/** Stops a server startServer started (SIGKILL if SIGTERM is not enough in 5 s). */
export async function stopServer(child) {
    if (child && child.exitCode === null && child.signalCode === null) {
        const exited = new Promise(r => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
    }
}

/** The model of a successful response (fails the test otherwise). */
export function model(resp, what) {
    assert.ok(resp.isOk(), `${what}: ${resp.getStatusCode()} ${resp.getText()}`);
    const m = resp.getModel();
    assert.notEqual(m, undefined, `${what}: the client could not normalize ${resp.getText().slice(0, 500)}`);
    return m;
}

/** A data response, polled as the viewer does while RUNNING. */
export async function poll(call, what) {
    const deadline = Date.now() + 60000;
    for (;;) {
        const r = model(await call(), what);
        if (r.status !== ResponseStatus.RUNNING) {
            assert.equal(r.status, ResponseStatus.COMPLETED, `${what}: ${r.statusMessage}`);
            return r.model;
        }
        assert.ok(Date.now() < deadline, `${what}: still RUNNING after 60 s`);
        await sleep(100);
    }
}

/** An experiment of `uri` (the scenario-a fixture by default) named
 * `name`, once its indexing is no longer RUNNING. */
export async function openExperiment(client, name, uri = FIXTURE) {
    const trace = model(await client.openTrace(QueryHelper.query({ name, uri })), 'openTrace');
    let exp = model(await client.createExperiment(QueryHelper.query({ name, traces: [trace.UUID] })),
        'createExperiment');
    const deadline = Date.now() + 60000;
    while (exp.indexingStatus === 'RUNNING') {
        assert.ok(Date.now() < deadline, 'indexing took over 60 s');
        await sleep(200);
        exp = model(await client.fetchExperiment(exp.UUID), 'fetchExperiment');
    }
    return exp;
}
