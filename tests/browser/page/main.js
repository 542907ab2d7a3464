// The page: opens a trace in sextant through the test server's same-origin
// proxy, and draws, as the VS Code Trace Viewer would, the thread status
// view, the Comparison View of an execution model created through the
// configuration endpoint (after the viewer's editor accepted it), its
// duration density, the critical path of its longest execution with its
// wake-up arrows, and the real-time tasks found with no configuration (their
// table and the default task's instance series). `window.sextantScene`
// resolves to what was drawn.
import { HttpTspClient, QueryHelper } from 'tsp-typescript-client';
import { drawTimeGraph, scene } from './time-graph.js';
import { editorAccepts } from './config-editor.js';
import { drawDensity } from './density.js';
import { drawInstances, drawTasksTable } from './tasks.js';
import { model, poll } from './tsp.js';

const THREAD_STATUS = 'org.eclipse.tracecompass.internal.analysis.os.linux.core.threadstatus.ThreadStatusDataProvider';

/** A titled section of the page, its id the screenshot's name. */
function section(id, title) {
    const s = document.createElement('section');
    s.id = id;
    const h = document.createElement('h2');
    h.textContent = title;
    const body = document.createElement('div');
    body.className = 'view';
    s.append(h, body);
    document.body.appendChild(s);
    return { body, heading: h };
}

/** Converts bigints for the trip back to the test. */
const plain = value => JSON.parse(JSON.stringify(value, (_, v) => typeof v === 'bigint' ? String(v) : v));

async function openExperiment(client, uri) {
    const trace = model(await client.openTrace(QueryHelper.query({ name: 'browser', uri })), 'openTrace');
    let exp = model(await client.createExperiment(QueryHelper.query({ name: 'browser', traces: [trace.UUID] })),
        'createExperiment');
    const deadline = Date.now() + 60000;
    while (exp.indexingStatus === 'RUNNING') {
        if (Date.now() > deadline) {
            throw new Error('indexing took over 60 s');
        }
        await new Promise(ok => setTimeout(ok, 500));
        exp = model(await client.fetchExperiment(exp.UUID), 'fetchExperiment');
    }
    return exp;
}

/** Runs `draw` for one view, keeping its error rather than losing the others. */
async function view(out, name, draw) {
    try {
        out[name] = plain(await draw());
    } catch (e) {
        out[name] = { error: String(e && e.stack ? e.stack : e) };
    }
}

/** The range covered by the styled states of a time-graph output between `from` and `to`. */
async function styledExtent(client, exp, outputId, from, to) {
    const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, outputId,
        QueryHelper.timeRangeQuery(exp.start, exp.end)), 'extent tree');
    const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, outputId,
        QueryHelper.selectionTimeRangeQuery(from, to, 2000, tree.entries.map(e => e.id))), 'extent states');
    const styled = states.rows.flatMap(r => r.states).filter(s => s.style);
    if (!styled.length) {
        throw new Error(`${outputId}: no styled state between ${from} and ${to}`);
    }
    const start = styled.reduce((m, s) => s.start < m ? s.start : m, styled[0].start);
    const end = styled.reduce((m, s) => s.end > m ? s.end : m, styled[0].end);
    return { start, end };
}

