// Submit an analytics job: type, input file and any further file parts (uploaded with
// real progress), parameters, name. Types, file parts, hints and parameter fields all
// come from the job types' contracts (JOB_TYPES in @wpv/schema).
import { useMemo, useState } from 'react';
import { ApiError, JOB_TYPES, JobType, SubmittableJobType, type FilePart, type JobCreated } from '@wpv/schema';
import type { z } from 'zod';
import { jobs } from '../api/endpoints';
import { ErrorMessage } from '../pages/ErrorMessage';
import { UploadProgress, useUpload } from '../pages/UploadProgress';
import { paramFields, paramsFromInputs, type ParamField } from './paramFields';

/** The file parts of a type besides "file", e.g. the distance-matrix job's weights. */
const extraParts = (type: JobType) => Object.entries(JOB_TYPES[type].files as Record<string, FilePart>).filter(([part]) => part !== 'file');

export function JobSubmitForm({ onSubmitted }: { onSubmitted: (created: z.infer<typeof JobCreated>) => void }) {
  const [type, setType] = useState<JobType>('sequence-clustering');
  const [file, setFile] = useState<File | null>(null);
  const [parts, setParts] = useState<Record<string, File>>({});
  const [name, setName] = useState('');
  const [inputs, setInputs] = useState<Record<string, string>>({});
  // The form's error and the field it is about (the API's `field`: "file", "params.windowDays"…):
  // changing that field clears it, so a refused value's message does not stay under a new one.
  const [failure, setFailure] = useState<{ error: unknown; field?: string } | null>(null);
  const fail = (error: unknown, field = error instanceof ApiError ? error.field : undefined) => setFailure({ error, field });
  const changed = (field: string) => setFailure((shown) => (shown?.field === field ? null : shown));
  const upload = useUpload();
  const fields = useMemo(() => paramFields(type), [type]);

  async function submit() {
    if (!file) return fail(new Error('Choose an input file'), 'file');
    const { params, error: invalid, field } = paramsFromInputs(type, inputs);
    if (!params) return fail(new Error(invalid), field);
    const form = new FormData();
    form.set('type', type);
    if (name.trim()) form.set('name', name.trim());
    form.set('params', JSON.stringify(params));
    form.set('file', file);
    for (const [part] of extraParts(type)) if (parts[part]) form.set(part, parts[part]);
    setFailure(null);
    try {
      onSubmitted(await upload.run((onProgress) => jobs.submit(form, onProgress)));
    } catch (e) {
      fail(e);
    }
  }

  return (
    <form className="form job-form" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <h2>Submit a job</h2>
      <div className="row">
        <label>Type <select name="type" value={type} onChange={(e) => { setType(e.target.value as JobType); setInputs({}); setParts({}); setFailure(null); }}>
          {SubmittableJobType.options.map((t) => <option key={t} value={t}>{t}</option>)}</select></label>
        <label>Name <input name="name" value={name} placeholder="optional" onChange={(e) => { setName(e.target.value); changed('name'); }} /></label>
      </div>
      <p className="help">{JOB_TYPES[type].summary}</p>
      <label>Input ({JOB_TYPES[type].files.file.description})
        <input type="file" name="file" data-testid="job-file" accept={JOB_TYPES[type].files.file.accept}
          onChange={(e) => { setFile(e.target.files?.[0] ?? null); changed('file'); }} /></label>
      {extraParts(type).map(([part, spec]) => (
        <label key={`${type}.${part}`}>{part}{spec.required ? ' *' : ' (optional)'}: {spec.description}
          <input type="file" name={part} accept={spec.accept}
            onChange={(e) => { const chosen = e.target.files?.[0]; setParts((old) => { const { [part]: _, ...rest } = old; return chosen ? { ...rest, [part]: chosen } : rest; }); changed(part); }} /></label>
      ))}
      <fieldset className="params">
        <legend>Parameters</legend>
        {fields.map((f) => (
          <ParamInput key={`${type}.${f.key}`} field={f} value={inputs[f.key] ?? ''}
            onChange={(v) => { setInputs((old) => ({ ...old, [f.key]: v })); changed(`params.${f.key}`); }} />
        ))}
      </fieldset>
      {upload.progress === null
        ? <button type="submit" data-testid="job-submit">Submit</button>
        : <UploadProgress progress={upload.progress} testId="job-upload-progress"
            serverStep="uploaded; the server is checking the input…" cancelLabel="Cancel upload" onCancel={upload.abort} />}
      <ErrorMessage error={failure?.error} />
    </form>
  );
}

function ParamInput({ field, value, onChange }: { field: ParamField; value: string; onChange: (v: string) => void }) {
  const label = field.required ? `${field.key} *` : field.key;
  let input;
  if (field.kind === 'choice' || field.kind === 'boolean') {
    const options = field.kind === 'boolean' ? ['true', 'false'] : field.options;
    input = (
      <select name={field.key} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">{field.placeholder ? `default (${field.placeholder})` : 'default'}</option>
        {options.map((o) => <option key={o} value={o}>{o}</option>)}
      </select>
    );
  } else {
    const numeric = field.kind === 'integer' || field.kind === 'number';
    input = (
      <input name={field.key} type={numeric ? 'number' : 'text'} value={value} min={field.min} max={field.max}
        step={field.kind === 'integer' ? 1 : 'any'} required={field.required}
        placeholder={field.kind === 'list' ? 'comma,separated' : field.placeholder}
        onChange={(e) => onChange(e.target.value)} />
    );
  }
  return (
    <label className="param">
      <span className="param-name">{label}</span>
      {input}
      <small className="help">{field.help}</small>
    </label>
  );
}
