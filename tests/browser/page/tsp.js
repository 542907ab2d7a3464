// Reading TSP answers in the page as the viewer does: a failed response is
// an error naming the request; RUNNING answers are asked again.

/** The model of a successful response. */
export function model(resp, what) {
    if (!resp.isOk()) {
        throw new Error(`${what}: ${resp.getStatusCode()} ${resp.getText()}`);
    }
    const m = resp.getModel();
    if (m === undefined) {
        throw new Error(`${what}: the client could not read ${resp.getText().slice(0, 300)}`);
    }
    return m;
}

/** A data response, asked again every 200 ms while RUNNING (60 s at most). */
export async function poll(call, what) {
    const deadline = Date.now() + 60000;
    for (;;) {
        const r = model(await call(), what);
        if (r.status !== 'RUNNING') {
            if (r.status !== 'COMPLETED') {
                throw new Error(`${what}: ${r.status} ${r.statusMessage}`);
            }
            return r.model;
        }
        if (Date.now() > deadline) {
            throw new Error(`${what}: still RUNNING after 60 s`);
        }
        await new Promise(ok => setTimeout(ok, 200));
    }
}
