// sextant serve, drawn by the VS Code Trace Viewer's drawing library
// (timeline-chart) in Debian's Chromium driven by puppeteer-core, from a
// page of ours (page/) that feeds it as the viewer does; the assertions are
// on what was drawn. Screenshots go to target/browser/.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';
import { bundle, startPageServer } from './page-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const BIN = process.env.SEXTANT_BIN ?? join(ROOT, 'target/release/sextant');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const FIXTURE = join(ROOT, 'fixtures/scenario-a/ctf');
const MODEL = join(ROOT, 'schemas/examples/periodic-rt_high.json');
const SHOTS = join(ROOT, 'target/browser');

// sextant stores in a cache directory of its own (XDG_CACHE_HOME), neither
// the user's nor beside the repository's fixtures.
const CACHE = mkdtempSync(join(tmpdir(), 'sextant-browser-cache-'));
process.env.XDG_CACHE_HOME = CACHE;
process.on('exit', () => rmSync(CACHE, { recursive: true, force: true }));

/** `sextant serve --port 0` from the repository root: resolves to [child, base URL]. */
function startSextant() {
    const child = spawn(BIN, ['serve', '--port', '0'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    return new Promise((ok, fail) => {
        const timer = setTimeout(() => fail(new Error('sextant serve printed no address in 20 s')), 20000);
        child.on('error', fail);
        child.on('exit', code => fail(new Error(`sextant serve exited (${code})`)));
        createInterface({ input: child.stderr }).on('line', line => {
            const m = /(http:\/\/\S+\/tsp\/api)/.exec(line);
            if (m) {
                clearTimeout(timer);
                ok([child, m[1]]);
            }
        });
    });
}

/** `sextant analyze` of the model: the executions the views must show. */
function analyzed() {
    const out = execFileSync(BIN, ['analyze', FIXTURE, '--model', MODEL, '--format', 'json'],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
    return JSON.parse(out).stats;
}

/** `sextant tasks --format json`: the tasks the tasks views must show. */
function tasksFound() {
    const out = execFileSync(BIN, ['tasks', FIXTURE, '--format', 'json'], { encoding: 'utf8', maxBuffer: 1 << 28 });
    return JSON.parse(out).tasks;
}

/** A view's part of the scene, failing the test with the page's error when it could not be drawn. */
function drawn(scene, name) {
    assert.ok(scene[name], `the page drew no ${name}: ${JSON.stringify(scene).slice(0, 2000)}`);
    assert.equal(scene[name].error, undefined, `${name}: ${scene[name].error}`);
    return scene[name];
}

describe('sextant in timeline-chart (Chromium)', () => {
    let sextant;
    let page;
    let browser;
    let scene;
    const stats = existsSync(BIN) ? analyzed() : undefined;
    const tasks = existsSync(BIN) ? tasksFound() : undefined;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release first`);
        assert.ok(existsSync(CHROMIUM), `${CHROMIUM} is missing: apt-get install chromium (tests/run-all.sh does)`);
        const [child, url] = await startSextant();
        sextant = child;
        page = await startPageServer({ sextant: url, script: await bundle(), model: MODEL });
        browser = await puppeteer.launch({
            executablePath: CHROMIUM,
            headless: true,
            args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
        });
        const tab = await browser.newPage();
        await tab.setViewport({ width: 1200, height: 900 });
        const logs = [];
        tab.on('console', m => logs.push(`${m.type()}: ${m.text()}`));
        tab.on('pageerror', e => logs.push(`pageerror: ${e.message}`));
        await tab.goto(`${page.url}?trace=${encodeURIComponent(FIXTURE)}&model=/model.json`);
        scene = await tab.evaluate(() => window.sextantScene);
        mkdirSync(SHOTS, { recursive: true });
        writeFileSync(join(SHOTS, 'scene.json'), JSON.stringify(scene, null, 1));
        writeFileSync(join(SHOTS, 'console.txt'), logs.join('\n'));
        await tab.screenshot({ path: join(SHOTS, 'page.png'), fullPage: true });
        for (const id of ['thread-status', 'thread-status-search', 'comparison', 'density', 'critical-path', 'critical-path-zoomed',
            'tasks-table', 'tasks-instances']) {
            const el = await tab.$(`#${id}`);
            if (el) {
                await el.screenshot({ path: join(SHOTS, `${id}.png`) });
            }
        }
        assert.equal(scene.error, undefined, `the page failed: ${scene.error}`);
    }, { timeout: 300000 });

    after(async () => {
        await browser?.close();
        await page?.close();
        if (sextant && sextant.exitCode === null) {
            sextant.kill('SIGTERM');
        }
    });

    it("the execution model passes the viewer's editor (its schema transform, Ajv 2020 strict)", () => {
        assert.deepEqual(scene.editor, { accepted: true, errors: [] });
    });

    it('thread status: states drawn, none faded (no search is active)', () => {
        const view = drawn(scene, 'threadStatus');
        const states = view.rows.flatMap(r => r.states.map(s => ({ row: r.name, ...s })));
        assert.ok(view.rows.some(r => r.name === 'rt_high' && r.states.length > 0), 'rt_high has states drawn');
        const faded = states.filter(s => s.opacity < 1);
        assert.equal(faded.length, 0, `${faded.length} of ${states.length} states drawn faded, e.g. ${JSON.stringify(faded.slice(0, 3))}`);
        const fadedGaps = view.rows.filter(r => r.gapOpacity < 1).map(r => r.name);
        assert.deepEqual(fadedGaps, [], 'rows whose gaps are drawn faded');
        for (const edge of view.stateEdgesExpected) {
            assert.ok(Math.abs(edge.drawn - edge.expected) <= 1, `a state drawn at x=${edge.drawn}, its start is at x=${edge.expected}`);
        }
    });

    it('thread status, "rt_high" searched: its states keep their look, the others are faded', () => {
        const view = drawn(scene, 'threadStatusSearch');
        const mine = view.rows.filter(r => r.name === 'rt_high').flatMap(r => r.states);
        const others = view.rows.filter(r => r.name !== 'rt_high').flatMap(r => r.states);
        assert.ok(mine.length > 0 && others.length > 0, 'states drawn in rt_high and other rows');
        const kept = others.filter(s => s.opacity === 1);
        assert.equal(kept.length, 0, `${kept.length} of ${others.length} states of other threads not faded, e.g. ${JSON.stringify(kept.slice(0, 2))}`);
        assert.deepEqual(mine.filter(s => s.opacity < 1), [], 'rt_high states drawn faded');
    });

    it('Comparison View: one row per execution of sextant analyze, states drawn, none faded', () => {
        const view = drawn(scene, 'comparison');
        const withStates = view.rows.filter(r => r.states.some(s => s.x2 > s.x));
        assert.equal(withStates.length, stats.count, 'rows with states drawn');
        const faded = view.rows.flatMap(r => r.states).filter(s => s.opacity < 1);
        assert.equal(faded.length, 0, `${faded.length} states drawn faded`);
    });

    it('Comparison View: a deadline-miss annotation drawn, visible, for each late execution', () => {
        const view = drawn(scene, 'comparison');
        const marks = [...view.rows.flatMap(r => r.annotations), ...view.rangeEvents]
            .filter(a => /deadline/i.test(a.category));
        assert.equal(marks.length, stats.deadline_misses,
            `deadline-miss annotations drawn (categories drawn: ${JSON.stringify([...new Set([...view.rows.flatMap(r => r.annotations), ...view.rangeEvents].map(a => a.category))])})`);
        const outside = marks.filter(a => a.x < 0 || a.x > view.width);
        assert.deepEqual(outside, [], 'annotations drawn outside the view');
        // timeline-chart draws a row annotation as a symbol only (the viewer
        // takes it from the style's symbol-type, "none" when there is none),
        // an annotation of no row as a band across the chart.
        const unseen = marks.filter(a => ('symbol' in a) ? a.symbol === 'none' || !(a.size > 0) : !(a.width >= 1));
        assert.equal(unseen.length, 0, `${unseen.length} deadline-miss annotations drawn as no symbol, e.g. ${JSON.stringify(unseen[0])}`);
    });

    it('duration density: bars drawn, adding up to the executions and the deadline misses', () => {
        const view = drawn(scene, 'density');
        const bars = view.bars.filter(b => b.height > 0);
        assert.ok(bars.length > 0, `no bar drawn (${view.series.length} series asked with nbSamples ${view.nbSamples})`);
        assert.equal(view.series[0]?.sum, stats.count, 'executions counted in the bars');
        assert.equal(view.series[1]?.sum, stats.deadline_misses, 'deadline misses counted in the bars');
    });

    it('real-time tasks: the table drawn, a line per task of sextant tasks', () => {
        const view = drawn(scene, 'tasksTable');
        const at = name => view.columns.indexOf(name);
        const got = view.lines.map(cells => [cells[at('Command')], Number(cells[at('TID')]), Number(cells[at('Jobs')])]);
        assert.deepEqual(got, tasks.map(t => [t.comm, t.tid, t.jobs]));
    });

    it("real-time tasks: rt_high's instance series drawn, a dot per job inside the plot", () => {
        const view = drawn(scene, 'tasksInstances');
        const rtHigh = tasks.find(t => t.comm === 'rt_high');
        assert.deepEqual(view.map(v => v.id), ['sextant.tasks.response', 'sextant.tasks.execution',
            'sextant.tasks.periodicity', 'sextant.tasks.separation']);
        for (const v of view) {
            assert.deepEqual(v.series.map(s => s.name), [`rt_high (${rtHigh.tid})`], `${v.id}: the default series`);
            const want = v.id.endsWith('response') || v.id.endsWith('execution') ? rtHigh.jobs : rtHigh.jobs - 1;
            const points = v.series[0].points;
            assert.equal(points.length, want, `${v.id}: dots drawn`);
            const outside = points.filter(p => p.x < 0 || p.x > v.width || p.y < 0 || p.y > v.height);
            assert.deepEqual(outside, [], `${v.id}: dots outside the plot`);
        }
        const response = view[0].series[0];
        assert.equal(Math.max(...response.values), rtHigh.response.max, 'the longest response drawn');
        assert.equal(response.releases[0], String(rtHigh.first_release), 'the first dot at the first release');
    });

    it('thread status: the tree drawn as host, process, thread, each level indented', () => {
        const view = drawn(scene, 'threadStatus');
        assert.deepEqual([...new Set(view.labels.map(l => l.depth))].sort(), [0, 1, 2]);
        const thread = view.labels.find(l => l.text.endsWith(' rt_high') && l.depth === 2);
        assert.ok(thread, `rt_high drawn as a thread under its process: ${JSON.stringify(view.labels.slice(0, 8))}`);
        const depths = new Map(view.labels.map(l => [l.depth, l.indent]));
        assert.ok(depths.get(0) < depths.get(1) && depths.get(1) < depths.get(2), `indents ${[...depths]}`);
    });

    for (const [name, how] of [['criticalPath', 'whole trace'], ['criticalPathZoomed', 'zoomed to the job']]) {
        it(`critical path (${how}): each wake-up arrow drawn at its times on the axis (within a pixel)`, () => {
            const view = drawn(scene, name);
            const asked = view.arrowRequest;
            assert.ok(view.arrows.length > 0, `no arrow drawn: the viewer asked for the arrows of ${asked?.start}..${asked?.end} ns `
                + `(its view range shifted by the first entry's start, ${scene.experiment.start}..${scene.experiment.end} being the trace) `
                + `and got ${asked?.served}`);
            view.arrows.forEach((a, i) => {
                const want = view.arrowsExpected[i];
                assert.ok(Math.abs(a.x1 - want.x1) <= 1 && Math.abs(a.x2 - want.x2) <= 1,
                    `arrow ${a.source}->${a.target} at ${a.start}..${a.end} ns drawn from x=${a.x1} to x=${a.x2}, `
                    + `its times are at x=${want.x1.toFixed(1)} and x=${want.x2.toFixed(1)}`);
            });
            const faded = view.rows.flatMap(r => r.states).filter(s => s.opacity < 1);
            assert.equal(faded.length, 0, `${faded.length} states drawn faded`);
        });
    }
});
