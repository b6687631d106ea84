// Quantities as people read them.

/** A size in bytes: "40 bytes", "4.9 KB", "177 MB", "19 GB" (powers of 1024; a decimal below 10). */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${Math.round(bytes)} bytes`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A count with its noun, singular for one: "1 point", "2,048 points" (`plural` where "s" is not it). */
export function formatCount(count: number, noun: string, plural = noun + 's'): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? noun : plural}`;
}

/** How long to wait, as people say it: "40 seconds", "about 15 minutes" (894 s), "about 2 hours". */
export function formatWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  if (s < 60) return formatCount(s, 'second');
  const minutes = Math.round(s / 60);
  if (minutes < 90) return `about ${formatCount(minutes, 'minute')}`;
  return `about ${formatCount(Math.round(minutes / 60), 'hour')}`;
}
