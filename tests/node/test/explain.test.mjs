// The explain outputs (sextant.explain configurations) through the real
// tsp-typescript-client 0.9.0 on fixtures/scenario-a/ctf: the critical path
// of the longest rt_high job (tree, states, arrows) and its complement,
// checked against `sextant explain --longest --format json` on the same trace.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { BIN, FIXTURE, MODEL, model, openExperiment, poll, startServer, stopServer } from './common.mjs';

const require = createRequire(import.meta.url);
const { HttpTspClient, QueryHelper } = require('tsp-typescript-client');

/** `sextant explain --longest --format json`: the reference. */
function reference() {
    const out = execFileSync(BIN, ['explain', FIXTURE, '--model', MODEL, '--longest', '--format', 'json'],
        { encoding: 'utf8', maxBuffer: 1 << 28 });
    return JSON.parse(out);
}

describe('explain outputs on scenario-a', () => {
    let server;
    let client;
    let exp;
    let path;
    let complement;
    const ref = existsSync(BIN) ? reference() : undefined;

    before(async () => {
        assert.ok(existsSync(BIN), `${BIN} is missing: run cargo build --release first`);
        const [child, url] = await startServer();
        server = child;
        client = new HttpTspClient(url);
        exp = await openExperiment(client, 'explain-a');
        const parameters = { model: JSON.parse(readFileSync(MODEL, 'utf8')), execution: 'longest' };
        const created = model(await client.createDerivedOutput(exp.UUID, 'sextant.explain',
            QueryHelper.outputConfigurationQuery('longest', 'the longest job', 'sextant.explain', parameters)),
            'createDerivedOutput');
        path = created.id;
        complement = path.replace('sextant.explain.critical-path:', 'sextant.explain.complement:');
    });

    after(() => stopServer(server));

    it('the critical path runs through rt_low, as sextant explain says', async () => {
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, path,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'path tree');
        const names = new Map(tree.entries.map(e => [Number(e.id), e.labels[0]]));
        const want = new Set(ref.critical_path.map(p => p.comm));
        assert.deepEqual(new Set(names.values()), want);
        assert.ok(want.has('rt_low'));
        const items = [...names.keys()];
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, path,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 1000, items)), 'path states');
        const got = states.rows.flatMap(r => r.states.map(s =>
            `${s.start} ${s.end} ${names.get(Number(r.entryId))} ${s.style.parentKey}`)).sort();
        const expected = ref.critical_path.map(p => `${p.start} ${p.end} ${p.comm} ${p.state}`).sort();
        assert.deepEqual(got, expected);
        const arrows = await poll(() => client.fetchTimeGraphArrows(exp.UUID, path,
            QueryHelper.timeRangeQuery(exp.start, exp.end, 1000)), 'arrows');
        assert.ok(arrows.some(a => names.get(Number(a.sourceId)) === 'rt_low'
            && names.get(Number(a.targetId)) === 'rt_high'), JSON.stringify(arrows, (_, v) => typeof v === 'bigint' ? `${v}` : v));
    });

    it('the complement shows the inversions in their style', async () => {
        const styles = (await poll(() => client.fetchStyles(exp.UUID, complement, QueryHelper.query()), 'styles')).styles;
        assert.ok(styles.inversion, 'an inversion style');
        const tree = await poll(() => client.fetchTimeGraphTree(exp.UUID, complement,
            QueryHelper.timeRangeQuery(exp.start, exp.end)), 'complement tree');
        const inverted = new Set(ref.complement.flatMap(h => h.running)
            .filter(r => r.inversion && r.comm.startsWith('rt_med')).map(r => r.comm));
        assert.ok(inverted.size > 0, 'the reference names the medium threads');
        const children = tree.entries.filter(e => Number(e.parentId) !== -1 && inverted.has(e.labels[0]));
        assert.deepEqual(new Set(children.map(e => e.labels[0])), inverted);
        const states = await poll(() => client.fetchTimeGraphStates(exp.UUID, complement,
            QueryHelper.selectionTimeRangeQuery(exp.start, exp.end, 1000, children.map(e => Number(e.id)))),
            'complement states');
        for (const r of states.rows) {
            assert.ok(r.states.length > 0);
            assert.ok(r.states.every(s => s.style.parentKey === 'inversion'));
        }
    });
});
