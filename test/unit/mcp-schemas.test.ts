import { describe, expect, it } from 'vitest';
import { loadApiDocument } from '../../src/api/document.js';
import { jsonSchemaOf, documentCheck } from '../../src/mcp/schemas.js';
import { toolsOf } from '../../src/mcp/tools.js';
import { clientPort, ControlRefusal } from '../../src/mcp/port.js';
import { readPage } from '../support/doc-pages.js';

const document = loadApiDocument().document;
const component = (name: string) => (document.components.schemas as Record<string, Record<string, unknown>>)[name]!;

describe('the MCP tools take their schemas from the document', () => {
  it('turns OpenAPI 3.0 into self-contained JSON Schema: nullable as anyOf with null, $refs into $defs of what is reached', () => {
    const schema = jsonSchemaOf(document, { $ref: '#/components/schemas/Fault' });
    expect(schema.$ref).toBe('#/$defs/Fault');
    const defs = schema.$defs as Record<string, Record<string, unknown>>;
    expect(Object.keys(defs).sort()).toEqual(['Fault', 'FaultPhase']);
    const properties = defs.Fault!.properties as Record<string, unknown>;
    expect(properties.method).toEqual({ anyOf: [{ type: 'string' }, { type: 'null' }] });
    expect(properties.remaining).toEqual({
      description: (component('Fault').properties as Record<string, { description: string }>).remaining!.description,
      anyOf: [{ type: 'integer' }, { type: 'null' }],
    });
    expect(JSON.stringify(schema)).not.toMatch(/nullable|#\/components/);
  });

  it("flattens an operation's body into the tool's input, with client_id, from the component itself", () => {
    const tools = new Map(toolsOf(document).map((t) => [t.name, t]));
    const addFault = tools.get('add_fault')!.input.schema as {
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    const { properties: faultCreate } = component('FaultCreate') as { properties: Record<string, unknown> };
    expect(Object.keys(addFault.properties).sort()).toEqual(['client_id', ...Object.keys(faultCreate)].sort());
    expect(addFault.properties.status).toEqual(faultCreate.status);
    expect(addFault.additionalProperties).toBe(false);
    const listRequests = tools.get('list_requests')!.input.schema as { properties: Record<string, unknown> };
    expect(Object.keys(listRequests.properties)).toEqual(expect.arrayContaining(['client_id', 'method', 'path']));
    expect(tools.get('readiness_report')!.input.schema.properties).not.toHaveProperty('format');
    expect(tools.get('set_clock')!.input.schema).toMatchObject({
      not: { required: ['advance_seconds', 'at'] },
      description: expect.stringContaining("`now` is this tool's `at`"),
    });
  });

  it("checks a value with Ajv over the document's components", () => {
    const check = documentCheck(document, { $ref: '#/components/schemas/FaultCreate' });
    expect(check({ status: 503, count: 1 })).toEqual([]);
    expect(
      check({ status: 99, colour: 'red' })
        .map((e) => e.path)
        .sort(),
    ).toEqual(['/colour', '/status']);
  });
});

describe('the control client port', () => {
  it('says the fake did not answer, naming its URL, as a refusal', async () => {
    const port = clientPort(document, { url: 'http://127.0.0.1:9' });
    const error = await port.call({ operationId: 'getClock' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ControlRefusal);
    expect((error as ControlRefusal).problem).toMatchObject({
      code: 'fake_unreachable',
      status: 502,
      detail: expect.stringContaining('http://127.0.0.1:9'),
    });
  });
});

describe("docs/mcp.md's editor configuration", () => {
  it('is valid JSON naming the mcp subcommand, --url and /__control/mcp', async () => {
    const section = readPage('docs/mcp.md');
    const block = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const { mcpServers } = JSON.parse(block) as { mcpServers: Record<string, { args?: string[]; url?: string }> };
    const entries = Object.values(mcpServers);
    expect(entries.filter((e) => e.args?.includes('mcp'))).toHaveLength(2);
    expect(entries.some((e) => e.args?.includes('--url'))).toBe(true);
    expect(entries.some((e) => e.url?.endsWith('/__control/mcp'))).toBe(true);
    for (const prompt of [
      'why does my order sync miss completed orders?',
      'prove my client retries a lost answer',
      'reset and move the clock a day',
    ]) {
      expect(section.toLowerCase()).toContain(`"${prompt}"`);
    }
  });
});

/** Each JSON object written in a text (balanced braces that parse as JSON). */
function jsonObjectsIn(text: string): unknown[] {
  const found: unknown[] = [];
  for (let start = text.indexOf('{'); start !== -1; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{') depth++;
      else if (c === '}' && --depth === 0) {
        try {
          found.push(JSON.parse(text.slice(start, i + 1)));
          start = i;
        } catch {
          // braces in prose, not an example
        }
        break;
      }
    }
  }
  return found;
}

describe("the tools' descriptions", () => {
  it('give only examples that their own input schema takes', () => {
    let examples = 0;
    for (const tool of toolsOf(document)) {
      for (const example of jsonObjectsIn(tool.description)) {
        examples++;
        expect(
          tool.input.check(example as Record<string, unknown>),
          `${tool.name}: ${JSON.stringify(example)}`,
        ).toEqual([]);
      }
    }
    expect(examples).toBeGreaterThanOrEqual(5);
  });
});
