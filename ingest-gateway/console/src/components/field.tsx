import type { ComponentChildren } from 'preact';

/** What a control inside a Field gets: its id and the ARIA links to its hint and error. */
interface ControlProps {
  id: string;
  'aria-invalid': boolean | undefined;
  'aria-describedby': string | undefined;
}

interface FieldProps {
  id: string;
  label: string;
  /** Shown under the control and read with it (aria-describedby). */
  hint?: string;
  /** The API's message about this field: shown next to it, the control marked invalid. */
  error?: string | undefined;
  control: (props: ControlProps) => ComponentChildren;
}

/** A labelled form control with its hint and the API's refusal of it. */
export function Field({ id, label, hint, error, control }: FieldProps) {
  const described = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {control({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': described || undefined })}
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </div>
  );
}

/** A text input bound to a string value. */
export function TextInput(props: ControlProps & { value: string; onValue: (value: string) => void; type?: 'text' | 'datetime-local'; inputMode?: 'decimal' | 'numeric' }) {
  const { value, onValue, ...rest } = props;
  // Preact types `type` per input kind; both kinds here take a string value.
  return <input {...rest} type={(props.type ?? 'text') as 'text'} value={value} onInput={(e) => onValue(e.currentTarget.value)} />;
}
