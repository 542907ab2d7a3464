// A time graph drawn by timeline-chart from a TSP time-graph output, fed the
// way the VS Code Trace Viewer feeds it (its TspDataProvider and gantt
// component, read, not copied): the chart works in times relative to
// `chartStart` (the experiment's start for time graphs, 0 for the Comparison
// View); states come back offset by `chartStart`, arrows by the start of the
// tree's first entry, annotations by `chartStart`; states tagged DIMMED are
// drawn at 30 % opacity. After drawing, `scene()` reads back what
// timeline-chart put on the canvas, in canvas pixels.
import { QueryHelper } from 'tsp-typescript-client/lib/models/query/query-helper';
import { TimeGraphContainer } from 'timeline-chart/lib/time-graph-container';
import { TimeGraphUnitController } from 'timeline-chart/lib/time-graph-unit-controller';
import { TimeGraphRowController } from 'timeline-chart/lib/time-graph-row-controller';
import { TimeGraphChart } from 'timeline-chart/lib/layer/time-graph-chart';
import { TimeGraphChartArrows } from 'timeline-chart/lib/layer/time-graph-chart-arrows';
import { TimeGraphAxis } from 'timeline-chart/lib/layer/time-graph-axis';
import { TimeGraphRangeEventsLayer } from 'timeline-chart/lib/layer/time-graph-range-events-layer';
import { poll } from './tsp.js';
import { colorStyle, DIMMED, numberStyle, stateStyle } from './styles.js';

const ROW_HEIGHT = 20;
const CHART_WIDTH = 1000;

/**
 * The tree's entries in display order (depth first, every node expanded),
 * each with its depth, which the labels are indented by as the viewer's
 * tree indents them.
 */
function displayOrder(entries) {
    const children = new Map();
    for (const e of entries) {
        const list = children.get(e.parentId) ?? [];
        list.push(e);
        children.set(e.parentId, list);
    }
    const ids = new Set(entries.map(e => e.id));
    const out = [];
    const visit = (parent, depth) => {
        for (const e of children.get(parent) ?? []) {
            out.push({ entry: e, depth, parent: children.has(e.id) });
            visit(e.id, depth + 1);
        }
    };
    for (const root of entries.filter(e => !ids.has(e.parentId))) {
        out.push({ entry: root, depth: 0, parent: children.has(root.id) });
        visit(root.id, 1);
    }
    return out;
}

/**
 * Draws `outputId` into `element` and resolves once timeline-chart has drawn
 * the rows it asked for (no request in flight for `settleMs`).
 * `viewRange` is relative to `chartStart`; `absoluteRange` is the chart's length;
 * the axis above the chart is in ms from `chartStart`, `axisTitle` beside it;
 * `search`, when given, is then typed in the viewer's search box.
 */
