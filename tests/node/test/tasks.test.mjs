// The "Real-time tasks" outputs through the real tsp-typescript-client
// 0.9.0 on fixtures/scenario-a/ctf, offered with no configuration: listed
// among the experiment's outputs, the table's lines are the tasks of
// `sextant tasks --format json` on the same trace, and the response-time
// series of rt_high has a point per job, its longest the summary's.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BIN, FIXTURE, model, openExperiment, poll, startServer, stopServer } from './common.mjs';

const require = createRequire(import.meta.url);
const { HttpTspClient, QueryHelper } = require('tsp-typescript-client');

const TABLE = 'sextant.tasks';
const RESPONSE = 'sextant.tasks.response';

/** `sextant tasks --format json`: the reference. */
function reference() {
    const out = execFileSync(BIN, ['tasks', FIXTURE, '--format', 'json'],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
    return JSON.parse(out).tasks;
}

describe('real-time tasks on scenario-a', () => {
    let server;
    let client;
    let exp;
    const ref = existsSync(BIN) ? reference() : undefined;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release first`);
        const [child, url] = await startServer();
        server = child;
        client = new HttpTspClient(url);
        exp = await openExperiment(client, 'tasks-a');
    });

    after(() => stopServer(server));

    it('lists "Real-time tasks" and its instance series with no configuration', async () => {
        const outputs = model(await client.experimentOutputs(exp.UUID), 'outputs');
        const table = outputs.find(o => o.id === TABLE);
        assert.ok(table, `no ${TABLE} in ${outputs.map(o => o.id)}`);
        assert.equal(table.name, 'Real-time tasks');
        assert.equal(table.type, 'TABLE');
        const series = outputs.filter(o => o.id.startsWith(`${TABLE}.`));
        assert.deepEqual(series.map(o => o.type), ['TREE_TIME_XY', 'TREE_TIME_XY', 'TREE_TIME_XY', 'TREE_TIME_XY']);
    });

    it('the table is sextant tasks', async () => {
        const columns = await poll(() => client.fetchTableColumns(exp.UUID, TABLE, QueryHelper.query()), 'columns');
        const at = name => columns.findIndex(c => c.name === name);
        const ids = columns.map(c => Number(c.id));
        const lines = (await poll(() => client.fetchTableLines(exp.UUID, TABLE,
            QueryHelper.tableQuery(ids, 0, 100)), 'lines')).lines;
        const cells = l => l.cells.map(c => c.content);
        const got = lines.map(l => [cells(l)[at('Command')], Number(cells(l)[at('TID')]), cells(l)[at('Kind')],
            Number(cells(l)[at('Jobs')]), Number(cells(l)[at('Response max')]), Number(cells(l)[at('Misses')])]);
        const want = ref.map(t => [t.comm, t.tid, t.kind, t.jobs, t.response.max, t.misses]);
        assert.deepEqual(got, want);
        assert.ok(want.some(t => t[0] === 'rt_high'), 'rt_high found');
    });

    it("rt_high's response-time series: a point per job at its release, its longest the summary's", async () => {
        const tree = await poll(() => client.fetchXYTree(exp.UUID, RESPONSE,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'XY tree');
        const entry = tree.entries.find(e => e.labels[0] === 'rt_high');
        assert.ok(entry, `no rt_high in ${tree.entries.map(e => e.labels[0])}`);
        assert.equal(entry.isDefault, true, 'the highest priority task is shown by default');
        const task = ref.find(t => t.comm === 'rt_high');
        const xy = await poll(() => client.fetchXY(exp.UUID, RESPONSE,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 1000, [entry.id])), 'XY');
        assert.equal(xy.series.length, 1);
        const s = xy.series[0];
        assert.equal(s.xValues.length, task.jobs);
        assert.equal(s.yValues.length, task.jobs);
        assert.equal(BigInt(s.xValues[0]), BigInt(task.first_release));
        assert.equal(Math.max(...s.yValues.map(Number)), task.response.max);
    });
});
