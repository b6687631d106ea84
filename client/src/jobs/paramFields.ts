// The submission form's parameter inputs, derived from the schema's JobParams so the
// form never restates defaults, limits or help text.
import { JobParams, type JobType } from '@wpv/schema';
import { z } from 'zod';

export interface ParamField {
  key: string;
  kind: 'integer' | 'number' | 'boolean' | 'choice' | 'list';
  help: string;
  required: boolean;
  /** The schema's default as the input shows it ('' when there is none). */
  placeholder: string;
  options: string[];
  min?: number;
  max?: number;
}

interface JsonProperty {
  type?: string;
  enum?: string[];
  default?: unknown;
  description?: string;
  minimum?: number;
  maximum?: number;
}

export function paramFields(type: JobType): ParamField[] {
  const json = z.toJSONSchema(JobParams[type], { io: 'input' }) as {
    properties: Record<string, JsonProperty>;
    required?: string[];
  };
  return Object.entries(json.properties).map(([key, p]) => {
    const kind: ParamField['kind'] = p.enum ? 'choice'
      : p.type === 'integer' ? 'integer'
      : p.type === 'number' ? 'number'
      : p.type === 'boolean' ? 'boolean'
      : 'list';
    return {
      key,
      kind,
      help: p.description ?? '',
      required: json.required?.includes(key) ?? false,
      placeholder: p.default === undefined ? '' : String(p.default),
      options: p.enum ?? [],
      min: p.minimum !== undefined && Number.isSafeInteger(p.minimum) ? p.minimum : undefined,
      max: p.maximum !== undefined && p.maximum < Number.MAX_SAFE_INTEGER ? p.maximum : undefined,
    };
  });
}

/** Raw input text per field → the params object; blank inputs are left to the server's defaults. */
/** The typed params, or the first problem and the field it is about ("params.<key>", as the API names it). */
export function paramsFromInputs(type: JobType, inputs: Record<string, string>): { params?: Record<string, unknown>; error?: string; field?: string } {
  const params: Record<string, unknown> = {};
  for (const field of paramFields(type)) {
    const text = (inputs[field.key] ?? '').trim();
    if (text === '') continue;
    if (field.kind === 'integer' || field.kind === 'number') params[field.key] = Number(text);
    else if (field.kind === 'boolean') params[field.key] = text === 'true';
    else if (field.kind === 'list') params[field.key] = text.split(',').map((s) => s.trim()).filter(Boolean);
    else params[field.key] = text;
  }
  const checked = JobParams[type].safeParse(params);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return { error: `${issue.path.join('.') || 'parameters'}: ${issue.message}`, field: ['params', ...issue.path].join('.') };
  }
  return { params };
}
