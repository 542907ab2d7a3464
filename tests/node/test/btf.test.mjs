// A BTF trace through `sextant serve` with the real tsp-typescript-client,
// as the VS Code Trace Viewer shows it: the FreeRTOS 4-core trace's task
// status per core (running intervals checked against `sextant analyze
// --preset running`) and the TA Simulator trace's task instances in the
// Comparison View (checked against `sextant analyze` with the same model);
// the BTF outputs of the TA Simulator trace (runnables nested in their
// tasks, semaphores, signals) checked against the file's rows split on
// commas.
// Skipped when ../shared/traces/btf is absent.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { BIN, ROOT, model, poll, sleep, startServer, stopServer } from './common.mjs';

const require = createRequire(import.meta.url);
const { HttpTspClient, QueryHelper } = require('tsp-typescript-client');

const THREAD_STATUS =
    'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';
const SHARED = join(ROOT, '../shared/traces/btf');
const FREERTOS = join(SHARED, 'freertos-example-4cores.btf');
const TA = join(SHARED, 'ta-simulator-20140219-123819.btf');
const TASK_MODEL = join(ROOT, 'schemas/examples/btf-task-instance.json');

function analyze(trace, args) {
    const out = execFileSync(BIN, ['analyze', trace, ...args, '--format', 'json'],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
    return JSON.parse(out);
}

function nbEvents(trace) {
    return Number(execFileSync(BIN, ['dump', trace, '--format', 'none', '--no-payload'],
        { encoding: 'utf8' }).trim().split(/\s+/)[0]);
}

async function openExperiment(client, name, uri) {
    const trace = model(await client.openTrace(QueryHelper.query({ name, uri })), `open ${name}`);
    const created = model(await client.createExperiment(QueryHelper.query({ name, traces: [trace.UUID] })),
        `experiment ${name}`);
    const deadline = Date.now() + 60000;
    for (;;) {
        const exp = model(await client.fetchExperiment(created.UUID), 'fetchExperiment');
        if (exp.indexingStatus === 'COMPLETED') return exp;
        assert.equal(exp.indexingStatus, 'RUNNING');
        assert.ok(Date.now() < deadline, 'indexing takes too long');
        await sleep(100);
    }
}

describe('BTF traces in the viewer', { skip: !existsSync(FREERTOS) && 'no ../shared/traces/btf' }, () => {
    let server;
    let client;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release first`);
        const [child, url] = await startServer(['--allow-root', SHARED]);
        child.removeAllListeners('exit');
        server = child;
        client = new HttpTspClient(url);
    });

    after(() => stopServer(server));

    it('task status of the FreeRTOS 4-core trace equals the running preset', async () => {
        const exp = await openExperiment(client, 'freertos-4cores', FREERTOS);
        assert.equal(exp.nbEvents, nbEvents(FREERTOS));
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, THREAD_STATUS,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'task tree');
        const names = new Set(tree.entries.map(e => e.labels[0]));
        for (const task of ['Runner', 'IDLE0', 'IDLE3', 'CS', 'MX', 'Tmr_Svc']) {
            assert.ok(names.has(task), `${task} in ${[...names]}`);
        }
        // Task 7 (a CS task): its running states at full resolution, over a
        // window, against the running intervals analyze finds.
        // A task's thread row (its process above it bears its name, without states).
        const tasks = tree.entries.filter(e => e.hasData);
        const row = tasks.find(e => e.labels[0] === 'CS' && e.labels.includes('7'))
            ?? tasks.find(e => e.labels[0] === 'CS');
        const tid = Number(row.labels.find(l => /^\d+$/.test(l)));
        const intervals = analyze(FREERTOS, ['--preset', 'running', '--tid', String(tid), '--sort', 'start'])
            .executions.map(x => [BigInt(x.start), BigInt(x.end)]);
        assert.ok(intervals.length > 50, `${intervals.length} running intervals of task ${tid}`);
        const start = intervals[10][0];
        const end = intervals[40][1];
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
            QueryHelper.selectionTimeRangeQuery(start, end, [row.id])), 'states');
        const running = states.rows[0].states
            .filter(s => s.style.parentKey === 'running')
            .map(s => [s.start, s.end]);
        const expected = intervals.filter(([a, b]) => a >= start && b <= end);
        assert.deepEqual(running, expected);
    });

    it('Comparison View of the TA Simulator task instances', async () => {
        const exp = await openExperiment(client, 'ta-simulator', TA);
        const jobs = JSON.parse(readFileSync(TASK_MODEL, 'utf8'));
        const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.executions',
            QueryHelper.outputConfigurationQuery('task instances', 'BTF', 'sextant.execution-model', jobs)), 'create');
        const config = created.id.split(':')[1];
        const outputs = model(await client.experimentOutputs(exp.UUID), 'outputs');
        const comparison = outputs.find(o => o.id.includes(config) && o.type === 'GANTT_CHART');
        assert.ok(comparison, `no Comparison View among ${outputs.map(o => o.id)}`);
        const expected = analyze(TA, ['--model', TASK_MODEL, '--sort', 'start']);
        assert.equal(new Set(expected.executions.map(x => x.end_comm)).size, 11, 'the 11 tasks');
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, comparison.id,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'comparison tree');
        assert.equal(tree.entries.length, expected.executions.length);
        const byIndex = new Map(expected.executions.map(x => [x.index, x]));
        for (const e of tree.entries) {
            const x = byIndex.get(e.id);
            assert.deepEqual(e.labels.slice(1), [String(x.duration), String(x.tid)]);
        }
        // The longest instance: its bars, summed per state, are its times.
        const longest = expected.executions.reduce((a, b) => (b.duration > a.duration ? b : a));
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, comparison.id,
            QueryHelper.selectionTimeRangeQuery(0n, BigInt(longest.duration), [longest.index])), 'comparison states');
        const sums = {};
        for (const st of states.rows[0].states) {
            const key = st.style?.parentKey;
            sums[key] = (sums[key] ?? 0n) + (st.end - st.start);
        }
        assert.equal(sums.running ?? 0n, BigInt(longest.running), JSON.stringify(sums, (_, v) => `${v}`));
        assert.equal(sums.preempted ?? 0n, BigInt(longest.preempted));
        assert.equal(sums.waiting_cpu ?? 0n, BigInt(longest.waiting));
    });
    it('runnables, semaphores and signals of the TA Simulator trace', async () => {
        const exp = await openExperiment(client, 'ta-simulator-btf', TA);
        const rows = readFileSync(TA, 'utf8').split('\n')
            .filter(l => l && !l.startsWith('#')).map(l => l.split(',').map(f => f.trim()));
        const outputs = model(await client.experimentOutputs(exp.UUID), 'outputs');
        for (const id of ['sextant.btf.tasks', 'sextant.btf.semaphores', 'sextant.btf.os-events', 'sextant.btf.signals']) {
            assert.ok(outputs.some(o => o.id === id), `${id} among ${outputs.map(o => o.id)}`);
        }
        // Runnables nested under the task that ran them: each runnable's
        // running bars are its start and resume rows.
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, 'sextant.btf.tasks',
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'tasks tree');
        const byId = new Map(tree.entries.map(e => [e.id, e]));
        const nested = tree.entries.filter(e => e.parentId !== -1);
        assert.ok(nested.length > 10, `${nested.length} runnables`);
        const starts = new Map();
        for (const f of rows.filter(f => f[3] === 'R' && (f[6] === 'start' || f[6] === 'resume'))) {
            const key = `${f[1]}/${f[4]}`;
            starts.set(key, (starts.get(key) ?? 0) + 1);
        }
        assert.equal(nested.length, starts.size);
        const runnable = nested.reduce((a, b) =>
            (starts.get(`${byId.get(b.parentId).labels[0]}/${b.labels[0]}`) ?? 0)
            > (starts.get(`${byId.get(a.parentId).labels[0]}/${a.labels[0]}`) ?? 0) ? b : a);
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, 'sextant.btf.tasks',
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, [runnable.id])), 'runnable states');
        const running = states.rows[0].states.filter(s => s.style.parentKey === 'running');
        assert.equal(running.length, starts.get(`${byId.get(runnable.parentId).labels[0]}/${runnable.labels[0]}`));
        // Semaphores: the tasks assigned each one are its nested rows.
        const sems = await poll(() => client.fetchTimeGraphTree(exp.UUID, 'sextant.btf.semaphores',
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'semaphores tree');
        const users = new Set(rows.filter(f => f[3] === 'SEM' && f[1] !== f[4]).map(f => `${f[4]}/${f[1]}`));
        const semById = new Map(sems.entries.map(e => [e.id, e]));
        const drawn = new Set(sems.entries.filter(e => e.parentId !== -1)
            .map(e => `${semById.get(e.parentId).labels[0]}/${e.labels[0]}`));
        assert.deepEqual([...drawn].sort(), [...users].sort());
        // Signals: one series per signal written, the values written.
        const written = new Set(rows.filter(f => f[3] === 'SIG' && f[6] === 'write').map(f => f[4]));
        const xyTree = await poll(() => client.fetchXYTree(exp.UUID, 'sextant.btf.signals',
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'signals tree');
        assert.deepEqual(xyTree.entries.map(e => e.labels[0]).sort(), [...written].sort());
        const xy = await poll(() => client.fetchXY(exp.UUID, 'sextant.btf.signals',
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 100, xyTree.entries.map(e => e.id))), 'signals');
        assert.equal(xy.series.length, written.size);
        const values = new Set(rows.filter(f => f[3] === 'SIG' && f[6] === 'write').map(f => Number(f[7])));
        for (const series of xy.series) {
            assert.ok(series.yValues.length > 50, `${series.seriesName}: ${series.yValues.length} points`);
            for (const y of series.yValues) assert.ok(values.has(y), `${y} was written`);
        }
    });
});
