// `sextant serve` driven by the real tsp-typescript-client 0.9.0, replaying
// the VS Code Trace Viewer's call sequence (docs/tsp-clients.md) on
// fixtures/scenario-a/ctf and checking values against `sextant dump`.
//
// The server is the release binary (`cargo build --release` first), started
// in the repository root with `--port 0`; its first stderr line gives the
// address: `sextant: listening on http://127.0.0.1:PORT/tsp/api`.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BIN, FIXTURE, MODEL, ROOT, model, poll, sleep, startServer, stopServer } from './common.mjs';

const require = createRequire(import.meta.url);
const { HttpTspClient, QueryHelper } = require('tsp-typescript-client');

const THREAD_STATUS =
    'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';
const HISTOGRAM = 'org.eclipse.tracecompass.internal.tmf.core.histogram.HistogramDataProvider';

const EVENTS =
    'org.eclipse.tracecompass.internal.provisional.tmf.core.model.events.TmfEventTableDataProvider';


/** `sextant dump --format jsonl`: one object per event (numbers as text). */
function dumpEvents() {
    const out = execFileSync(BIN, ['dump', FIXTURE, '--format', 'jsonl'],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
    return out.trim().split('\n').map(l => {
        const ts = /"ts":(-?\d+)/.exec(l)[1];
        const e = JSON.parse(l);
        e.ts = ts;
        return e;
    });
}

/** `sextant analyze --format json` with the rt_high model: its statistics. */
function analyzeStats() {
    const out = execFileSync(BIN, ['analyze', FIXTURE, '--model', MODEL, '--format', 'json'],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
    return JSON.parse(out).stats;
}

/** `sextant dump --format none`: "N events, ... from A to B ns". */
function dumpSummary() {
    const out = execFileSync(BIN, ['dump', FIXTURE, '--format', 'none'], { encoding: 'utf8' });
    const words = out.trim().split(/\s+/);
    const from = words.indexOf('from');
    return {
        events: Number(words[0]),
        start: BigInt(words[from + 1]),
        end: BigInt(words[from + 3]),
    };
}

/** Starts the server; resolves with [child, base URL]. */
describe('VS Code Trace Viewer sequence on scenario-a', () => {
    let server;
    let client;
    const dump = existsSync(BIN) ? dumpSummary() : undefined;
    // Shared by the steps, in order.
    let exp;
    let entries;
    let rtHigh;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release first`);
        const [child, url] = await startServer();
        child.removeAllListeners('exit');
        server = child;
        client = new HttpTspClient(url);
    });

    after(() => stopServer(server));

    it('the fixture has the expected number of events', () => {
        assert.equal(dump.events, 3533);
    });

    it('health and the (empty) experiment list', async () => {
        assert.equal(model(await client.checkHealth(), 'health').status, 'UP');
        const id = model(await client.fetchIdentifier(), 'identifier');
        assert.equal(id.tspVersion, '0.6.0');
        assert.deepEqual(model(await client.fetchExperiments(), 'experiments'), []);
    });

    it('opens the trace and creates the experiment', async () => {
        // The viewer retries a clashing name as name(1), name(2)...
        let trace;
        for (let i = 0; !trace; i++) {
            const name = i === 0 ? 'scenario-a' : `scenario-a(${i})`;
            const r = await client.openTrace(QueryHelper.query({ name, uri: FIXTURE }));
            if (r.getStatusCode() === 409 && i < 5) continue;
            trace = model(r, 'openTrace');
        }
        assert.equal(trace.name, 'scenario-a');
        assert.match(trace.UUID, /^[0-9a-f-]{36}$/);
        assert.equal(typeof trace.start, 'bigint');
        // Stable: opening it again gives the same trace.
        const again = model(
            await client.openTrace(QueryHelper.query({ name: 'scenario-a', uri: FIXTURE })), 'openTrace again');
        assert.equal(again.UUID, trace.UUID);

        const created = model(
            await client.createExperiment(QueryHelper.query({ name: 'scenario-a', traces: [trace.UUID] })),
            'createExperiment');
        assert.equal(created.name, 'scenario-a');
        assert.deepEqual(created.traces.map(t => t.UUID), [trace.UUID]);

        // Polled while the background indexing runs.
        const deadline = Date.now() + 60000;
        for (;;) {
            exp = model(await client.fetchExperiment(created.UUID), 'fetchExperiment');
            if (exp.indexingStatus === 'COMPLETED') break;
            assert.equal(exp.indexingStatus, 'RUNNING', JSON.stringify(exp, (_, v) => typeof v === 'bigint' ? `${v}` : v));
            assert.ok(Date.now() < deadline, 'indexing takes too long');
            await sleep(100);
        }
        assert.equal(exp.nbEvents, dump.events);
        assert.equal(typeof exp.start, 'bigint');
        assert.equal(exp.start, dump.start);
        assert.equal(exp.end, dump.end);
        assert.equal(exp.traces[0].indexingStatus, 'COMPLETED');
        assert.equal(exp.traces[0].nbEvents, dump.events);
        const list = model(await client.fetchExperiments(), 'experiments');
        assert.deepEqual(list.map(e => e.UUID), [exp.UUID]);
    });

    it('lists the outputs, marker sets and annotation categories', async () => {
        const outputs = model(await client.experimentOutputs(exp.UUID), 'outputs');
        const kinds = new Map(outputs.map(o => [o.id, o.type]));
        assert.equal(kinds.get(THREAD_STATUS), 'TIME_GRAPH');
        assert.equal(kinds.get(HISTOGRAM), 'TREE_TIME_XY');
        for (const o of outputs) assert.ok(o.name && typeof o.description === 'string', o.id);
        const markers = model(await client.fetchMarkerSets(exp.UUID), 'markerSets');
        assert.ok(Array.isArray(markers.model), JSON.stringify(markers));
        for (const o of outputs) {
            const cats = model(await client.fetchAnnotationsCategories(exp.UUID, o.id), `annotations of ${o.id}`);
            assert.ok(Array.isArray(cats.model.annotationCategories));
        }
    });

    it('time graph: styles and the thread tree', async () => {
        const styles = (await poll(() => client.fetchStyles(exp.UUID, THREAD_STATUS, QueryHelper.query()), 'styles')).styles;
        for (const key of ['running', 'preempted', 'blocked', 'waiting_cpu']) {
            assert.match(styles[key]?.values?.['background-color'] ?? '', /^#[0-9a-fA-F]{6}$/, key);
        }
        const tree = await poll(
            () => client.fetchTimeGraphTree(exp.UUID, THREAD_STATUS, QueryHelper.timeRangeQuery(exp.start, exp.end)),
            'timeGraph tree');
        entries = tree.entries;
        assert.ok(entries.length > 1);
        assert.ok(tree.headers.length >= 1);
        const ids = new Set();
        for (const e of entries) {
            assert.equal(typeof e.id, 'number');
            assert.ok(e.id >= 0 && e.id < 2 ** 31, `entry ids stay small: ${e.id}`);
            assert.ok(!ids.has(e.id), `duplicate id ${e.id}`);
            ids.add(e.id);
            assert.equal(typeof e.start, 'bigint');
            assert.ok(e.start >= exp.start && e.end <= exp.end && e.start <= e.end, `row ${e.id} in the trace`);
        }
        // Hosts at the top, their processes under them, threads under those.
        const byId = new Map(entries.map(e => [e.id, e]));
        const depth = e => (byId.has(e.parentId) ? 1 + depth(byId.get(e.parentId)) : 0);
        assert.equal(entries.filter(e => depth(e) === 0).length, 1, 'one host');
        for (const e of entries) {
            assert.equal(e.hasData, depth(e) === 2, `states on threads only: ${e.labels}`);
        }
        // rt_high's thread, not its process of the same name.
        rtHigh = entries.filter(e => e.labels[0] === 'rt_high' && e.hasData);
        assert.ok(rtHigh.length >= 1, `no rt_high in ${entries.map(e => e.labels[0])}`);
    });

    it('time graph: states of a viewport, arrows, tooltip', async () => {
        // The middle half of the trace, 400 pixels wide.
        const span = exp.end - exp.start;
        const start = exp.start + span / 4n;
        const end = exp.end - span / 4n;
        const nbTimes = 400;
        const items = entries.map(e => e.id);
        const [states, annotations] = await Promise.all([
            poll(() => client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
                QueryHelper.selectionTimeRangeQuery(start, end, nbTimes, items)), 'states'),
            poll(() => client.fetchAnnotations(exp.UUID, THREAD_STATUS,
                QueryHelper.selectionTimeRangeQuery(start, end, nbTimes, items)), 'annotations'),
        ]);
        assert.equal(typeof annotations.annotations, 'object');
        assert.ok(states.rows.length > 0);
        const styles = new Set(['running', 'preempted', 'blocked', 'waiting_cpu']);
        let running;
        for (const row of states.rows) {
            assert.ok(items.includes(row.entryId), `row ${row.entryId} was not requested`);
            assert.ok(row.states.length <= 2 * nbTimes + 2, `${row.states.length} states for ${nbTimes} pixels`);
            let prevEnd;
            for (const s of row.states) {
                assert.equal(typeof s.start, 'bigint');
                assert.ok(s.start < s.end, 'a state has a duration');
                assert.ok(s.end >= start && s.start <= end, `state [${s.start}, ${s.end}] outside [${start}, ${end}]`);
                assert.ok(prevEnd === undefined || s.start >= prevEnd, 'states in order, not overlapping');
                prevEnd = s.end;
                assert.ok(styles.has(s.style?.parentKey), `unknown style ${JSON.stringify(s.style)}`);
                if (s.style.parentKey === 'running' && rtHigh.some(e => e.id === row.entryId) && !running) {
                    running = { id: row.entryId, start: s.start, end: s.end };
                }
            }
        }
        assert.ok(running, 'rt_high runs in the middle of the trace');

        const arrows = await poll(() => client.fetchTimeGraphArrows(exp.UUID, THREAD_STATUS,
            QueryHelper.timeRangeQuery(start, end, nbTimes)), 'arrows');
        assert.ok(Array.isArray(arrows));

        // Hover over rt_high's running state (at full resolution, so that it
        // is one state, not a merged group).
        const exact = await poll(() => client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS,
            QueryHelper.selectionTimeRangeQuery(running.start, running.end, [running.id])), 'exact states');
        const one = exact.rows[0].states.find(s => s.style.parentKey === 'running' && s.start <= running.start && s.end > running.start)
            ?? exact.rows[0].states.find(s => s.style.parentKey === 'running');
        assert.ok(one, 'a running state at full resolution');
        const t = (one.start + one.end) / 2n;
        const tip = await poll(() => client.fetchTimeGraphTooltip(exp.UUID, THREAD_STATUS,
            QueryHelper.selectionTimeQuery([t], [running.id], {
                requested_element: { elementType: 'state', time: one.start, duration: one.end - one.start },
            })), 'tooltip');
        assert.equal(tip.State, 'Running', JSON.stringify(tip));
        assert.equal(tip.Process, 'rt_high');
    });

    it('histogram: XY tree, then the default series sums to nbEvents', async () => {
        const tree = await poll(() => client.fetchXYTree(exp.UUID, HISTOGRAM,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'XY tree');
        const checked = tree.entries.filter(e => e.isDefault).map(e => e.id);
        assert.ok(checked.length >= 1, 'a default entry');
        const nbTimes = 100;
        const xy = await poll(() => client.fetchXY(exp.UUID, HISTOGRAM,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, nbTimes, checked)), 'XY');
        assert.equal(xy.series.length, checked.length);
        const s = xy.series[0];
        assert.equal(s.yValues.length, nbTimes);
        assert.equal(s.xValues.length, nbTimes);
        assert.equal(typeof s.xValues[0], 'bigint');
        for (let i = 0; i < nbTimes; i++) {
            assert.ok(s.xValues[i] >= exp.start && s.xValues[i] <= exp.end);
            if (i > 0) assert.ok(s.xValues[i] > s.xValues[i - 1], 'x increases');
            assert.ok(s.yValues[i] >= 0);
        }
        const total = s.yValues.reduce((a, b) => a + b, 0);
        assert.ok(Math.abs(total - dump.events) < 0.5, `histogram total ${total} != ${dump.events}`);
        // A sub-range counts no more than the whole.
        const half = await poll(() => client.fetchXY(exp.UUID, HISTOGRAM,
            QueryHelper.selectionTimeRangeQuery(exp.start, (exp.start + exp.end) / 2n, 10, checked)), 'XY half');
        const halfTotal = half.series[0].yValues.reduce((a, b) => a + b, 0);
        assert.ok(halfTotal > 0 && halfTotal < dump.events, `half total ${halfTotal}`);
    });

    it('events table: columns, lines equal to sextant dump, search', async () => {
        const events = dumpEvents();
        const columns = await poll(() => client.fetchTableColumns(exp.UUID, EVENTS, QueryHelper.query()), 'columns');
        const names = columns.map(c => c.name);
        assert.deepEqual(names, ['Timestamp ns', 'CPU', 'Event type', 'TID', 'Contents']);
        const ids = columns.map(c => c.id);
        const low = 1000;
        const table = await poll(() => client.fetchTableLines(exp.UUID, EVENTS,
            QueryHelper.tableQuery(ids, low, 50)), 'lines');
        assert.equal(Number(table.size), dump.events);
        assert.equal(Number(table.lowIndex), low);
        assert.equal(table.lines.length, 50);
        for (const line of table.lines) {
            const e = events[Number(line.index)];
            const cells = line.cells.map(c => c.content);
            assert.equal(cells[0], e.ts);
            assert.equal(cells[1], String(e.cpu));
            assert.equal(cells[2], e.name);
            if (e.fields.perf_tid >= 0) assert.equal(cells[3], String(e.fields.perf_tid));
            assert.ok(cells[4].includes(`perf_tid=${e.fields.perf_tid}`), cells[4]);
        }
        // The next sched_switch after line 2000, tagged.
        const next = events.findIndex((e, i) => i >= 2000 && e.name === 'sched:sched_switch');
        const found = await poll(() => client.fetchTableLines(exp.UUID, EVENTS,
            QueryHelper.tableQuery(ids, 2000, 3, {
                table_search_expressions: { 2: 'sched_switch$' }, table_search_direction: 'NEXT',
            })), 'search');
        assert.equal(Number(found.lowIndex), next);
        assert.equal(found.lines[0].tags, 8);
    });

    it('events table filtered: only the matches, numbered by rank, as sextant dump says', async () => {
        const matches = dumpEvents().filter(e => e.name.endsWith('sched_wakeup'));
        assert.ok(matches.length > 40, `${matches.length} wake-ups`);
        const query = low => QueryHelper.tableQuery([0, 1, 2, 3, 4], low, 20, {
            table_search_expressions: { 2: 'sched_wakeup$' }, isFiltered: true,
        });
        // RUNNING while the matches are counted: polled, as the viewer does.
        const low = Math.floor(matches.length / 2);
        const page = await poll(() => client.fetchTableLines(exp.UUID, EVENTS, query(low)), 'filtered lines');
        assert.equal(Number(page.size), matches.length);
        assert.equal(Number(page.lowIndex), low);
        assert.equal(page.lines.length, 20);
        page.lines.forEach((line, k) => {
            const e = matches[low + k];
            assert.equal(Number(line.index), low + k);
            const cells = line.cells.map(c => c.content);
            assert.equal(cells[0], e.ts);
            assert.equal(cells[1], String(e.cpu));
            assert.equal(cells[2], e.name);
            assert.ok(cells[4].includes(`perf_tid=${e.fields.perf_tid}`), cells[4]);
        });
    });

    it('data tree: event types add up to nbEvents', async () => {
        const events = dumpEvents();
        const tree = await poll(() => client.fetchDataTree(exp.UUID, 'sextant.event-types', QueryHelper.query()), 'event types');
        const root = tree.entries.find(e => e.parentId === -1);
        assert.equal(Number(root.labels[1]), dump.events);
        const switches = tree.entries.find(e => e.labels[0] === 'sched:sched_switch');
        assert.equal(Number(switches.labels[1]), events.filter(e => e.name === 'sched:sched_switch').length);
    });

    it('execution model: statistics data tree and duration density', async () => {
        const jobs = JSON.parse(readFileSync(MODEL, 'utf8'));
        const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.executions',
            QueryHelper.outputConfigurationQuery('rt_high', 'jobs', 'sextant.execution-model', jobs)), 'create');
        const config = created.id.split(':')[1];
        const stats = analyzeStats();
        const tree = await poll(() => client.fetchDataTree(exp.UUID, `sextant.executions.statistics:${config}`,
            QueryHelper.query()), 'statistics');
        const col = name => tree.headers.findIndex(h => h.name === name);
        const root = tree.entries.find(e => e.parentId === -1);
        assert.equal(Number(root.labels[col('Count')]), stats.count);
        assert.equal(Number(root.labels[col('P99')]), stats.p99);
        assert.equal(Number(root.labels[col('Maximum')]), stats.max);
        assert.equal(Number(root.labels[col('Deadline misses')]), stats.deadline_misses);
        const density = `sextant.executions.density:${config}`;
        const dtree = await poll(() => client.fetchGenericXYTree(exp.UUID, density, QueryHelper.query()), 'density tree');
        const checked = dtree.entries.filter(e => e.isDefault).map(e => e.id);
        assert.deepEqual(checked, [1, 2]);
        const xy = await poll(() => client.fetchGenericXY(exp.UUID, density, QueryHelper.query({
            requested_timerange: { start: exp.start, end: exp.end, nbSamples: 30 }, requested_items: checked,
        })), 'density');
        const sum = s => s.yValues.reduce((a, b) => a + b, 0);
        assert.equal(sum(xy.series[0]), stats.count);
        assert.equal(sum(xy.series[1]), stats.deadline_misses);
        assert.ok(xy.series[0].xRanges.length <= 30);
        assert.equal(Number(xy.series[0].xRanges[0].start), 0);
        assert.equal(Number(xy.series[0].xRanges.at(-1).end), stats.max);
    });

    it('errors come back as ErrorResponse', async () => {
        const r = await client.fetchExperiment('00000000-0000-0000-0000-000000000000');
        assert.equal(r.getStatusCode(), 404);
        const e = r.getErrorResponse();
        assert.ok(e && typeof e.title === 'string' && typeof e.detail === 'string', r.getText());
        const bad = await client.fetchTimeGraphStates(exp.UUID, THREAD_STATUS, QueryHelper.query({ requested_items: [0] }));
        assert.equal(bad.getStatusCode(), 400);
        assert.match(bad.getErrorResponse().detail, /parameters\.requested_timerange/);
    });
});
