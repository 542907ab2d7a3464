// The VS Code Trace Viewer's configuration editor, as far as it decides
// whether a configuration can be posted: the rebuilt schema
// (editor-schema.js) compiled with Ajv's 2020-12 dialect constructed with
// its defaults (strict mode), and the edited JSON validated against it.
import Ajv2020 from 'ajv/dist/2020.js';
import { editorSchema } from './editor-schema.js';

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
