// What the VS Code Trace Viewer needs of `sextant serve` beyond the call
// sequence of viewer.test.mjs, each case written the way the viewer's own
// code reads the answers (vscode-trace-extension: json-editor.ts,
// generic-xy-output-component.tsx, tsp-data-provider.ts,
// abstract-gantt-output-component.tsx; the Trace Server extension's
// trace-server.ts), with the real tsp-typescript-client:
//
// 1. the execution-model schema survives the JSON editor's transform and
//    compiles with Ajv's 2020 dialect in strict mode; a model it accepts
//    creates a Comparison View;
// 2. the duration density answers the viewer's request (the view's time
//    range, nbSamples) with bars;
// 3. critical-path arrows land on their wake-up times in the viewer's x;
// 4. no state is faded (DIMMED) without a search;
// 5. a search dims the states it does not match, a filter removes them;
// 6. a trace outside the allowed roots gets a 403 that says what to do, and
//    `sextant serve` started the way the Trace Server extension starts a
//    server (path + arguments settings, health polled every second for 10 s)
//    serves the viewer.
//
// Text renderings of the density and the arrows are written to
// target/viewer-fixes/ for a person to look at.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BIN, FIXTURE, MODEL, ROOT, model, openExperiment, poll, sleep, startServer, stopServer } from './common.mjs';
// The editor's schema transform, shared with the browser test.
import { editorSchema } from '../../browser/page/editor-schema.js';

const require = createRequire(import.meta.url);
const { HttpTspClient, QueryHelper, TspClient } = require('tsp-typescript-client');
const Ajv2020 = require('ajv/dist/2020').default;

const THREAD_STATUS =
    'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';
const EXAMPLES = join(ROOT, 'schemas/examples');
const OUT = join(ROOT, 'target/viewer-fixes');
const DIMMED = 1;

/** JSON with bigints as numbers' text. */
const show = v => JSON.stringify(v, (_, x) => typeof x === 'bigint' ? `${x}` : x);

