/** Course duration: whole hours "<n>h"; under an hour "<n>m". */
export function formatCourseDuration(minutes: number): string {
  if (minutes < 60) return `${Math.max(1, Math.round(minutes))}m`;
  return `${Math.round(minutes / 60)}h`;
}

/** Topic duration: "<n>m" under an hour, otherwise "<h>h <m>m". */
export function formatTopicDuration(minutes: number): string {
  const m = Math.max(1, Math.round(minutes));
  if (m < 60) return `${m}m`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}
