// Output styles resolved as the VS Code Trace Viewer resolves them before
// handing a state to timeline-chart: a value is looked up in the element's
// own style, then through its `parentKey` chain (comma-separated keys,
// last one first) in the output's style model; colours are "#rrggbb" with
// an `opacity` beside them. Our own code, written from the viewer's
// documented behaviour (tests/browser/README.md).

/** Walks an element style and its parents, calling `visit(values)` until it returns true. */
function walk(model, style, visit) {
    const queue = [];
    let current = style;
    while (current) {
        if (visit(current.values ?? {})) {
            return;
        }
        for (const key of (current.parentKey ?? '').split(',').filter(k => k)) {
            queue.push(key);
        }
        current = undefined;
        while (!current && queue.length) {
            current = model?.styles?.[queue.pop()];
        }
    }
}

/** The first number found for `property`, times the first `property-factor` met on the way. */
export function numberStyle(model, style, property) {
    let factor;
    let value;
    walk(model, style, values => {
        if (factor === undefined && typeof values[`${property}-factor`] === 'number') {
            factor = values[`${property}-factor`];
        }
        if (typeof values[property] === 'number') {
            value = values[property];
            return true;
        }
        return false;
    });
    if (value === undefined) {
        return factor;
    }
    return factor === undefined ? value : factor * value;
}

/** `{color, alpha}` of a colour property and the first opacity met, or undefined. */
export function colorStyle(model, style, property) {
    let color;
    let opacity;
    walk(model, style, values => {
        if (opacity === undefined && typeof values.opacity === 'number') {
            opacity = values.opacity;
        }
        if (color === undefined && typeof values[property] === 'string') {
            color = values[property];
        }
        return color !== undefined && opacity !== undefined;
    });
    if (color === undefined && opacity === undefined) {
        return undefined;
    }
    const alpha = opacity ?? 1.0;
    return { color: color === undefined ? 0 : parseInt(color.replace(/^#/, ''), 16), alpha };
}

/** The DIMMED bit of TSP's element tags: the viewer draws such states at 30 % opacity. */
export const DIMMED = 1;

/**
 * timeline-chart's style for a state, as the viewer computes it: colour and
 * opacity from `background-color`, 80 % of the row times the `height`
 * factor, and 0.3 opacity when the state's tags are exactly DIMMED.
 */
export function stateStyle(model, state, rowHeight) {
    const style = state.data?.style;
    if (!style) {
        return undefined;
    }
    const background = colorStyle(model, style, 'background-color');
    const factor = numberStyle(model, style, 'height');
    const height = rowHeight * 0.8 * (factor ?? 1);
    const tags = state.data.tags;
    return {
        color: background ? background.color : 0x000000,
        opacity: tags && tags === DIMMED ? 0.3 : background ? background.alpha : 1.0,
        height,
        borderWidth: 0,
    };
}