export async function drawTimeGraph({
    client, exp, outputId, element, chartStart, absoluteRange, viewRange, title, axisTitle, search,
}) {
    const styleModel = await poll(() => client.fetchStyles(exp.UUID, outputId, QueryHelper.query()), `${title}: styles`);
    const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, outputId,
        QueryHelper.timeRangeQuery(exp.start, exp.end)), `${title}: tree`);
    // The viewer asks for the annotation categories the user has checked; all, here.
    const categories = (await poll(() => client.fetchAnnotationsCategories(exp.UUID, outputId),
        `${title}: annotation categories`)).annotationCategories ?? [];
    const shown = displayOrder(tree.entries);
    const entries = shown.map(s => s.entry);
    const rowIds = entries.map(e => e.id);
    const height = Math.max(1, rowIds.length) * ROW_HEIGHT;

    const labels = document.createElement('div');
    labels.className = 'labels';
    for (const { entry, depth, parent } of shown) {
        const label = document.createElement('div');
        // An expanded node's triangle, a leaf's blank of the same width.
        label.textContent = `${parent ? '▾' : '\u2003'} ${entry.labels[0]}`;
        label.style.height = `${ROW_HEIGHT}px`;
        label.style.paddingLeft = `${depth * 14}px`;
        labels.appendChild(label);
    }
    const canvas = document.createElement('canvas');
    const axisCanvas = document.createElement('canvas');
    const spacer = document.createElement('div');
    spacer.className = 'labels';
    spacer.textContent = axisTitle;
    const axisRow = document.createElement('div');
    axisRow.className = 'row';
    axisRow.append(spacer, axisCanvas);
    const chartRow = document.createElement('div');
    chartRow.className = 'row';
    chartRow.append(labels, canvas);
    element.append(axisRow, chartRow);

    const unitController = new TimeGraphUnitController(absoluteRange, viewRange);
    unitController.numberTranslator = t => `${(Number(t) / 1e6).toFixed(3)}`;
    const axis = new TimeGraphContainer({
        id: `${element.id}-axis`, width: CHART_WIDTH, height: 30, backgroundColor: 0xffffff,
        forceCanvasRenderer: true,
    }, unitController, axisCanvas);
    axis.addLayers([new TimeGraphAxis('axis', { color: 0xffffff, lineColor: 0x000000, verticalAlign: 'bottom' })]);
    const rowController = new TimeGraphRowController(ROW_HEIGHT, height);
    const container = new TimeGraphContainer({
        id: `${element.id}-canvas`, width: CHART_WIDTH, height, backgroundColor: 0xffffff,
        forceCanvasRenderer: true,
    }, unitController, canvas);

    let inFlight = 0;
    let lastDone = performance.now();
    let arrowRequest;
    const arrowLayer = new TimeGraphChartArrows('arrows', rowController);
    const providers = {
        rowProvider: () => ({ rowIds }),
        dataProvider: async (range, resolution, fetchArrows, ids, additional) => {
            inFlight++;
            try {
                const data = await fetchData(client, exp, outputId, tree.entries, categories, chartStart, range,
                    Math.ceil(Number(range.end - range.start) / resolution) + 1, ids ?? rowIds, fetchArrows,
                    additional ?? {});
                rangeEventsLayer.addRangeEvents(data.rangeEvents);
                if (fetchArrows) {
                    arrowRequest = data.arrowRequest;
                    arrowLayer.addArrows(data.arrows, rowIds);
                }
                return { rows: data.rows, range, resolution };
            } finally {
                inFlight--;
                lastDone = performance.now();
            }
        },
        stateStyleProvider: state => stateStyle(styleModel, state, ROW_HEIGHT),
        rowAnnotationStyleProvider: annotation => annotationStyle(styleModel, annotation),
        rowStyleProvider: () => ({ backgroundColor: 0xffffff, backgroundOpacity: 0, lineColor: 0xd3d3d3, lineThickness: 1 }),
    };
    const chart = new TimeGraphChart('chart', providers, rowController);
    // Annotations of no row (entryId -1): drawn across the chart, as the viewer does.
    const rangeEventsLayer = new TimeGraphRangeEventsLayer('range-events', providers);
    container.addLayers([rangeEventsLayer, chart, arrowLayer]);
    const settled = async () => {
        const deadline = performance.now() + 60000;
        while (inFlight > 0 || performance.now() - lastDone < 1500 || chart.rowComponents.size < rowIds.length) {
            if (performance.now() > deadline) {
                throw new Error(`${title}: timeline-chart did not settle in 60 s`);
            }
            await new Promise(r => setTimeout(r, 100));
        }
    };
    chart.update();
    await settled();
    if (search) {
        // What the viewer's search box does: the text under DIMMED, the chart asks again.
        chart.updateChart({ [DIMMED]: [search] });
        lastDone = performance.now();
        await settled();
    }
    // Where each label's text starts, as laid out: the tree's indent.
    const left = labels.getBoundingClientRect().left;
    const drawnLabels = [...labels.children].map((label, k) => {
        const text = document.createRange();
        text.selectNodeContents(label);
        return { text: label.textContent, depth: shown[k].depth, indent: text.getBoundingClientRect().left - left };
    });
    return {
        chart, arrowLayer, rangeEventsLayer, unitController, arrowRequest: () => arrowRequest, width: CHART_WIDTH,
        labels: drawnLabels,
    };
}

