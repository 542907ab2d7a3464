// The duration density as the viewer's generic-XY component asks for it and
// draws it: the tree, then the checked (default) series over the view's
// absolute time range with `nbSamples` bins — as many as fit the plot at
// 3 px a bar and 1 px between bars of a group, 4 px between groups, in
// steps of 5, between 5 and 50 — drawn as grouped bars on a canvas.
import { QueryHelper } from 'tsp-typescript-client/lib/models/query/query-helper';
import { poll } from './tsp.js';

const WIDTH = 1000;
const HEIGHT = 240;
const COLORS = ['#3891a6', '#db5461', '#fde74c', '#4c5b5c'];

/** The number of bins the viewer asks for on a plot `width` CSS pixels wide. */
export function samplesFor(width, seriesPerGroup) {
    const px = Math.max(1, width) * Math.max(1, window.devicePixelRatio || 1);
    const perGroup = Math.max(1, seriesPerGroup);
    const groupPx = Math.max(8, perGroup * 3 + (perGroup - 1) * 1 + 4);
    const rough = Math.floor(px / groupPx);
    const quantized = Math.max(5, Math.floor(rough / 5) * 5);
    return Math.max(5, Math.min(quantized, 50));
}

/** Asks for the density and draws its bars in `element`; returns what was drawn. */
export async function drawDensity({ client, exp, outputId, element }) {
    const tree = await poll(() => client.fetchGenericXYTree(exp.UUID, outputId,
        QueryHelper.timeRangeQuery(exp.start, exp.end)), 'density tree');
    const checked = tree.entries.filter(e => e.isDefault).map(e => e.id);
    const nbSamples = samplesFor(WIDTH, checked.length);
    const xy = await poll(() => client.fetchGenericXY(exp.UUID, outputId,
        QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, nbSamples, checked, undefined, true)), 'density');
    const series = xy.series ?? [];

    const canvas = document.createElement('canvas');
    canvas.width = WIDTH;
    canvas.height = HEIGHT;
    element.appendChild(canvas);
    const g = canvas.getContext('2d');
    g.fillStyle = '#ffffff';
    g.fillRect(0, 0, WIDTH, HEIGHT);
    const bins = series.length ? series[0].yValues.length : 0;
    const top = Math.max(1, ...series.flatMap(s => s.yValues));
    const groupWidth = bins ? WIDTH / bins : WIDTH;
    const barWidth = Math.max(1, (groupWidth - 4) / Math.max(1, series.length) - 1);
    const bars = [];
    series.forEach((s, k) => {
        g.fillStyle = COLORS[k % COLORS.length];
        s.yValues.forEach((y, i) => {
            const h = Math.round((HEIGHT - 20) * y / top);
            const x = i * groupWidth + 2 + k * (barWidth + 1);
            if (h > 0) {
                g.fillRect(x, HEIGHT - 20 - h, barWidth, h);
            }
            bars.push({ series: s.seriesName, bin: i, y, height: h, x });
        });
    });
    g.fillStyle = '#000000';
    g.font = '11px sans-serif';
    const ranges = series[0]?.xRanges ?? [];
    if (ranges.length) {
        g.fillText(`${Number(ranges[0].start) / 1e6} ms`, 2, HEIGHT - 5);
        const last = ranges[ranges.length - 1];
        g.fillText(`${Number(last.end) / 1e6} ms`, WIDTH - 80, HEIGHT - 5);
    }
    const legend = document.createElement('div');
    legend.textContent = series.map((s, k) => `${s.seriesName} (${COLORS[k % COLORS.length]})`).join(', ')
        || 'no series';
    element.appendChild(legend);
    return {
        nbSamples,
        checked,
        series: series.map(s => ({ name: s.seriesName, sum: s.yValues.reduce((a, b) => a + b, 0), bins: s.yValues.length })),
        bars,
    };
}