async function run() {
    const q = new URLSearchParams(location.search);
    const client = new HttpTspClient(`${location.origin}/tsp/api`);
    const jobs = await (await fetch(q.get('model'))).json();
    const exp = await openExperiment(client, q.get('trace'));
    const out = { experiment: plain({ start: exp.start, end: exp.end, nbEvents: exp.nbEvents }) };
    const length = exp.end - exp.start;

    await view(out, 'threadStatus', async () => {
        const { body } = section('thread-status', 'Thread status (whole trace)');
        const v = await drawTimeGraph({
            client, exp, outputId: THREAD_STATUS, element: body, chartStart: exp.start,
            absoluteRange: length, viewRange: { start: 0n, end: length }, title: 'thread status',
            axisTitle: 'ms after the trace start',
        });
        return scene(v, exp.start);
    });

    await view(out, 'threadStatusSearch', async () => {
        const { body } = section('thread-status-search', 'Thread status, "rt_high" in the search box');
        const v = await drawTimeGraph({
            client, exp, outputId: THREAD_STATUS, element: body, chartStart: exp.start,
            absoluteRange: length, viewRange: { start: 0n, end: length }, title: 'thread status (search)',
            axisTitle: 'ms after the trace start', search: 'rt_high',
        });
        return scene(v, exp.start);
    });

    // Offered with no configuration: listed among the outputs by its name.
    const listed = model(await client.experimentOutputs(exp.UUID), 'outputs');
    await view(out, 'tasksTable', async () => {
        const output = listed.find(o => o.name === 'Real-time tasks');
        if (!output) {
            throw new Error(`no "Real-time tasks" among ${listed.map(o => o.name)}`);
        }
        const { body } = section('tasks-table', `${output.name} (${output.id})`);
        return { id: output.id, ...await drawTasksTable({ client, exp, outputId: output.id, element: body }) };
    });

    await view(out, 'tasksInstances', async () => {
        const { body } = section('tasks-instances', 'Real-time tasks: instance series of the default task');
        const drawn = [];
        for (const output of listed.filter(o => o.type === 'TREE_TIME_XY' && o.id.startsWith('sextant.tasks.'))) {
            const h = document.createElement('h2');
            h.textContent = output.name;
            body.appendChild(h);
            drawn.push({ id: output.id, ...await drawInstances({ client, exp, outputId: output.id, element: body }) });
        }
        return drawn;
    });

    // The execution model, through the viewer's editor, then posted.
    const types = model(await client.fetchOutputConfigurationTypes(exp.UUID, 'sextant.executions'), 'configTypes');
    const type = types.find(t => t.id === 'sextant.execution-model');
    const configuration = { name: 'rt_high jobs', description: 'each period of rt_high', sourceTypeId: type.id, parameters: jobs };
    out.editor = editorAccepts(type, configuration);
    const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.executions',
        QueryHelper.outputConfigurationQuery(configuration.name, configuration.description, type.id, jobs)), 'create model');
    const configId = created.id.slice(created.id.indexOf(':') + 1);
    const outputs = model(await client.experimentOutputs(exp.UUID), 'outputs');
    const derived = kind => outputs.find(o => o.type === kind && o.id.endsWith(`:${configId}`));

    await view(out, 'comparison', async () => {
        const output = derived('GANTT_CHART');
        const { body, heading } = section('comparison', `Comparison View (${output.name})`);
        // The executions superposed from 0; zoomed, as a user would, to the longest.
        const extent = await styledExtent(client, exp, output.id, 0n, length);
        const end = extent.end + extent.end / 20n;
        heading.textContent += ` 0 to ${Number(end) / 1e6} ms`;
        const v = await drawTimeGraph({
            client, exp, outputId: output.id, element: body, chartStart: 0n,
            absoluteRange: length, viewRange: { start: 0n, end }, title: 'comparison',
            axisTitle: 'ms after the execution start',
        });
        return scene(v, 0n);
    });

    await view(out, 'density', async () => {
        const output = derived('TREE_GENERIC_XY');
        const { body } = section('density', `Duration density (${output.name})`);
        return drawDensity({ client, exp, outputId: output.id, element: body });
    });

    let explained;
    await view(out, 'criticalPath', async () => {
        explained = model(await client.createDerivedOutput(exp.UUID, 'sextant.explain',
            QueryHelper.outputConfigurationQuery('longest', 'the longest rt_high job', 'sextant.explain',
                { configuration: configId, execution: 'longest' })), 'create explanation');
        // As the viewer opens it: the whole trace.
        const { body } = section('critical-path', `Critical path of the longest job (${explained.name}), whole trace`);
        const v = await drawTimeGraph({
            client, exp, outputId: explained.id, element: body, chartStart: exp.start,
            absoluteRange: length, viewRange: { start: 0n, end: length }, title: 'critical path',
            axisTitle: 'ms after the trace start',
        });
        return scene(v, exp.start);
    });

    await view(out, 'criticalPathZoomed', async () => {
        // Zoomed, as a user would, to the job and a twentieth of it each side.
        const extent = await styledExtent(client, exp, explained.id, exp.start, exp.end);
        const margin = (extent.end - extent.start) / 20n;
        const viewRange = { start: extent.start - margin - exp.start, end: extent.end + margin - exp.start };
        const { body } = section('critical-path-zoomed', `Critical path of the longest job, `
            + `${Number(viewRange.start) / 1e6} to ${Number(viewRange.end) / 1e6} ms after the trace start`);
        const v = await drawTimeGraph({
            client, exp, outputId: explained.id, element: body, chartStart: exp.start,
            absoluteRange: length, viewRange, title: 'critical path (zoomed)',
            axisTitle: 'ms after the trace start',
        });
        return { ...scene(v, exp.start), job: extent };
    });
    return out;
}

window.sextantScene = run().catch(e => ({ error: String(e && e.stack ? e.stack : e) }));