/**
 * What the viewer's data provider does for one chart request; `entries` in
 * the order the server sent them (the viewer offsets arrows by the first).
 */
async function fetchData(client, exp, outputId, entries, categories, chartStart, range, nbTimes, ids, fetchArrows, additional) {
    const start = chartStart + range.start;
    const end = chartStart + range.end;
    const [statesResp, annotationsResp] = await Promise.all([
        client.fetchTimeGraphStates(exp.UUID, outputId, QueryHelper.selectionTimeRangeQuery(start, end, nbTimes, ids, additional)),
        client.fetchAnnotations(exp.UUID, outputId, QueryHelper.selectionTimeRangeQuery(start, end, nbTimes, ids,
            { requested_marker_categories: categories })),
    ]);
    const perRow = new Map();
    const rangeEvents = [];
    const annotations = annotationsResp.isOk() ? annotationsResp.getModel()?.model?.annotations ?? {} : {};
    for (const [category, list] of Object.entries(annotations)) {
        for (const a of list.filter(x => x.type === 'CHART')) {
            const row = a.entryId === -1 ? rangeEvents : perRow.get(a.entryId) ?? [];
            row.push({
                id: `${a.entryId}-${row.length}`, category, label: a.label ?? '',
                range: { start: a.time - chartStart, end: a.time + a.duration - chartStart },
                data: { style: a.style },
            });
            if (a.entryId !== -1) {
                perRow.set(a.entryId, row);
            }
        }
    }
    const served = statesResp.isOk() ? statesResp.getModel()?.model?.rows ?? [] : [];
    const rows = [];
    for (const id of ids) {
        const entry = entries.find(e => e.id === id);
        const row = served.find(r => r.entryId === id) ?? { entryId: id, states: [{ start: 0n, end: 0n, label: '', tags: 0 }] };
        if (!entry) {
            continue;
        }
        // The viewer draws the gaps between states in the entry's style (or
        // grey), faded when any state of the row is tagged DIMMED.
        const dimGaps = row.states.some(s => s.tags === DIMMED);
        const gapStyle = entry.style ?? { parentKey: '', values: { 'background-color': '#CACACA', height: 1.0 } };
        gapStyle.values = { ...gapStyle.values };
        if (dimGaps) {
            gapStyle.values.opacity = 0.3;
        } else {
            delete gapStyle.values.opacity;
        }
        const states = row.states.map((s, i) => ({
            id: `${id}-${i}`, label: s.label,
            range: { start: s.start - chartStart, end: s.end - chartStart },
            data: { style: s.style, tags: s.tags },
        }));
        rows.push({
            id, name: entry.labels[0],
            range: { start: entry.start - chartStart, end: entry.end - chartStart },
            states, annotations: perRow.get(id) ?? [], gapStyle,
            prevPossibleState: states.length ? states[0].range.start : entry.start - chartStart,
            nextPossibleState: states.length ? states[states.length - 1].range.end : entry.end - chartStart,
        });
    }
    let arrows = [];
    let arrowRequest;
    if (fetchArrows) {
        // The viewer asks for arrows over the world range shifted by the first
        // entry's start, and draws them shifted back by that same start.
        const offset = entries[0].start;
        const asked = { start: range.start + offset, end: range.end + offset };
        const resp = await client.fetchTimeGraphArrows(exp.UUID, outputId,
            QueryHelper.timeRangeQuery(asked.start, asked.end, nbTimes));
        const served = resp.isOk() ? resp.getModel()?.model ?? [] : [];
        arrowRequest = { ...asked, served: served.length };
        arrows = served.map(a => ({
            sourceId: a.sourceId, destinationId: a.targetId,
            range: { start: a.start - offset, end: a.end - offset },
            data: { served: { start: a.start, end: a.end } },
        }));
    }
    return { rows, arrows, arrowRequest, rangeEvents };
}

