// The VS Code Trace Viewer's configuration editor, as far as it decides
// whether a configuration can be posted: it rebuilds the configuration
// type's schema, keeping of the served schema only the top-level
// `properties`, `oneOf`, `required` and `additionalProperties` (under
// `parameters`; `$defs`, `allOf` and the rest are dropped), and validates the
// edited JSON with Ajv's 2020-12 dialect constructed with its defaults
// (strict mode). Our own code, from the editor's documented behaviour.
import Ajv2020 from 'ajv/dist/2020.js';

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

/**
 * Whether the editor would accept `configuration` for `type`:
 * `{accepted, errors}`, errors being Ajv's compile error (the schema itself
 * refused) or its validation messages.
 */
export function editorAccepts(type, configuration) {
    // The served schema as the client parsed it (json-bigint: long numbers
    // are BigInts), as the editor gets it; keys the transform left undefined dropped.
    const schema = editorSchema(type);
    const parameters = schema.properties.parameters;
    for (const key of Object.keys(parameters)) {
        if (parameters[key] === undefined) {
            delete parameters[key];
        }
    }
    let validate;
    try {
        validate = new Ajv2020().compile(schema);
    } catch (e) {
        return { accepted: false, errors: [`schema refused by Ajv 2020: ${e.message}`] };
    }
    if (validate(configuration)) {
        return { accepted: true, errors: [] };
    }
    return { accepted: false, errors: validate.errors.map(e => `${e.instancePath} ${e.message}`) };
}
