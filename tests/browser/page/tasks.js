// The "Real-time tasks" outputs as the viewer shows them: the table (its
// columns, then a page of lines, drawn as an HTML table as the viewer's
// table component would: every column, a cell's full text in its tooltip)
// and a task's instance series (the XY tree's default entries checked, the
// series over the whole trace with one time per pixel, drawn as lines with
// a dot per job on a canvas, times in ms after the trace's start).
import { QueryHelper } from 'tsp-typescript-client/lib/models/query/query-helper';
import { poll } from './tsp.js';

const WIDTH = 1000;
const HEIGHT = 150;
const LEFT = 60;
const BOTTOM = 20;
const COLORS = ['#3891a6', '#db5461', '#4c5b5c', '#c8a000'];

/** Draws the table in `element`; returns its column names and lines' cells. */
export async function drawTasksTable({ client, exp, outputId, element }) {
    const columns = await poll(() => client.fetchTableColumns(exp.UUID, outputId, QueryHelper.query()), 'tasks columns');
    const ids = columns.map(c => Number(c.id));
    const page = await poll(() => client.fetchTableLines(exp.UUID, outputId,
        QueryHelper.tableQuery(ids, 0, 200)), 'tasks lines');
    const table = document.createElement('table');
    table.className = 'tsp-table';
    const head = table.createTHead().insertRow();
    for (const c of columns) {
        const th = document.createElement('th');
        th.textContent = c.name;
        th.title = c.description ?? '';
        head.appendChild(th);
    }
    const body = table.createTBody();
    const lines = page.lines.map(l => l.cells.map(c => c.content));
    for (const cells of lines) {
        const tr = body.insertRow();
        cells.forEach(text => {
            const td = tr.insertCell();
            td.textContent = text;
            td.title = text;
        });
    }
    element.appendChild(table);
    return { columns: columns.map(c => c.name), lines };
}

/** A duration in ns as the axis writes it. */
const ms = ns => `${(ns / 1e6).toFixed(ns < 1e6 ? 3 : 1)} ms`;

/** Draws the default entries' series of the XY output in `element`; returns what was drawn. */
export async function drawInstances({ client, exp, outputId, element }) {
    const tree = await poll(() => client.fetchXYTree(exp.UUID, outputId,
        QueryHelper.timeRangeQuery(exp.start, exp.end)), `${outputId} tree`);
    const checked = tree.entries.filter(e => e.isDefault).map(e => e.id);
    const xy = await poll(() => client.fetchXY(exp.UUID, outputId,
        QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, WIDTH, checked)), outputId);
    const series = xy.series ?? [];
    const canvas = document.createElement('canvas');
    canvas.width = WIDTH + LEFT;
    canvas.height = HEIGHT + BOTTOM;
    element.appendChild(canvas);
    const g = canvas.getContext('2d');
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, canvas.width, canvas.height);
    const span = Number(exp.end - exp.start);
    const top = Math.max(1, ...series.flatMap(s => s.yValues.map(Number)));
    const px = t => LEFT + Number(BigInt(t) - exp.start) * WIDTH / span;
    const py = y => HEIGHT - (HEIGHT - 10) * Number(y) / top;
    // Axes: 0 and the highest value on y, the trace's span on x.
    g.strokeStyle = '#000000';
    g.beginPath();
    g.moveTo(LEFT, 0);
    g.lineTo(LEFT, HEIGHT);
    g.lineTo(LEFT + WIDTH, HEIGHT);
    g.stroke();
    g.fillStyle = '#000000';
    g.font = '11px sans-serif';
    g.fillText(ms(top), 2, py(top) + 4);
    g.fillText('0', LEFT - 12, HEIGHT);
    g.fillText('0 ms', LEFT, HEIGHT + 14);
    g.fillText(`${ms(span)} after the trace start`, LEFT + WIDTH - 170, HEIGHT + 14);
    const drawn = series.map((s, k) => {
        const color = COLORS[k % COLORS.length];
        const points = s.xValues.map((x, i) => ({ x: px(x), y: py(s.yValues[i]) }));
        g.strokeStyle = color;
        g.fillStyle = color;
        g.beginPath();
        points.forEach((p, i) => (i ? g.lineTo(p.x, p.y) : g.moveTo(p.x, p.y)));
        g.stroke();
        for (const p of points) {
            g.fillRect(p.x - 1.5, p.y - 1.5, 3, 3);
        }
        return {
            name: s.seriesName, color, points,
            values: s.yValues.map(Number), releases: s.xValues.map(String),
        };
    });
    const legend = document.createElement('div');
    legend.textContent = drawn.map(s => `${s.name}: ${s.points.length} points (${s.color})`).join(', ') || 'no series';
    element.appendChild(legend);
    return { title: xy.title, checked, width: canvas.width, height: HEIGHT, series: drawn };
}