/** The viewer's style of a row annotation: symbol, colour and size from the output's styles. */
function annotationStyle(styleModel, annotation) {
    const style = annotation.data?.style;
    if (!style) {
        return undefined;
    }
    const walkValue = key => {
        let s = style;
        while (s) {
            if (s.values?.[key] !== undefined) {
                return s.values[key];
            }
            s = styleModel?.styles?.[s.parentKey];
        }
        return undefined;
    };
    const color = colorStyle(styleModel, style, 'color');
    const factor = numberStyle(styleModel, style, 'height');
    return {
        symbol: walkValue('symbol-type') ?? 'none',
        size: ROW_HEIGHT * 0.8 / 2 * (factor ?? 1),
        color: color ? color.color : 0x000000,
        opacity: color ? color.alpha : 1.0,
        verticalAlign: walkValue('vertical-align') ?? 'middle',
    };
}

/**
 * What is on the canvas: every state, annotation and arrow timeline-chart
 * drew, in canvas pixels (the layer's shift and scale applied), with the
 * opacity it was drawn with; and `timeX(t)`, the canvas x of an absolute time
 * on the chart's axis.
 */
export function scene(view, chartStart) {
    const { chart, arrowLayer, rangeEventsLayer, unitController, width } = view;
    const toCanvas = (layer, x) => layer.layer.position.x + x * layer.layer.scale.x;
    const rows = [];
    for (const [rowId, row] of chart.rowComponents) {
        const states = [...row._rowStateComponents.values()].map(s => ({
            x: toCanvas(chart, s._options.position.x),
            x2: toCanvas(chart, s._options.position.x + s._options.width),
            opacity: s._options.opacity ?? 1,
            color: s._options.color,
            start: String(s.model.range.start + chartStart),
            end: String(s.model.range.end + chartStart),
            label: s.model.label ?? '',
        }));
        const annotations = [...row._rowAnnotationComponents.values()].map(a => ({
            x: toCanvas(chart, a._options.position.x), time: String(a.model.range.start + chartStart),
            category: a.model.category, symbol: a._style?.symbol ?? 'none', size: a._style?.size ?? 0,
        }));
        const gapOpacity = row.model?.gapStyle?.values?.opacity ?? 1;
        rows.push({ id: rowId, name: row.model?.name ?? '', states, annotations, gapOpacity });
    }
    const arrows = [...arrowLayer.arrows.entries()].map(([model, component]) => ({
        source: model.sourceId, target: model.destinationId,
        x1: toCanvas(arrowLayer, component._options.start.x),
        x2: toCanvas(arrowLayer, component._options.end.x),
        start: String(model.data.served.start), end: String(model.data.served.end),
    }));
    const rangeEvents = [...(rangeEventsLayer.rangeEvents ?? new Map()).entries()].map(([model, component]) => ({
        x: toCanvas(rangeEventsLayer, component._options.position.x), time: String(model.range.start + chartStart),
        category: model.category, width: component._options.width,
    }));
    const view0 = unitController.viewRange;
    const span = Number(view0.end - view0.start);
    const timeX = t => Number(BigInt(t) - chartStart - view0.start) * width / span;
    return {
        rows, arrows, rangeEvents, width, arrowRequest: view.arrowRequest(), labels: view.labels,
        arrowsExpected: arrows.map(a => ({ x1: timeX(a.start), x2: timeX(a.end) })),
        stateEdgesExpected: rows.flatMap(r => r.states.filter(s => {
            const x = timeX(s.start);
            return x >= 0 && x <= width;
        }).map(s => ({ drawn: s.x, expected: timeX(s.start) }))),
    };
}