describe('the VS Code Trace Viewer on scenario-a', () => {
    let server;
    let client;
    let exp;
    let config;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release first`);
        mkdirSync(OUT, { recursive: true });
        const [child, url] = await startServer();
        server = child;
        client = new HttpTspClient(url);
        exp = await openExperiment(client, 'viewer-fixes');
    });

    after(() => stopServer(server));

    /** The rt_high model's id: case 1's, or posted here when case 1 failed
     *  (the same name and model give the same configuration). */
    async function rtHigh() {
        if (!config) {
            const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.executions',
                QueryHelper.outputConfigurationQuery('rt_high', 'jobs', 'sextant.execution-model',
                    JSON.parse(readFileSync(MODEL, 'utf8')))), 'createDerivedOutput');
            config = created.id.split(':')[1];
        }
        return config;
    }

    it('1. the model schema survives the JSON editor and Ajv 2020 strict; its model makes a Comparison View', async () => {
        const types = model(await client.fetchOutputConfigurationTypes(exp.UUID, 'sextant.executions'), 'config types');
        const type = types.find(t => t.id === 'sextant.execution-model');
        assert.ok(type, show(types));
        const schema = editorSchema(type);
        // As the viewer compiles it (new Ajv() from ajv/dist/2020), and with
        // every strict option throwing.
        const validators = [new Ajv2020().compile(schema), new Ajv2020({ strict: true }).compile(schema)];
        // The explain type's schema compiles too, as the viewer compiles it
        // (its `not: {anyOf: [{required}]}` is refused by strictRequired
        // alone, which the viewer leaves off).
        const explain = model(await client.fetchOutputConfigurationTypes(exp.UUID, 'sextant.explain'), 'explain types');
        new Ajv2020().compile(editorSchema(explain.find(t => t.id === 'sextant.explain')));
        const wrap = m => ({ name: 'm', sourceTypeId: type.id, parameters: m });
        const onlyServerRejects = [];
        for (const file of readdirSync(EXAMPLES).sort()) {
            const example = JSON.parse(readFileSync(join(EXAMPLES, file), 'utf8'));
            for (const v of validators) {
                const ok = v(wrap(example));
                if (!file.startsWith('invalid-')) {
                    assert.ok(ok, `${file}: ${show(v.errors)}`);
                } else if (ok) {
                    onlyServerRejects.push(file);
                }
            }
        }
        // What a schema cannot say (a regex that does not compile) the
        // server says, with a 400 naming the field.
        assert.deepEqual([...new Set(onlyServerRejects)], ['invalid-regex.json']);
        const bad = await client.createDerivedOutput(exp.UUID, 'sextant.executions',
            QueryHelper.outputConfigurationQuery('bad', '', type.id,
                JSON.parse(readFileSync(join(EXAMPLES, 'invalid-regex.json'), 'utf8'))));
        assert.equal(bad.getStatusCode(), 400, bad.getText());
        assert.match(bad.getErrorResponse().detail, /parameters\.threads\.process/);
        // A different_tids model without its end, and a same_tid model with
        // a start, are refused by the top-level oneOf.
        for (const wrong of [{ name: 'x', mode: 'different_tids', start: { name: 'a' } },
            { name: 'x', events: [{ name: 'a' }], start: { name: 'a' } }]) {
            for (const v of validators) {
                assert.equal(v(wrap(wrong)), false, show(wrong));
            }
        }
        // What the editor submits, posted as the viewer posts it.
        const submitted = wrap(JSON.parse(readFileSync(MODEL, 'utf8')));
        submitted.name = 'rt_high';
        for (const v of validators) {
            assert.ok(v(submitted), show(v.errors));
        }
        const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.executions',
            QueryHelper.outputConfigurationQuery(submitted.name, 'jobs', submitted.sourceTypeId,
                submitted.parameters)), 'createDerivedOutput');
        config = created.id.split(':')[1];
        const comparison = `sextant.executions.comparison:${config}`;
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, comparison, QueryHelper.query()),
            'comparison tree');
        assert.equal(tree.entries.length, 99);
        const longest = tree.entries.reduce((a, e) => (e.end > a ? e.end : a), 0n);
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, comparison,
            QueryHelper.selectionTimeRangeQuery(0n, longest, 500, tree.entries.map(e => Number(e.id)))),
        'comparison states');
        assert.equal(states.rows.length, 99);
        assert.ok(states.rows.every(r => r.states.length > 0));
    });

    it('2. the duration density answers the generic-XY view with bars', async () => {
        const config = await rtHigh();
        const density = `sextant.executions.density:${config}`;
        const stats = model(await client.fetchDataTree(exp.UUID, `sextant.executions.statistics:${config}`,
            QueryHelper.query()), 'statistics').model;
        const col = name => stats.headers.findIndex(h => h.name === name);
        const root = stats.entries.find(e => e.parentId === -1);
        const count = Number(root.labels[col('Count')]);
        const max = BigInt(root.labels[col('Maximum')]);
        const misses = Number(root.labels[col('Deadline misses')]);
        const tree = await poll(() => client.fetchGenericXYTree(exp.UUID, density,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'density tree');
        const checked = tree.entries.filter(e => e.isDefault).map(e => Number(e.id));
        // generic-xy-output-component.tsx updateXY: the view range, the
        // number of bars, the checked series, nbSamples.
        const xy = await poll(() => client.fetchGenericXY(exp.UUID, density,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 25, checked, undefined, true)), 'density');
        assert.equal(xy.series.length, 2);
        const [all, late] = xy.series;
        assert.equal(all.style.values['series-type'], 'bar');
        const sum = s => s.yValues.reduce((a, b) => a + b, 0);
        assert.equal(sum(all), count);
        assert.equal(sum(late), misses);
        assert.ok(all.xRanges.length > 1 && all.xRanges.length <= 25);
        assert.equal(BigInt(all.xRanges[0].start), 0n);
        assert.equal(BigInt(all.xRanges.at(-1).end), max);
        const domain = all.xValuesDescription.axisDomain;
        assert.equal(domain.type, 'range');
        assert.equal(BigInt(domain.end), max);
        // Zoomed on the first half of the trace: only the executions there.
        const mid = exp.start + (exp.end - exp.start) / 2n;
        const half = await poll(() => client.fetchGenericXY(exp.UUID, density,
            QueryHelper.selectionTimeRangeQuery(exp.start, mid, 25, checked, undefined, true)), 'density, zoomed');
        const table = model(await client.fetchTableLines(exp.UUID, `sextant.executions.table:${config}`,
            QueryHelper.tableQuery([], 0, 1000)), 'executions table').model;
        const cols = model(await client.fetchTableColumns(exp.UUID, `sextant.executions.table:${config}`,
            QueryHelper.query()), 'columns').model;
        const startCol = cols.findIndex(c => c.name === 'Start');
        assert.ok(startCol >= 0, show(cols));
        const before = table.lines.filter(l => BigInt(l.cells[startCol].content) <= mid).length;
        assert.ok(sum(half.series[0]) >= before && sum(half.series[0]) <= before + 1,
            `${sum(half.series[0])} executions in the first half, ${before} start there`);
        assert.ok(sum(half.series[0]) < count);
        assert.deepEqual(half.series[0].xRanges, all.xRanges, 'the same bins at every zoom');
        const width = Math.max(...all.yValues);
        writeFileSync(join(OUT, 'density.txt'), all.xRanges.map((r, i) =>
            `${String(r.start).padStart(8)}-${String(r.end).padEnd(8)} ns ${String(all.yValues[i]).padStart(3)} `
            + `${'#'.repeat(Math.round(40 * all.yValues[i] / width))}${late.yValues[i] ? ` (${late.yValues[i]} late)` : ''}`)
            .join('\n') + '\n');
    });

    it('3. critical-path arrows are drawn at their wake-up times', async () => {
        const parameters = { model: JSON.parse(readFileSync(MODEL, 'utf8')), execution: 'longest' };
        const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.explain',
            QueryHelper.outputConfigurationQuery('longest', '', 'sextant.explain', parameters)), 'explain');
        const path = created.id;
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, path,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'path tree');
        const ids = tree.entries.map(e => Number(e.id));
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, path,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 1000, ids)), 'path states');
        const arrows = await poll(() => client.fetchTimeGraphArrows(exp.UUID, path,
            QueryHelper.timeRangeQuery(exp.start, exp.end, 1000)), 'arrows');
        assert.ok(arrows.length >= 2, show(arrows));
        // tsp-data-provider.ts: states at state.start - chartStart (the
        // experiment's start), arrows at arrow.start - entries[0].start.
        const chartStart = exp.start;
        const stateX = t => t - chartStart;
        const arrowX = a => a.start - tree.entries[0].start;
        const byRow = new Map(states.rows.map(r => [Number(r.entryId), r.states]));
        const lines = [];
        for (const a of arrows) {
            assert.equal(arrowX(a), stateX(a.start), `arrow ${show(a)} drawn off its time`);
            // The wake-up lies on the path: within the source's states, at
            // or before the start of the target's next piece.
            const src = byRow.get(Number(a.sourceId));
            const dst = byRow.get(Number(a.targetId));
            assert.ok(src.some(s => s.start <= a.start && a.start <= s.end), show(a));
            const next = dst.find(s => s.start >= a.start);
            assert.ok(next, show(a));
            lines.push(`arrow ${a.sourceId}->${a.targetId} at x=${arrowX(a)} ns; `
                + `source piece ${src.map(s => `[${stateX(s.start)}, ${stateX(s.end)}]`).join(' ')}; `
                + `target's next piece from x=${stateX(next.start)}`);
        }
        writeFileSync(join(OUT, 'arrows.txt'), lines.join('\n') + '\n');
    });

    it('4. no state is faded without a search, at any zoom', async () => {
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, THREAD_STATUS,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'tree');
        const ids = tree.entries.map(e => Number(e.id));
        for (const nbTimes of [200, 2000]) {
            const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
                QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, nbTimes, ids)), 'states');
            const faded = states.rows.flatMap(r => r.states).filter(s => (s.tags ?? 0) & DIMMED);
            assert.equal(faded.length, 0, `${faded.length} faded states at ${nbTimes} times`);
        }
    });

    it('5. a search dims what it does not match; a filter removes it', async () => {
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, THREAD_STATUS,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'tree');
        const ids = tree.entries.map(e => Number(e.id));
        const name = new Map(tree.entries.map(e => [Number(e.id), e.labels[0]]));
        const ask = map => poll(() => client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 500, ids,
                { filter_query_parameters: { strategy: 'SAMPLED', filter_expressions_map: map } })), 'states');
        const plain = await poll(() => client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 500, ids)), 'states');
        const count = m => m.rows.reduce((n, r) => n + r.states.length, 0);
        // The viewer's search box: DIMMED (1) for what does not match.
        const searched = await ask({ [DIMMED]: ['rt_high'] });
        assert.equal(count(searched), count(plain));
        for (const r of searched.rows) {
            const high = name.get(Number(r.entryId)) === 'rt_high';
            for (const s of r.states) {
                assert.equal(((s.tags ?? 0) & DIMMED) !== 0, !high, `${name.get(Number(r.entryId))} ${show(s)}`);
            }
        }
        // The state's name is searched too.
        const preempted = await ask({ [DIMMED]: ['preempted'] });
        const kept = preempted.rows.flatMap(r => r.states).filter(s => !((s.tags ?? 0) & DIMMED));
        assert.ok(kept.length > 0 && kept.every(s => s.style.parentKey === 'preempted'), show(kept.slice(0, 3)));
        // The viewer's filters: EXCLUDED (4) — the rest is left out, and rows
        // with nothing left are hidden by the viewer.
        const filtered = await ask({ 4: ['^rt_'] });
        const left = filtered.rows.filter(r => r.states.length > 0).map(r => name.get(Number(r.entryId)));
        assert.ok(left.length > 0 && left.every(n => n.startsWith('rt_')), show(left));
        const bad = await client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 500, ids,
                { filter_query_parameters: { filter_expressions_map: { 1: 'rt_high' } } }));
        assert.equal(bad.getStatusCode(), 400);
        assert.match(bad.getErrorResponse().detail, /filter_expressions_map\.1/);
    });

    it('5b. the event types answer a selection; annotations keep to the categories asked for', async () => {
        // datatree-output-component.tsx fetchSelectionData: the selection
        // as a time range, with isFiltered.
        const a = exp.start + (exp.end - exp.start) / 4n;
        const b = exp.start + (exp.end - exp.start) / 2n;
        const payload = QueryHelper.timeRangeQuery(a, b);
        payload.parameters.isFiltered = true;
        const tree = await poll(() => client.fetchDataTree(exp.UUID, 'sextant.event-types', payload), 'event types');
        const whole = await poll(() => client.fetchDataTree(exp.UUID, 'sextant.event-types', QueryHelper.query()),
            'event types, whole');
        const total = t => Number(t.entries.find(e => e.parentId === -1).labels[1]);
        assert.ok(total(tree) > 0 && total(tree) < total(whole), `${total(tree)} of ${total(whole)}`);
        // Each type's count equals `sextant dump`'s events of that name in
        // the selection.
        const dumped = new Map();
        for (const line of execFileSync(BIN, ['dump', FIXTURE, '--format', 'jsonl'],
            { encoding: 'utf8', maxBuffer: 1 << 28 }).trim().split('\n')) {
            const ts = BigInt(/"ts":(-?\d+)/.exec(line)[1]);
            if (ts >= a && ts <= b) {
                const name = JSON.parse(line).name;
                dumped.set(name, (dumped.get(name) ?? 0) + 1);
            }
        }
        const got = new Map(tree.entries.filter(e => e.parentId !== -1).map(e => [e.labels[0], Number(e.labels[1])]));
        assert.deepEqual(got, dumped);
        // Deadline misses on the Comparison View (a time graph the viewer
        // draws annotations on), and only when their category is asked for.
        const comparison = `sextant.executions.comparison:${await rtHigh()}`;
        const cats = model(await client.fetchAnnotationsCategories(exp.UUID, comparison), 'categories').model;
        assert.deepEqual(cats.annotationCategories, ['Deadline misses']);
        const ids = [...Array(99).keys()];
        const ann = async categories => model(await client.fetchAnnotations(exp.UUID, comparison,
            QueryHelper.selectionTimeRangeQuery(0n, 10_000_000n, 500, ids,
                categories ? { requested_marker_categories: categories } : {})), 'annotations').model.annotations;
        const misses = (await ann(['Deadline misses']))['Deadline misses'];
        assert.equal(misses.length, 22);
        assert.ok(misses.every(m => ids.includes(Number(m.entryId)) && m.time === 1_000_000n), show(misses[0]));
        assert.deepEqual(Object.keys(await ann([])), []);
        assert.deepEqual(Object.keys(await ann(['Something else'])), []);
        assert.deepEqual(Object.keys(await ann(undefined)), ['Deadline misses']);
    });

    it('6a. a trace outside the allowed roots: the 403 says which roots and how to add one', async () => {
        const r = await client.openTrace(QueryHelper.query({ name: 'etc', uri: '/etc' }));
        assert.equal(r.getStatusCode(), 403);
        const e = r.getErrorResponse();
        assert.match(e.detail, /--allow-root/);
        assert.ok(e.detail.includes(ROOT), `the working directory is named: ${e.detail}`);
    });
});

