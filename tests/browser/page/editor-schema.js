// The schema the VS Code Trace Viewer's configuration editor validates a
// configuration against: it rebuilds the configuration type's schema,
// keeping of the served schema only the top-level `properties`, `oneOf`,
// `required` and `additionalProperties` (under `parameters`; `$defs`,
// `allOf` and the rest are dropped). Our own code, from the editor's
// documented behaviour. No import, so that any test can use it.

/** The schema the editor validates a configuration of `type` against. */
export function editorSchema(type) {
    const served = type.schema ?? {};
    return {
        $schema: served.$schema,
        $id: served.$id,
        title: served.title,
        description: served.description,
        type: 'object',
        properties: {
            sourceTypeId: { const: type.id, description: 'The configuration type.', default: type.id },
            name: { type: 'string', description: 'The name for this custom analysis', default: type.name },
            description: { type: 'string', description: 'How the analysis is modified', default: type.description },
            parameters: {
                type: 'object',
                description: 'Configuration properties',
                properties: served.properties ?? {},
                oneOf: served.oneOf,
                additionalProperties: served.additionalProperties,
                required: served.required,
            },
        },
        required: ['name', 'sourceTypeId'],
    };
}
