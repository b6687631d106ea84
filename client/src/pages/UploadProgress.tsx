// One XHR upload at a time with its progress bar and cancel button: the plot upload
// and the job form both send a file this way.
import { useRef, useState } from 'react';

interface Upload<T> {
  promise: Promise<T>;
  abort: () => void;
}

/** `progress` is null while idle, else the fraction sent; `run` starts an upload and settles with it. */
export function useUpload() {
  const [progress, setProgress] = useState<number | null>(null);
  const abortRef = useRef<(() => void) | null>(null);

  async function run<T>(start: (onProgress: (fraction: number) => void) => Upload<T>): Promise<T> {
    setProgress(0);
    const upload = start(setProgress);
    abortRef.current = upload.abort;
    try {
      return await upload.promise;
    } finally {
      setProgress(null);
      abortRef.current = null;
    }
  }

  return { progress, run, abort: () => abortRef.current?.() };
}

/** The bar while the file is sent, then what the server is doing with it. */
export function UploadProgress({ progress, testId, serverStep, cancelLabel, onCancel }: {
  progress: number;
  testId: string;
  serverStep: string;
  cancelLabel: string;
  onCancel: () => void;
}) {
  return (
    <div className="row"><progress data-testid={testId} value={progress} max={1} />
      {progress < 1 ? `${(progress * 100).toFixed(0)}%` : serverStep}
      <button type="button" onClick={onCancel}>{cancelLabel}</button></div>
  );
}
