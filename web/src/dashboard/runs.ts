// The runs pages, one chunk (LazyRuns.tsx): the list of runs and a run's
// page, with its timeline of events.

export { RunsPage } from './Runs';
export { RunPage } from './Run';
