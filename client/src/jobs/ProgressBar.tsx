// A labelled progress bar; an unknown fraction shows a moving stripe instead of a made-up number.
export function ProgressBar({ fraction, text, testId }: { fraction: number | null; text: string; testId?: string }) {
  const known = fraction !== null;
  return (
    <div className={`progress ${known ? '' : 'indeterminate'}`} role="progressbar" data-testid={testId}
      aria-valuemin={0} aria-valuemax={100} aria-valuenow={known ? Math.floor(fraction * 100) : undefined} aria-valuetext={text}>
      <div className="fill" style={{ width: known ? `${(fraction * 100).toFixed(1)}%` : '30%' }} />
      <span className="text">{text}</span>
    </div>
  );
}
