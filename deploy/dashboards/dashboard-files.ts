import { serviceDashboard } from './service-dashboard.js';

/** The chart's dashboard files (helm/dynamic-events/dashboards/), by name: their exact text. */
export function dashboardFiles(): Record<string, string> {
  return { 'dynamic-events.json': `${JSON.stringify(serviceDashboard(), null, 2)}\n` };
}
