/**
 * vitest globalSetup: finds or fetches helm and kubectl once, before the test workers start (so two
 * workers never download them side by side). Under CI=true a missing tool fails the run here.
 */
import { kubeTool } from './kube-tools.js';

export default function setup(): void {
  kubeTool('helm');
  kubeTool('kubectl');
}