/** A TCP port nobody listens on now. */
function freePort() {
    return new Promise((ok, fail) => {
        const s = createServer();
        s.once('error', fail);
        s.listen(0, '127.0.0.1', () => {
            const { port } = s.address();
            s.close(() => ok(port));
        });
    });
}

/** The settings string split as the Trace Server extension's argparse.ts does
 *  for the cases used here: whitespace-separated, double quotes grouping. */
function splitArguments(text) {
    return [...text.matchAll(/"([^"]*)"|(\S+)/g)].map(m => m[1] ?? m[2]);
}

describe('sextant started by the Trace Server extension (vscode-trace-server)', () => {
    let child;
    after(async () => {
        if (child && child.exitCode === null && child.signalCode === null) {
            child.kill('SIGKILL');
        }
    });

    it('6b. path + arguments settings: it answers the health check the extension polls', async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing`);
        const port = await freePort();
        // trace-server.traceserver.path / .arguments, as the README gives them.
        const settings = { path: BIN, arguments: `serve --port ${port} --allow-root "${join(ROOT, 'fixtures')}"` };
        // trace-compass.traceserver.url / .apiPath (the viewer's).
        const url = `http://localhost:${port}`;
        const apiPath = 'tsp/api';
        // trace-server.ts start(): spawn(path, args), default stdio and cwd.
        child = spawn(settings.path, splitArguments(settings.arguments));
        let stderr;
        child.stderr.once('data', d => { stderr = String(d); });
        let exited;
        child.once('exit', code => { exited = code; });
        // waitFor(): checkHealth every 1000 ms, give up after 10000 ms.
        const health = new TspClient(`${url}/${apiPath}`);
        const t0 = Date.now();
        let up = false;
        while (!up) {
            const h = await health.checkHealth();
            up = h.isOk() && h.getModel()?.status === 'UP';
            if (up) break;
            assert.equal(exited, undefined, `sextant exited (${exited}): ${stderr}`);
            assert.ok(Date.now() - t0 < 10000, 'not up within the extension\'s 10 s');
            await sleep(1000);
        }
        // The viewer then works against the same URL.
        const viewer = new HttpTspClient(`${url}/${apiPath}`);
        const e = await openExperiment(viewer, 'from-settings');
        assert.ok(e.nbEvents > 0);
        // The extension's stop: a signal to the process tree.
        const gone = new Promise(r => child.once('exit', (code, signal) => r(signal ?? code)));
        child.kill('SIGTERM');
        assert.ok(await gone !== undefined);
    });
});
